"""LAB·3.3 · The backward pass: two kernels that recompute what the forward pass threw away.

The forward kernel keeps only o and the per-row log-sum-exp; the N x N probabilities are gone.
The backward recomputes them block by block, p = exp(q k^T * scale - lse), which costs one
more matmul per block and saves the N x N memory. With delta = rowsum(do * o) (the TPU kernel
computes it in jnp too), the gradients are dv = p^T do, dp = do v^T, ds = p * (dp - delta),
dq = scale * ds k and dk = scale * ds^T q. One kernel owns a key/value block and walks the
query blocks to accumulate dk and dv; the other owns a query block and walks the key/value
blocks to accumulate dq, so neither needs atomics. Causal attention uses the forward's
diagonal test from the other side: a key block is only visited by the query blocks that can
see it. Wired to the forward with `jax.custom_vjp`; gradients checked against `jax.grad` of the
plain jnp reference.

Exercises: jax/experimental/pallas/ops/tpu/flash_attention.py::_flash_attention_bwd, jax/experimental/pallas/ops/tpu/flash_attention.py::_flash_attention_dkv_kernel, jax/experimental/pallas/ops/tpu/flash_attention.py::_flash_attention_dq_kernel, jax/experimental/pallas/ops/tpu/flash_attention.py::mha_reference_bwd, jax/_src/pallas/pallas_call.py::_pallas_call_jvp_rule
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from kernels import _platform as plat
from kernels.flash_attention import (
    attention_reference,
    causal_mask,
    dot,
    flash_forward,
    kv_block_ranges,
)


# %% The backward kernels: dk and dv per key block, dq per query block
def q_block_ranges(c, block_q: int, block_k: int, num_q: int, causal: bool):
    """`(start, masked_end)` of the query blocks that see key block c: [start, masked_end) need a mask."""
    if not causal:
        return 0, 0
    start = (c * block_k) // block_q                               # first r with below_or_on_diag
    masked_end = jnp.minimum(((c + 1) * block_k - 1) // block_q + 1, num_q)  # up to fully_below_diag
    return start, masked_end


def _probs(q, k, lse, scale, mask_at=None):
    """p = exp(q k^T * scale - lse), lse a (rows, 1) column; masked causally at `mask_at`."""
    s = dot(q, k, ((1,), (1,))) * scale
    if mask_at is not None:
        s = causal_mask(s, *mask_at)
    return jnp.exp(s - lse)


def dkv_kernel(q_ref, k_ref, v_ref, do_ref, lse_ref, delta_ref, dk_ref, dv_ref, *,
               scale: float, causal: bool, block_q: int):
    block_k, _ = k_ref.shape
    c = pl.program_id(2)
    k, v = k_ref[...], v_ref[...]

    def step(r, carry, masked: bool):
        dk, dv = carry
        rs = pl.ds(r * block_q, block_q)
        q, do = q_ref[rs, :], do_ref[rs, :]
        p = _probs(q, k, lse_ref[rs, :], scale, (r * block_q, c * block_k) if masked else None)
        ds = p * (dot(do, v, ((1,), (1,))) - delta_ref[rs, :])
        # p^T do and ds^T q: the transposes made explicit (f32), as the pinned dkv kernel does.
        return dk + scale * dot(ds.T.astype(q.dtype), q), dv + dot(p.T.astype(do.dtype), do)

    num_q = q_ref.shape[0] // block_q
    start, masked_end = q_block_ranges(c, block_q, block_k, num_q, causal)
    carry = (jnp.zeros(k.shape, jnp.float32), jnp.zeros(v.shape, jnp.float32))
    carry = jax.lax.fori_loop(start, masked_end, functools.partial(step, masked=True), carry)
    dk, dv = jax.lax.fori_loop(masked_end, num_q, functools.partial(step, masked=False), carry)
    dk_ref[...] = dk.astype(dk_ref.dtype)
    dv_ref[...] = dv.astype(dv_ref.dtype)


def dq_kernel(q_ref, k_ref, v_ref, do_ref, lse_ref, delta_ref, dq_ref, *,
              scale: float, causal: bool, block_k: int):
    block_q, _ = q_ref.shape
    r = pl.program_id(2)
    q, do = q_ref[...], do_ref[...]
    lse, delta = lse_ref[...], delta_ref[...]

    def step(c, dq, masked: bool):
        cs = pl.ds(c * block_k, block_k)
        k, v = k_ref[cs, :], v_ref[cs, :]
        p = _probs(q, k, lse, scale, (r * block_q, c * block_k) if masked else None)
        ds = p * (dot(do, v, ((1,), (1,))) - delta)
        return dq + scale * dot(ds.astype(k.dtype), k)

    unmasked, visible = kv_block_ranges(r, block_q, block_k, k_ref.shape[0] // block_k, causal)
    dq = jax.lax.fori_loop(0, unmasked, functools.partial(step, masked=False), jnp.zeros(q.shape, jnp.float32))
    dq = jax.lax.fori_loop(unmasked, visible, functools.partial(step, masked=True), dq)
    dq_ref[...] = dq.astype(dq_ref.dtype)


# %% The calls, and the custom VJP that joins them to the forward pass
def _whole(seq: int, d: int):
    return pl.BlockSpec((None, None, seq, d), lambda b, h, i: (b, h, 0, 0))


def _rows(block: int, d: int = 1):
    """`block` rows of (batch, heads, seq, d); d = 1 for a row statistic's column (lse, delta)."""
    return pl.BlockSpec((None, None, block, d), lambda b, h, i: (b, h, i, 0))


