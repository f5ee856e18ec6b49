"""EXTRA·B · Block-sparse attention: the mask turned into a schedule the kernel reads.

The track's own lab, not one of the outline's (hence `EXTRA·B`, not a `LAB·` number): it
carries LAB·3.2's kernel from a causal mask to any mask, the way splash attention does.

A mask that is not arithmetic (here a causal sliding window plus a few "sink" tokens every
query may attend to) costs nothing at run time if it is processed ahead of time: cut it into
`block_q x block_k` blocks and label each empty (all zeros), partial or full (all ones). For
each query block, the non-empty key blocks are listed in order; the grid's last axis walks
that list (its length is the longest list), so empty blocks are not skipped but never
scheduled. The list, the labels and an index into the deduplicated partial mask blocks are
passed as scalar-prefetch operands (`PrefetchScalarGridSpec`): the index maps read them to
choose which key/value block and which mask block to fetch, and the kernel reads them to
choose between the full path (no mask work), the partial path (apply the mask block) and a
padding step (nothing). Runs under the TPU interpreter; checked against the dense masked
reference and against splash attention in interpret mode, and the labels against splash's
own `process_mask`.

Exercises: jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_mask_info.py::MaskInfo, jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_mask_info.py::_process_mask, jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_kernel.py::flash_attention_kernel, jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_kernel.py::_splash_attention_forward, jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_mask.py::NumpyMask, jax/_src/pallas/mosaic/core.py::PrefetchScalarGridSpec
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from kernels import _platform as plat
from kernels._svg import block_grid
from kernels.flash_attention import MASK_VALUE, attention_reference, dot

EMPTY, PARTIAL, FULL = 0, 1, 2


# %% The mask, and the schedule built from it
def window_with_sinks(seq: int, window: int = 80, sinks: int = 16) -> np.ndarray:
    """Causal attention to the last `window` keys and to the first `sinks` keys."""
    rows, cols = np.arange(seq)[:, None], np.arange(seq)[None, :]
    return (cols <= rows) & ((rows - cols < window) | (cols < sinks))


@dataclass(frozen=True, eq=False)
class Schedule:
    """The mask, preprocessed: per query block, the key blocks to visit and how."""

    labels: np.ndarray         # (nq, nk): EMPTY, PARTIAL or FULL
    kv_index: np.ndarray       # (nq, steps): key block of each step (padding repeats the last)
    kind: np.ndarray           # (nq, steps): PARTIAL, FULL, or EMPTY for a padding step
    mask_index: np.ndarray     # (nq, steps): row of `partial_masks` for a partial step
    partial_masks: np.ndarray  # (n_unique, block_q, block_k) int32: the distinct partial blocks

    @property
    def steps(self) -> int:
        return self.kv_index.shape[1]


def build_schedule(mask: np.ndarray, block_q: int, block_k: int) -> Schedule:
    seq_q, seq_k = mask.shape
    if seq_q % block_q or seq_k % block_k:
        raise ValueError(f"blocks ({block_q}, {block_k}) must divide the mask {mask.shape}")
    if not mask.any(axis=1).all():
        raise ValueError("every query row needs at least one visible key")
    nq, nk = seq_q // block_q, seq_k // block_k
    blocks = mask.reshape(nq, block_q, nk, block_k).transpose(0, 2, 1, 3)
    labels = np.where(blocks.all(axis=(2, 3)), FULL, np.where(blocks.any(axis=(2, 3)), PARTIAL, EMPTY))
    steps = int((labels != EMPTY).sum(axis=1).max())
    kv_index, kind, mask_index = (np.zeros((nq, steps), np.int32) for _ in range(3))
    unique: dict[bytes, int] = {}
    partials: list[np.ndarray] = []
    for r in range(nq):
        visit = np.flatnonzero(labels[r])
        kv_index[r] = np.concatenate([visit, np.full(steps - len(visit), visit[-1])])
        kind[r, : len(visit)] = labels[r, visit]
        for j, c in enumerate(visit):
            if labels[r, c] == PARTIAL:
                key = blocks[r, c].tobytes()
                if key not in unique:
                    unique[key] = len(partials)
                    partials.append(blocks[r, c].astype(np.int32))
                mask_index[r, j] = unique[key]
        mask_index[r, len(visit):] = mask_index[r, max(len(visit) - 1, 0)]
    stack = np.stack(partials) if partials else np.ones((1, block_q, block_k), np.int32)
    return Schedule(labels, kv_index, kind, mask_index, stack)


# %% The kernel: it reads its own schedule from scalar memory
def sparse_kernel(kv_index_ref, kind_ref, mask_index_ref, q_ref, k_ref, v_ref, mask_ref, o_ref,
                  m_ref, l_ref, acc_ref, *, scale: float):
    r, j = pl.program_id(1), pl.program_id(2)
    kind = kind_ref[r, j]

    @pl.when(j == 0)
    def _init():
        m_ref[...] = jnp.full(m_ref.shape, -jnp.inf, jnp.float32)
        l_ref[...] = jnp.zeros(l_ref.shape, jnp.float32)
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    def update(masked: bool):
        s = dot(q_ref[...], k_ref[...], ((1,), (1,))) * scale
        if masked:
            s = jnp.where(mask_ref[...] != 0, s, MASK_VALUE)
        m_prev, l_prev = m_ref[...], l_ref[...]
        m_new = jnp.maximum(m_prev, jnp.max(s, axis=1, keepdims=True))
        alpha = jnp.exp(m_prev - m_new)
        p = jnp.exp(s - m_new)
        l_ref[...] = alpha * l_prev + jnp.sum(p, axis=1, keepdims=True)
        acc_ref[...] = alpha * acc_ref[...] + dot(p.astype(v_ref.dtype), v_ref[...])
        m_ref[...] = m_new

    pl.when(kind == FULL)(lambda: update(masked=False))
    pl.when(kind == PARTIAL)(lambda: update(masked=True))

    @pl.when(j == pl.num_programs(2) - 1)
    def _finish():
        o_ref[...] = (acc_ref[...] / l_ref[...]).astype(o_ref.dtype)


def block_sparse_attention(q, k, v, schedule: Schedule, *, block_q: int, block_k: int,
                           sm_scale: float | None = None) -> jax.Array:
    """Attention of q, k, v (heads, seq, head_dim) under the mask the schedule was built from."""
    heads, seq_q, d = q.shape
    scale = 1.0 / math.sqrt(d) if sm_scale is None else sm_scale
    nq = seq_q // block_q
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=3, grid=(heads, nq, schedule.steps),
        in_specs=[
            pl.BlockSpec((None, block_q, d), lambda h, r, j, kv, kind, mi: (h, r, 0)),
            pl.BlockSpec((None, block_k, d), lambda h, r, j, kv, kind, mi: (h, kv[r, j], 0)),
            pl.BlockSpec((None, block_k, d), lambda h, r, j, kv, kind, mi: (h, kv[r, j], 0)),
            pl.BlockSpec((None, block_q, block_k), lambda h, r, j, kv, kind, mi: (mi[r, j], 0, 0)),
        ],
        out_specs=pl.BlockSpec((None, block_q, d), lambda h, r, j, kv, kind, mi: (h, r, 0)),
        scratch_shapes=[pltpu.VMEM((block_q, 1), jnp.float32), pltpu.VMEM((block_q, 1), jnp.float32),
                        pltpu.VMEM((block_q, d), jnp.float32)])
    return pl.pallas_call(
        functools.partial(sparse_kernel, scale=scale), grid_spec=grid_spec,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        interpret=False if plat.on_tpu() else pltpu.InterpretParams(),
    )(jnp.asarray(schedule.kv_index), jnp.asarray(schedule.kind), jnp.asarray(schedule.mask_index),
      q, k, v, jnp.asarray(schedule.partial_masks))


# %% The references: splash attention and its block labels
def splash_reference(q, k, v, mask: np.ndarray, *, sm_scale: float) -> jax.Array:
    """jax's splash attention on the same mask, interpreted (it takes q pre-scaled)."""
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as splash
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as mask_lib

    heads = q.shape[0]
    multi = mask_lib.MultiHeadMask([mask_lib.NumpyMask(mask)] * heads)
    kernel = splash.make_splash_mha(multi, head_shards=1, q_seq_shards=1, interpret=not plat.on_tpu())
    return jax.jit(kernel)(q * sm_scale, k, v)


