"""sm90_source and tokamax_facts: the sm90 kernel's parameters parsed from source, and its smem model checked
against what Pallas Mosaic GPU really allocates."""

from __future__ import annotations

import dataclasses
import re

import pytest

from reader.annotations.markup import FACT_NAME
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.errors import InputError
from reader.extract import sm90_source as src
from reader.extract import tokamax_facts as tf
from reader.fetch import InstalledSource, fetch_pin
from tests.conftest import REPO_ROOT

SM90 = '''
_MIN_SWIZZLE = 32

def _estimate_shared_mem_usage_bytes(ba, block_q, block_kv, num_stages):
  return (max(1, 2) * 2) + num_stages * 3 + 100

def get_heuristics_config(ba):
  if _estimate_shared_mem_usage_bytes(ba, 64, 128, 2) < 200 * 1024:
    return Config(block_q=64, block_kv=128, num_stages=2)
  return Config(block_q=64, block_kv=64, num_stages=2)

def get_autotuning_configs(ba):
  block_qs = set([min(x, 8) for x in [64, 128] if x])
  block_kvs = set([min(x, 8) for x in [64]])
  for block_q in block_qs:
    for num_stages in [2, 3]:
      pass

def flash_attention_kernel(q, k, v):
  epi_tile_q = 64
  epi_tile_d = 1024 // common.num_bits(out_dtype)
  num_epi_slots = min(2, 4)
  def kernel():
    def compute_wg():
      plgpu.set_max_registers(232, action="increase")
      a = functools.partial(common.bar_arrive, barrier_id=9 - wg, num_threads=256)
      b = functools.partial(common.bar_sync, barrier_id=8 + wg, num_threads=256)
      pl.when(wg == 1)(b)
      plgpu.barrier_wait(q_barrier)
      def body():
        a()
        plgpu.barrier_wait(k_barrier.at[0])
        plgpu.barrier_arrive(k_consumed_barrier.at[0])
        b()
    def memory_wg():
      plgpu.set_max_registers(40, action="decrease")
  compute_wgs = 2
  kv_consumed_barrier = plgpu.Barrier(num_barriers=max_stages, num_arrivals=compute_wgs)
  if bias is not None:
    bias_barrier = plgpu.Barrier(num_barriers=max_stages)
  else:
    bias_barrier = None
  mask_barrier = None
  if mask is not None:
    mask_barrier = plgpu.Barrier(num_barriers=max_stages)
  scratch_shapes = dict(
      q_smem=1,
      q_barrier=plgpu.Barrier(num_barriers=compute_wgs),
      k_barrier=plgpu.Barrier(num_barriers=max_stages),
      k_consumed_barrier=kv_consumed_barrier,
      bias_barrier=bias_barrier,
      mask_barrier=mask_barrier,
  )
  out = plgpu.kernel(kernel, num_threads=3)(q)
'''
ARG_SPECS = '''
def _alphafold_specs():
  for head_dim in (16, 32):
    pass

def _flash_attention_v3_specs():
  for seq_len in (512,):
    for head_dim in (64, 128):
      pass
'''
CORE = '''
SMEM_ALIGNMENT = 1024

class CompilerParams:
  reduction_scratch_bytes: int = 128 * 4 * 4
'''


def test_parses_the_tiling_ladder_and_the_heuristic():
    p = src.sm90_params(SM90, ARG_SPECS, CORE)
    assert (p.block_qs, p.block_kvs, p.stages) == ((64, 128), (64,), (2, 3))
    assert len(p.candidates) == 4 and src.Tiling(128, 64, 3) in p.candidates
    assert p.heuristic == src.Tiling(64, 128, 2) and p.fallback == src.Tiling(64, 64, 2)
    assert (p.budget_bytes, p.estimate_overhead) == (200 * 1024, 100)
    assert p.head_dims == (64, 128)
    assert (p.smem_alignment, p.reduction_scratch_bytes) == (1024, 2048)


def test_classifies_barriers_and_reads_warpgroups():
    p = src.sm90_params(SM90, ARG_SPECS, CORE)
    # q_barrier counts once per compute warpgroup; k and k_consumed are always there;
    # bias and mask are assigned only under an `if`.
    assert (p.fixed_barriers, p.stage_barriers, p.optional_stage_barriers) == (2, 2, 2)
    assert p.named_barrier_ids == (8, 9)
    assert (p.barrier_waits, p.barrier_arrives, p.named_barrier_uses) == (2, 1, 3)
    assert (p.num_warpgroups, p.compute_wgs) == (3, 2)
    assert (p.compute_registers, p.memory_registers) == (232, 40)


def test_smem_model_by_hand():
    p = src.sm90_params(SM90, ARG_SPECS, CORE)
    # head_dim 64, bf16: q = 2*64*64*2, k = v = 2 stages*64*64*2, one epilogue slot 2*64*64*2.
    union = max(16384 + 16384, 16384)
    barriers = 2 + 2 * 2
    assert tf.smem_bytes(p, src.Tiling(64, 64, 2), 64) == union + 16384 + 2048 + 8 * barriers
    # head_dim 40 pads to 48 (a multiple of 8 * 32 bits / 16 bits): q 12 KiB + k 12 KiB.
    assert tf.smem_bytes(p, src.Tiling(64, 64, 2), 40) == 24576 + 12288 + 2048 + 8 * barriers