def flash_backward(q, k, v, o, lse, do, *, causal: bool, scale: float, block_q: int, block_k: int):
    """`(dq, dk, dv)` from the forward's residuals (q, k, v, o, lse) and the output cotangent."""
    batch, heads, seq_q, d = q.shape
    seq_k = k.shape[2]
    delta = jnp.sum(o.astype(jnp.float32) * do.astype(jnp.float32), axis=-1, keepdims=True)
    lse = lse[..., None]
    common = dict(interpret=plat.interpret(), compiler_params=plat.compiler_params())
    dk, dv = pl.pallas_call(
        functools.partial(dkv_kernel, scale=scale, causal=causal, block_q=block_q),
        out_shape=(jax.ShapeDtypeStruct(k.shape, k.dtype), jax.ShapeDtypeStruct(v.shape, v.dtype)),
        grid=(batch, heads, seq_k // block_k),
        in_specs=[_whole(seq_q, d), _rows(block_k, d), _rows(block_k, d), _whole(seq_q, d),
                  _whole(seq_q, 1), _whole(seq_q, 1)],
        out_specs=(_rows(block_k, d), _rows(block_k, d)), **common)(q, k, v, do, lse, delta)
    dq = pl.pallas_call(
        functools.partial(dq_kernel, scale=scale, causal=causal, block_k=block_k),
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        grid=(batch, heads, seq_q // block_q),
        in_specs=[_rows(block_q, d), _whole(seq_k, d), _whole(seq_k, d), _rows(block_q, d),
                  _rows(block_q), _rows(block_q)],
        out_specs=_rows(block_q, d), **common)(q, k, v, do, lse, delta)
    return dq, dk, dv


@functools.partial(jax.custom_vjp, nondiff_argnums=(3, 4, 5, 6))
def _flash(q, k, v, causal: bool, scale: float, block_q: int, block_k: int):
    return flash_forward(q, k, v, causal=causal, sm_scale=scale, block_q=block_q, block_k=block_k)[0]


def _flash_fwd(q, k, v, causal, scale, block_q, block_k):
    o, lse = flash_forward(q, k, v, causal=causal, sm_scale=scale, block_q=block_q, block_k=block_k)
    return o, (q, k, v, o, lse)


def _flash_bwd(causal, scale, block_q, block_k, residuals, do):
    q, k, v, o, lse = residuals
    return flash_backward(q, k, v, o, lse, do, causal=causal, scale=scale, block_q=block_q, block_k=block_k)


_flash.defvjp(_flash_fwd, _flash_bwd)


def flash_attention(q, k, v, *, causal: bool = False, sm_scale: float | None = None,
                    block_q: int = 64, block_k: int = 64) -> jax.Array:
    """Flash attention with Pallas kernels for both the forward and the backward pass."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if sm_scale is None else sm_scale
    return _flash(q, k, v, causal, scale, block_q, block_k)


# %% Checked against jax.grad of the reference
@dataclass(frozen=True)
class GradCheck:
    causal: bool
    output: float
    dq: float
    dk: float
    dv: float

    @property
    def worst(self) -> float:
        return max(self.output, self.dq, self.dk, self.dv)


def check(batch: int = 1, heads: int = 2, seq: int = 128, head_dim: int = 32,
          block_q: int = 32, block_k: int = 64) -> list[GradCheck]:
    """Forward and gradients against jax.grad of the reference, causal and not."""
    q, k, v, ct = plat.randn(11, *[(batch, heads, seq, head_dim)] * 4)
    out = []
    for causal in (False, True):
        def loss(fn, q, k, v, causal=causal):
            return jnp.sum(fn(q, k, v, causal=causal) * ct)

        mine = functools.partial(flash_attention, block_q=block_q, block_k=block_k)
        (o1, g1) = jax.jit(jax.value_and_grad(functools.partial(loss, mine), argnums=(0, 1, 2)))(q, k, v)
        (o2, g2) = jax.value_and_grad(functools.partial(loss, attention_reference), argnums=(0, 1, 2))(q, k, v)
        o_err = plat.max_abs_error(mine(q, k, v, causal=causal), attention_reference(q, k, v, causal=causal))
        out.append(GradCheck(causal, o_err, *(plat.max_abs_error(a, b) for a, b in zip(g1, g2, strict=True))))
    return out


# %% What the site shows: the kernels lowered
def lowerings() -> list[plat.Lowering]:
    """The backward's two kernels (dK/dV, then dQ) lowered for the site (reader/ir)."""
    q, k, v, o, do = plat.randn(12, *[(1, 2, 128, 32)] * 5)
    lse = jnp.zeros((1, 2, 128), jnp.float32)
    scale = 1.0 / math.sqrt(q.shape[-1])
    return [plat.Lowering("backward", dkv_kernel, lambda *a: flash_backward(
        *a, causal=True, scale=scale, block_q=32, block_k=64), (q, k, v, o, lse, do))]


# %% On a TPU: gradients checked natively, the backward timed against its peers
def chip(runs: int = 20) -> Any:
    """Native gradient checks (f32, bf16; causal and not), then forward + backward at LAB·3.2's
    `BENCH` (bf16) timed against XLA's attention and the pinned TPU kernel, each differentiated."""
    from kernels import _record as rec
    from kernels.flash_attention import (
        BENCH,
        UPSTREAM_BLOCKS,
        attention_flops,
        upstream_forward,
        xla_attention,
    )

    checks = []
    for dtype in (jnp.float32, jnp.bfloat16):
        q, k, v, ct = plat.randn(11, *[(1, 2, 512, 128)] * 4, dtype=dtype)
        wide = [x.astype(jnp.float32) for x in (q, k, v)]
        for causal in (False, True):
            def loss(fn, q, k, v, causal=causal, ct=ct):
                return jnp.sum(fn(q, k, v, causal=causal).astype(jnp.float32) * ct.astype(jnp.float32))
            lab_fn = functools.partial(flash_attention, block_q=128, block_k=128)
            got = jax.jit(jax.grad(functools.partial(loss, lab_fn), argnums=(0, 1, 2)))(q, k, v)
            want = jax.grad(functools.partial(loss, attention_reference), argnums=(0, 1, 2))(*wide)
            checks += [rec.check(f"d{name}, causal={causal}", g, w, dtype) for name, g, w in zip("qkv", got, want, strict=True)]
    timings, ratios = [], []
    q, k, v = plat.randn(8, *[BENCH] * 3, dtype=jnp.bfloat16)

    def step(fn):
        return jax.jit(jax.grad(lambda q, k, v: jnp.sum(fn(q, k, v).astype(jnp.float32)), argnums=(0, 1, 2)))
    for causal in (False, True):
        tag, flops = ("causal" if causal else "full"), 3.5 * attention_flops(BENCH, causal)
        mine = min((rec.timed(f"forward + backward {tag}, blocks {bq}x{bk}", step(functools.partial(
            flash_attention, causal=causal, block_q=bq, block_k=bk)), q, k, v, runs=runs, flops=flops)
            for bq, bk in ((256, 256), (512, 512))), key=lambda t: t.median_ms)
        up = min((rec.timed(f"upstream forward + backward {tag}, blocks {b}", step(functools.partial(
            upstream_forward, causal=causal, block=b)), q, k, v, runs=runs, flops=flops, peer=True)
            for b in UPSTREAM_BLOCKS), key=lambda t: t.median_ms)
        xla = rec.timed(f"XLA forward + backward {tag}", step(functools.partial(xla_attention, causal=causal)),
                        q, k, v, runs=runs, flops=flops, peer=True)
        timings += [mine, up, xla]
        ratios += [rec.ratio(f"forward + backward {tag}: the upstream kernel's time over the lab's", mine, up),
                   rec.ratio(f"forward + backward {tag}: XLA's time over the lab's", mine, xla)]
    notes = ("the lab's backward walks whole sequences inside each program (dK/dV over every query "
             "block, dQ over every key block) and recomputes p in both kernels; the pinned kernel "
             "puts both walks on the grid, pipelining the blocks it reads",)
    return rec.Measured(tuple(checks), tuple(timings), tuple(ratios), notes=notes)


# %% The lab's run
def main(argv: list[str] | None = None) -> int:
    p = plat.parser("flash_attention_bwd", __doc__)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--head-dim", type=int, default=32)
    p.add_argument("--block-q", type=int, default=32)
    p.add_argument("--block-k", type=int, default=64)
    args = p.parse_args(argv)
    print(f"flash_attention_bwd: q, k, v (1, 2, {args.seq}, {args.head_dim}) float32, block_q "
          f"{args.block_q}, block_k {args.block_k}; {plat.where()}")
    print("max abs error against jax.grad of the jnp reference:")
    for c in check(seq=args.seq, head_dim=args.head_dim, block_q=args.block_q, block_k=args.block_k):
        print(f"  causal={c.causal!s:5}: o {c.output:.2e}  dq {c.dq:.2e}  dk {c.dk:.2e}  dv {c.dv:.2e}")
    print("\nrecomputed per key block in the backward: p = exp(q k^T * scale - lse), one extra matmul "
          "per block instead of an N x N residual")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