def splash_labels(mask: np.ndarray, block_q: int, block_k: int) -> np.ndarray:
    """Splash's own empty/partial/full labels for the mask (its `MaskInfo.block_mask`)."""
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as mask_lib
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask_info as info

    multi = mask_lib.MultiHeadMask([mask_lib.NumpyMask(mask)])
    mask_info, _ = info.process_mask(multi, (block_q, block_k), shrink_grid=False)
    return np.asarray(mask_info.block_mask)[0]


# %% Checked against the references
@dataclass(frozen=True)
class Check:
    vs_dense: float
    vs_splash: float
    labels_match_splash: bool


def check(heads: int = 2, seq: int = 256, head_dim: int = 64, block_q: int = 32,
          block_k: int = 32) -> tuple[Schedule, Check]:
    mask = window_with_sinks(seq)
    schedule = build_schedule(mask, block_q, block_k)
    q, k, v = plat.randn(13, *[(heads, seq, head_dim)] * 3)
    scale = 1.0 / math.sqrt(head_dim)
    fn = jax.jit(functools.partial(block_sparse_attention, schedule=schedule, block_q=block_q, block_k=block_k))
    out = fn(q, k, v)
    dense = attention_reference(q[None], k[None], v[None], mask=jnp.asarray(mask))[0]
    splash = splash_reference(q, k, v, mask, sm_scale=scale)
    same = bool((splash_labels(mask, block_q, block_k) == schedule.labels).all())
    return schedule, Check(plat.max_abs_error(out, dense), plat.max_abs_error(out, splash), same)