def test_heuristic_falls_back_when_the_estimate_exceeds_the_budget():
    p = dataclasses.replace(src.sm90_params(SM90, ARG_SPECS, CORE), budget_bytes=10_000)
    assert tf.heuristic_tiling(p, 64) == p.fallback
    p = dataclasses.replace(p, budget_bytes=10**9)
    assert tf.heuristic_tiling(p, 64) == p.heuristic


def test_a_changed_source_is_a_located_error():
    with pytest.raises(InputError) as e:
        src.sm90_params(SM90.replace("def get_heuristics_config", "def renamed"), ARG_SPECS, CORE)
    assert str(e.value.location) == src.SM90_PATH
    assert "get_heuristics_config" in e.value.message and "sm90_source.py" in e.value.hint


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    project = Project.load(REPO_ROOT)
    cache = Cache(tmp_path_factory.mktemp("cache"))
    for name in ("jax", "tokamax"):
        fetch_pin(project.pins[name], project.locks[name], cache, [InstalledSource()])
    return Corpus.open(project, cache)


def test_pinned_kernel_facts(corpus):
    p = tf.load_sm90_params(corpus)
    assert p.budget_bytes == tf.HOPPER_SMEM_PER_BLOCK_KIB * 1024  # tokamax agrees with NVIDIA
    assert len(p.named_barrier_ids) == p.compute_wgs
    facts = tf.sm90_facts(p)
    names = [f.name for f in facts]
    assert len(names) == len(set(names)) and all(FACT_NAME.match(n) for n in names)
    values = {f.name: f.value for f in facts}
    assert values["tokamax.sm90.smem.candidates"] == len(p.block_qs) * len(p.block_kvs) * len(p.stages)
    for j, d in enumerate(p.head_dims, 1):
        assert values[f"tokamax.sm90.smem.col{j}"] == d
        cells = [str(values[f"tokamax.sm90.smem.row{i}.col{j}"]) for i in range(1, len(p.candidates) + 1)]
        assert all(c.endswith((" KiB ✓", " KiB ✗")) for c in cells)
        assert sum(c.endswith("✓") for c in cells) == values[f"tokamax.sm90.smem.col{j}.fits"]
        # The heuristic's pick always fits, and its estimate errs on the safe side.
        assert tf.smem_bytes(p, tf.heuristic_tiling(p, d), d) <= tf.limit_bytes()
        estimate = int(values[f"tokamax.sm90.smem.col{j}.first_choice_estimate"])
        assert estimate >= int(values[f"tokamax.sm90.smem.col{j}.first_choice_alloc"])
    assert f"tokamax.sm90.smem.row{len(p.candidates) + 1}" not in values
    # At the largest head dim the first choice does not fit and the fallback is taken.
    last = len(p.head_dims)
    assert values[f"tokamax.sm90.smem.col{last}.heuristic"] == (
        f"block_q={p.fallback.block_q}, block_kv={p.fallback.block_kv}, "
        f"num_stages={p.fallback.num_stages}")


def _installed_sm90(corpus: Corpus):
    import inspect

    from tokamax._src.ops.attention import pallas_mosaic_gpu_kernel_sm90 as sm90
    assert inspect.getsource(sm90) == corpus.read_text("tokamax", src.SM90_PATH)
    return sm90


def test_estimate_matches_tokamax_own_function(corpus):
    import jax
    import jax.numpy as jnp
    from tokamax._src.ops.attention import pallas_mosaic_gpu as mgpu_attention
    sm90 = _installed_sm90(corpus)
    p = tf.load_sm90_params(corpus)
    for d in p.head_dims:
        x = jax.ShapeDtypeStruct((4096, 4, d), jnp.bfloat16)
        ba = mgpu_attention.PallasMosaicGpuFlashAttention().bind(x, x, x)
        for t in (p.heuristic, p.fallback, src.Tiling(128, 256, 4)):
            ours = tf.estimate_bytes(p, t, d)
            assert ours == sm90._estimate_shared_mem_usage_bytes(ba, t.block_q, t.block_kv, t.num_stages)


def _allocated(sm90, t: src.Tiling, head_dim: int, residuals: bool) -> int:
    """Lower the pinned kernel for CUDA on this host; Mosaic GPU reports its smem size."""
    import jax
    import jax.numpy as jnp
    from jax.experimental.mosaic.gpu import core

    x = jax.ShapeDtypeStruct((4096, 4, head_dim), jnp.bfloat16)
    config = sm90.Config(block_q=t.block_q, block_kv=t.block_kv, num_stages=t.num_stages)

    def f(q, k, v):
        return sm90.flash_attention_kernel(
            q, k, v, None, None, None, None, is_causal=False, logits_soft_cap=None,
            logits_scale=0.125, out_dtype=jnp.dtype(jnp.bfloat16), normalize_output=True,
            return_residuals=residuals, use_stable_softmax=True, rescale_threshold=1.0,
            config=config)

    with core.artificial_shared_memory_limit(0), pytest.raises(ValueError) as e:
        jax.jit(f).trace(x, x, x).lower(lowering_platforms=("cuda",))
    found = re.search(r"smem_bytes=(\d+)", str(e.value))
    assert found, str(e.value)
    return int(found.group(1))


@pytest.mark.slow
def test_model_equals_what_mosaic_gpu_allocates(corpus):
    sm90 = _installed_sm90(corpus)
    p = tf.load_sm90_params(corpus)
    cases = [(t, d) for t in p.candidates[::4] for d in p.head_dims] + [(p.heuristic, 64)]
    for t, d in cases:
        for residuals in (False, True):
            assert tf.smem_bytes(p, t, d, residuals) == _allocated(sm90, t, d, residuals), (t, d)
