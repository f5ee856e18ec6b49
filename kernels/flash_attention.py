"""LAB·3.2 · Flash attention, blind: the forward pass written from the derivation, then diffed.

Attention reads q, k, v once if the N x N score matrix is never written: each program of the
grid `(batch, heads, Sq / block_q)` owns one block of queries and walks the key/value blocks
with an online softmax, keeping the running row max m, the running denominator l and an
unnormalised accumulator; when a new block raises the max, the old terms are rescaled by
exp(m_old - m_new). Causal attention skips whole blocks with the diagonal test: key block c
can matter to query block r only if the block's last query row reaches the block's first key
column, `(r + 1) * block_q - 1 >= c * block_k`; blocks entirely below the diagonal need no mask
and only the blocks the diagonal crosses are masked element by element. The kernel also
returns the log-sum-exp m + log l per row (the backward pass and ring attention reuse it).
Checked against a plain jnp reference and against jax's own TPU kernel
(`jax.experimental.pallas.ops.tpu.flash_attention`) run under the TPU interpreter.

Exercises: jax/experimental/pallas/ops/tpu/flash_attention.py::flash_attention, jax/experimental/pallas/ops/tpu/flash_attention.py::below_or_on_diag, jax/experimental/pallas/ops/tpu/flash_attention.py::_flash_attention_kernel_single_batch, jax/experimental/pallas/ops/tpu/flash_attention.py::mha_reference, jax/_src/pallas/primitives.py::program_id, jax/_src/pallas/mosaic/interpret/interpret_pallas_call.py::force_tpu_interpret_mode
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl

from kernels import _platform as plat
from kernels._svg import block_grid

MASK_VALUE = -0.7 * float(np.finfo(np.float32).max)  # finite, as the TPU kernel uses: no inf - inf
HIGHEST = jax.lax.Precision.HIGHEST                   # f32 dots stay f32 (IEEE, not TF32, on a GPU)


def below_or_on_diag(r, block_r: int, c, block_c: int):
    """Query block r sees some key of key block c: its last row reaches the block's first column."""
    return (r + 1) * block_r - 1 >= c * block_c


def fully_below_diag(r, block_r: int, c, block_c: int):
    """Every key of block c is visible to every query of block r: no mask needed."""
    return (c + 1) * block_c - 1 <= r * block_r