# %% What the site shows: the kernel lowered, the labels drawn
def lowerings() -> list[plat.Lowering]:
    """The sparse kernel on a window-with-sinks mask, lowered natively (reader/ir)."""
    seq, block = 256, 32
    schedule = build_schedule(window_with_sinks(seq), block, block)
    q, k, v = plat.randn(13, *[(2, seq, 64)] * 3)
    return [plat.Lowering("sparse_kernel", sparse_kernel, functools.partial(
        block_sparse_attention, schedule=schedule, block_q=block, block_k=block), (q, k, v),
        ("jaxpr", "mosaic_tpu"))]


def artifacts(out_dir: Path) -> list[Path]:
    """The block labels of the lab's mask as an SVG, for the lab page (no kernel runs)."""
    labels = build_schedule(window_with_sinks(256), 32, 32).labels.tolist()
    svg = block_grid(labels, ("empty: never scheduled", "partial: mask applied", "full: no mask work"),
                     ("#ffffff", "#f2b134", "#2f6db5"), "Causal window 80 + 16 sinks, 32 x 32 blocks")
    return [plat.write(out_dir, "block_sparse.labels.svg", svg)]


# %% On a TPU: checked natively, timed against dense masked attention
BENCH = (8, 4096, 128)
"""`(heads, seq, head_dim)` of the timed run, bf16, blocks 128: the window covers 2-3 key blocks a row."""


def dense_masked(q, k, v, mask):
    """XLA's attention over the whole (seq, seq) score matrix with the mask applied."""
    t = functools.partial(jnp.swapaxes, axis1=0, axis2=1)
    return t(jax.nn.dot_product_attention(t(q)[None], t(k)[None], t(v)[None], mask=mask[None, None])[0])


def chip(runs: int = 20) -> Any:
    """Native checks (f32, bf16) against the dense masked reference, and the kernel timed against
    dense masked attention at `BENCH`."""
    from kernels import _record as rec

    checks = []
    mask = window_with_sinks(512)
    for dtype, block in ((jnp.float32, 128), (jnp.bfloat16, 128), (jnp.float32, 32)):
        schedule = build_schedule(mask, block, block)
        q, k, v = plat.randn(13, *[(2, 512, 128)] * 3, dtype=dtype)
        out = jax.jit(functools.partial(block_sparse_attention, schedule=schedule, block_q=block,
                                        block_k=block))(q, k, v)
        dense = attention_reference(*(x.astype(jnp.float32)[None] for x in (q, k, v)), mask=jnp.asarray(mask))[0]
        checks.append(rec.check(f"sparse_kernel, seq 512, blocks {block}", out, dense, dtype))
    heads, seq, d = BENCH
    mask = window_with_sinks(seq)
    schedule = build_schedule(mask, 128, 128)
    q, k, v = plat.randn(14, *[BENCH] * 3, dtype=jnp.bfloat16)
    visible = float(mask.sum())
    mine = rec.timed(f"sparse_kernel, blocks 128, {schedule.steps} key steps a row", jax.jit(functools.partial(
        block_sparse_attention, schedule=schedule, block_q=128, block_k=128)), q, k, v, runs=runs,
        flops=4.0 * heads * visible * d)
    peer = rec.timed("XLA dot_product_attention with the mask", jax.jit(dense_masked), q, k, v,
                      jnp.asarray(mask), runs=runs, flops=4.0 * heads * seq * seq * d, peer=True)
    notes = (f"{int((schedule.labels != EMPTY).sum())} of {schedule.labels.size} blocks scheduled at seq {seq}",)
    return rec.Measured(tuple(checks), (mine, peer), (rec.ratio("dense masked time over the sparse kernel's",
                                                               mine, peer),), (), notes)


# %% The lab's run
def picture(labels: np.ndarray) -> str:
    """The block labels as text: '.' empty, 'p' partial, '#' full."""
    return "\n".join("    " + " ".join(".p#"[v] for v in row) for row in labels)


def main(argv: list[str] | None = None) -> int:
    p = plat.parser("block_sparse", __doc__)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--block", type=int, default=32, help="block_q = block_k")
    args = p.parse_args(argv)
    schedule, c = check(seq=args.seq, block_q=args.block, block_k=args.block)
    nq, nk = schedule.labels.shape
    counts = {name: int((schedule.labels == v).sum()) for name, v in (("empty", EMPTY), ("partial", PARTIAL), ("full", FULL))}
    print(f"block_sparse: 2 heads, seq {args.seq}, head_dim 64, blocks {args.block}; causal window 80 + 16 "
          f"sink tokens; {plat.tpu_where()}")
    print(f"block labels ({nq} x {nk}; '.' empty, 'p' partial, '#' full):\n{picture(schedule.labels)}")
    print(f"{counts['empty']} empty, {counts['partial']} partial ({len(schedule.partial_masks)} distinct mask "
          f"blocks kept), {counts['full']} full; the grid runs {nq} x {schedule.steps} steps per head "
          f"instead of {nq} x {nk}: {counts['empty']} empty blocks never scheduled, "
          f"{int((schedule.kind == EMPTY).sum())} padding steps that compute nothing")
    print(f"labels equal splash's process_mask block_mask: {c.labels_match_splash}")
    print(f"max abs error vs dense masked reference {c.vs_dense:.2e}, vs splash attention (interpret) "
          f"{c.vs_splash:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
