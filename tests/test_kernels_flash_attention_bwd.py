"""LAB·3.3: the backward kernels through jax.custom_vjp against jax.grad of the reference."""

from __future__ import annotations

import jax
import pytest

from kernels import _platform as plat
from kernels import flash_attention_bwd as lab


def test_gradients_match_jax_grad_of_the_reference():
    checks = lab.check(seq=128, head_dim=32, block_q=32, block_k=64)
    assert [c.causal for c in checks] == [False, True]
    for c in checks:
        assert c.worst <= 2e-5, c


def test_query_block_ranges_mirror_the_forward_diagonal_test():
    # Key block c is seen by query blocks r with below_or_on_diag(r, bq, c, bk); the first
    # ones need a mask until fully_below_diag holds.
    from kernels.flash_attention import below_or_on_diag, fully_below_diag
    for bq, bk in [(32, 64), (64, 32), (64, 64)]:
        nq = 256 // bq
        for c in range(256 // bk):
            start, masked_end = (int(x) for x in lab.q_block_ranges(c, bq, bk, nq, True))
            assert start == min(r for r in range(nq) if below_or_on_diag(r, bq, c, bk))
            assert all(not fully_below_diag(r, bq, c, bk) for r in range(start, masked_end))
            assert all(fully_below_diag(r, bq, c, bk) for r in range(masked_end, nq))


def test_backward_is_the_pallas_kernels():
    q = plat.randn(0, (1, 1, 64, 32))[0]
    jaxpr = jax.make_jaxpr(jax.grad(lambda q: lab.flash_attention(q, q, q, block_q=32, block_k=32).sum()))(q)
    assert len(list(plat.pallas_calls(jaxpr))) == 3   # forward, dkv, dq


def test_native_gpu_build_of_the_gradient_lowers_to_three_triton_kernels():
    q, k, v = plat.randn(0, *[(1, 2, 128, 32)] * 3)
    grad = jax.grad(lambda q, k, v: lab.flash_attention(q, k, v, causal=True).sum(), argnums=(0, 1, 2))
    assert plat.lower_for_gpu(grad, q, k, v).count("__gpu$xla.gpu.triton") == 3


@pytest.mark.skipif(not plat.on_gpu(), reason=plat.NO_GPU_REASON)
def test_native_gpu_gradients():
    assert all(c.worst <= 2e-5 for c in lab.check())