def kv_block_ranges(r, block_q: int, block_k: int, num_kv: int, causal: bool):
    """`(unmasked_end, masked_end)`: blocks [0, a) run without a mask, [a, b) with one."""
    if not causal:
        return num_kv, num_kv
    unmasked = jnp.minimum((r * block_q + 1) // block_k, num_kv)     # fully_below_diag, solved for c
    visible = jnp.minimum(((r + 1) * block_q + block_k - 1) // block_k, num_kv)  # below_or_on_diag
    return unmasked, visible


def attend_block(q, k, v, carry, *, rows=None, cols=None):
    """One online-softmax update of (m, l, acc) by a key/value block; mask when rows/cols given."""
    m, denom, acc = carry
    s = jax.lax.dot_general(q, k, (((1,), (1,)), ((), ())), precision=HIGHEST,
                            preferred_element_type=jnp.float32)
    if rows is not None:
        s = jnp.where(cols[None, :] <= rows[:, None], s, MASK_VALUE)
    m_new = jnp.maximum(m, jnp.max(s, axis=1))
    alpha = jnp.exp(m - m_new)
    p = jnp.exp(s - m_new[:, None])
    denom_new = alpha * denom + jnp.sum(p, axis=1)
    acc_new = alpha[:, None] * acc + jnp.dot(p, v, precision=HIGHEST, preferred_element_type=jnp.float32)
    return m_new, denom_new, acc_new


def flash_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, *, sm_scale: float, causal: bool, block_k: int):
    block_q, head_dim = q_ref.shape
    r = pl.program_id(2)
    q = q_ref[...].astype(jnp.float32) * sm_scale
    rows = r * block_q + jax.lax.broadcasted_iota(jnp.int32, (block_q,), 0)

    def step(c, carry, masked: bool):
        k = k_ref[pl.ds(c * block_k, block_k), :].astype(jnp.float32)
        v = v_ref[pl.ds(c * block_k, block_k), :].astype(jnp.float32)
        if not masked:
            return attend_block(q, k, v, carry)
        cols = c * block_k + jax.lax.broadcasted_iota(jnp.int32, (block_k,), 0)
        return attend_block(q, k, v, carry, rows=rows, cols=cols)

    carry = (jnp.full((block_q,), -jnp.inf, jnp.float32), jnp.zeros((block_q,), jnp.float32),
             jnp.zeros((block_q, head_dim), jnp.float32))
    unmasked, visible = kv_block_ranges(r, block_q, block_k, k_ref.shape[0] // block_k, causal)
    carry = jax.lax.fori_loop(0, unmasked, functools.partial(step, masked=False), carry)
    m, denom, acc = jax.lax.fori_loop(unmasked, visible, functools.partial(step, masked=True), carry)
    o_ref[...] = (acc / denom[:, None]).astype(o_ref.dtype)
    lse_ref[...] = m + jnp.log(denom)


def _specs(block_q: int, seq_k: int, head_dim: int):
    q_spec = pl.BlockSpec((None, None, block_q, head_dim), lambda b, h, r: (b, h, r, 0))
    kv_spec = pl.BlockSpec((None, None, seq_k, head_dim), lambda b, h, r: (b, h, 0, 0))
    lse_spec = pl.BlockSpec((None, None, block_q), lambda b, h, r: (b, h, r))
    return q_spec, kv_spec, lse_spec


@functools.partial(jax.jit, static_argnames=("causal", "sm_scale", "block_q", "block_k"))
def flash_forward(q, k, v, *, causal: bool = False, sm_scale: float | None = None,
                  block_q: int = 64, block_k: int = 64) -> tuple[jax.Array, jax.Array]:
    """`(o, lse)` for q, k, v of shape (batch, heads, seq, head_dim)."""
    batch, heads, seq_q, head_dim = q.shape
    seq_k = k.shape[2]
    if seq_q % block_q or seq_k % block_k:
        raise ValueError(f"blocks ({block_q}, {block_k}) must divide the sequences ({seq_q}, {seq_k})")
    scale = 1.0 / math.sqrt(head_dim) if sm_scale is None else sm_scale
    q_spec, kv_spec, lse_spec = _specs(block_q, seq_k, head_dim)
    return pl.pallas_call(
        functools.partial(flash_kernel, sm_scale=scale, causal=causal, block_k=block_k),
        out_shape=(jax.ShapeDtypeStruct(q.shape, q.dtype),
                   jax.ShapeDtypeStruct((batch, heads, seq_q), jnp.float32)),
        grid=(batch, heads, seq_q // block_q),
        in_specs=[q_spec, kv_spec, kv_spec], out_specs=(q_spec, lse_spec),
        interpret=plat.interpret(), compiler_params=plat.compiler_params())(q, k, v)


def flash_attention(q, k, v, *, causal: bool = False, sm_scale: float | None = None,
                    block_q: int = 64, block_k: int = 64) -> jax.Array:
    return flash_forward(q, k, v, causal=causal, sm_scale=sm_scale, block_q=block_q, block_k=block_k)[0]


def attention_reference(q, k, v, *, causal: bool = False, sm_scale: float | None = None,
                        mask: jax.Array | None = None) -> jax.Array:
    """Plain attention: the N x N scores, masked, softmaxed, applied to v (float32, HIGHEST)."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if sm_scale is None else sm_scale
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k, precision=HIGHEST) * scale
    if causal:
        mask = jnp.tril(jnp.ones(s.shape[-2:], bool)) if mask is None else mask & jnp.tril(jnp.ones(s.shape[-2:], bool))
    if mask is not None:
        s = jnp.where(mask, s, -jnp.inf)
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v, precision=HIGHEST)


def tpu_reference(q, k, v, *, causal: bool, sm_scale: float, block: int = 128) -> jax.Array:
    """jax's own TPU flash attention kernel, run under the TPU interpreter (its blocks: 128)."""
    from jax.experimental.pallas import tpu as pltpu
    from jax.experimental.pallas.ops.tpu import flash_attention as tpu_flash

    sizes = tpu_flash.BlockSizes(block_q=block, block_k_major=block, block_k=block, block_b=1)
    with pltpu.force_tpu_interpret_mode(pltpu.InterpretParams()):
        fn = jax.jit(functools.partial(tpu_flash.flash_attention, causal=causal, sm_scale=sm_scale,
                                       block_sizes=sizes))
        return jax.block_until_ready(fn(q, k, v))


@dataclass(frozen=True)
class BlockCount:
    total: int
    unmasked: int
    masked: int

    @property
    def skipped(self) -> int:
        return self.total - self.unmasked - self.masked


def block_count(seq_q: int, seq_k: int, block_q: int, block_k: int, causal: bool) -> BlockCount:
    """Key/value blocks the kernel runs per head, with and without a mask, and skips."""
    nq, nk = seq_q // block_q, seq_k // block_k
    spans = [kv_block_ranges(r, block_q, block_k, nk, causal) for r in range(nq)]
    unmasked = sum(int(a) for a, _ in spans)
    return BlockCount(nq * nk, unmasked, sum(int(b) for _, b in spans) - unmasked)


def diagonal_test_agrees(seq: int, block_q: int, block_k: int) -> bool:
    """Does the pinned `below_or_on_diag` (strict `>`) skip the same blocks as the `>=` here?"""
    from jax.experimental.pallas.ops.tpu import flash_attention as tpu_flash

    return all(bool(tpu_flash.below_or_on_diag(r, block_q, c, block_k)) == below_or_on_diag(r, block_q, c, block_k)
               for r in range(seq // block_q) for c in range(seq // block_k))


def schedule_labels(seq: int, block_q: int, block_k: int) -> list[list[int]]:
    """Per (query block, key block): 0 skipped, 1 masked (on the diagonal), 2 unmasked; causal."""
    labels = []
    for r in range(seq // block_q):
        unmasked, visible = (int(x) for x in kv_block_ranges(r, block_q, block_k, seq // block_k, True))
        labels.append([2 if c < unmasked else 1 if c < visible else 0 for c in range(seq // block_k)])
    return labels


def artifacts(out_dir: Path) -> list[Path]:
    """The causal block schedule (skipped, masked, unmasked) as an SVG (no kernel runs)."""
    svg = block_grid(schedule_labels(512, 64, 32),
                     ("skipped: the diagonal test", "masked: crosses the diagonal", "unmasked: below it"),
                     ("#ffffff", "#f2b134", "#2f6db5"), "Causal flash attention, seq 512, block_q 64, block_k 32")
    return [plat.write(out_dir, "flash_attention.causal_schedule.svg", svg)]


@dataclass(frozen=True)
class Check:
    causal: bool
    vs_reference: float
    vs_tpu_kernel: float


def check(batch: int = 1, heads: int = 2, seq: int = 256, head_dim: int = 64, block: int = 64,
          with_tpu_kernel: bool = True) -> list[Check]:
    q, k, v = plat.randn(7, *[(batch, heads, seq, head_dim)] * 3)
    scale = 1.0 / math.sqrt(head_dim)
    out = []
    for causal in (False, True):
        mine = flash_attention(q, k, v, causal=causal, block_q=block, block_k=block)
        ref = attention_reference(q, k, v, causal=causal)
        tpu = tpu_reference(q, k, v, causal=causal, sm_scale=scale) if with_tpu_kernel else ref
        out.append(Check(causal, plat.max_abs_error(mine, ref), plat.max_abs_error(mine, tpu)))
    return out


def main(argv: list[str] | None = None) -> int:
    p = plat.parser("flash_attention", __doc__)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--block", type=int, default=64, help="block_q = block_k")
    args = p.parse_args(argv)
    print(f"flash_attention: q, k, v (1, 2, {args.seq}, {args.head_dim}) float32, blocks {args.block}; "
          f"{plat.where()}")
    for c in check(seq=args.seq, head_dim=args.head_dim, block=args.block):
        print(f"  causal={c.causal!s:5}: max abs error vs jnp reference {c.vs_reference:.2e}, "
              f"vs jax's TPU kernel (TPU interpreter) {c.vs_tpu_kernel:.2e}")
    n = block_count(args.seq, args.seq, args.block, args.block, causal=True)
    print(f"\ncausal block schedule per head: {n.total} key blocks x query blocks; {n.unmasked} run "
          f"unmasked, {n.masked} on the diagonal run masked, {n.skipped} skipped by the diagonal test")
    agree = diagonal_test_agrees(args.seq, args.block, args.block)
    print(f"the pinned below_or_on_diag uses `>` where this kernel uses `>=`; over these blocks they "
          f"{'agree' if agree else 'DISAGREE'} (equality needs (r+1)*bq - 1 == c*bk: odd == even "
          f"for even block sizes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
