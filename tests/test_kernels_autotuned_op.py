"""EXTRA·C: the flash kernel as a tokamax Op: ladder, dispatch key, autotuner and cache."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from kernels import _platform as plat
from kernels import autotuned_op as lab
from kernels.flash_attention import attention_reference


@pytest.fixture(scope="module", autouse=True)
def flag_defaults():
    lab.use_flag_defaults()


@pytest.fixture(scope="module")
def tuning():
    return lab.tune(lab.FlashAttentionOp(), seq=128, head_dim=32, causal=True)


def test_ladder_holds_the_block_pairs_that_divide():
    op = lab.FlashAttentionOp()
    q = plat.randn(0, (1, 1, 64, 32))[0]
    configs = op.bind(q, q, q, causal=False).autotuning_configs
    assert {(c.block_q, c.block_k) for c in configs} == {(32, 32), (32, 64), (64, 32), (64, 64)}


def test_dispatch_key_ignores_batch_and_heads():
    op = lab.FlashAttentionOp()
    a, b = plat.randn(0, (1, 2, 64, 32), (3, 5, 64, 32))
    key_a = op.bind(a, a, a, causal=True).autotuning_cache_key
    assert key_a == op.bind(b, b, b, causal=True).autotuning_cache_key
    assert key_a == lab.DispatchKey(64, 64, 32, "float32", True)
    assert dict(key_a) == {"seq_q": 64, "seq_k": 64, "head_dim": 32, "dtype": "float32", "causal": True}
    assert key_a != op.bind(a, a, a, causal=False).autotuning_cache_key


def test_autotuner_times_every_config_and_the_cache_serves_the_fastest(tuning):
    assert len(tuning.timings_ms) == 9 and all(ms > 0 for ms in tuning.timings_ms.values())
    assert tuning.fastest == min(tuning.timings_ms, key=tuning.timings_ms.__getitem__)
    assert tuning.cached_config == tuning.fastest
    assert tuning.error <= 1e-5


def test_a_new_batch_size_hits_the_cache_and_a_new_length_misses(tuning):
    op = lab.FlashAttentionOp()
    big_batch = plat.randn(1, (4, 2, 128, 32))[0]
    assert op.bind(big_batch, big_batch, big_batch, causal=True).cached_autotuning_data is not None
    other = plat.randn(1, (1, 2, 96, 32))[0]
    bound = op.bind(other, other, other, causal=True)
    assert bound.cached_autotuning_data is None
    assert bound.default_config == lab.Config(block_q=32, block_k=32)   # the heuristics' answer


def test_gradients_flow_through_the_op():
    op = lab.FlashAttentionOp(config=lab.Config(block_q=32, block_k=32))
    q, k, v = plat.randn(5, *[(1, 1, 64, 32)] * 3)
    mine = jax.jit(jax.grad(lambda q: jnp.sum(op(q, k, v, causal=True))))(q)
    ref = jax.grad(lambda q: jnp.sum(attention_reference(q, k, v, causal=True)))(q)
    assert plat.max_abs_error(mine, ref) <= 1e-5
