"""sm90_source and tokamax_facts: the sm90 kernel's parameters parsed from source, and its smem model checked
against what Pallas Mosaic GPU really allocates."""

from __future__ import annotations

import dataclasses
import re

import pytest

from reader.annotations.markup import FACT_NAME
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.extract import sm90_source as src
from reader.extract import tokamax_facts as tf
from reader.extract.fact import ExtractError
from reader.fetch import InstalledSource, fetch_pin
from tests.conftest import REPO_ROOT

SM90 = '''
_COMPUTE_WGS = 2
_MAX_SMEM = 200 * 1024

def _get_scratch_types(q, k, v, bias, mask, out_dtype, return_residuals, config):
  epi_tile_q = 64
  epi_tile_d = 1024 // mgpu_lib.num_bits(out_dtype)
  num_epi_slots = min(2, (block_q // epi_tile_q))
  k_bias_produced = plgpu.Barrier(num_barriers=num_stages)
  scratch = dict(
      q_produced=plgpu.Barrier(),
      v_produced=plgpu.Barrier(num_barriers=num_stages),
  )
  if mask is not None:
    scratch["mask_produced"] = plgpu.Barrier(num_barriers=num_stages)
  scratch["k_bias_produced"] = k_bias_produced
  return scratch

def _estimate_shared_mem_usage_bytes(ba, config):
  return mgpu_lib.estimate_smem_bytes(_get_scratch_types(config))

def get_heuristics_config(ba, fold):
  config = Config(block_q=64, block_kv=128, num_stages=2, persistent=not ba.kwargs["mask"].is_causal)
  if _estimate_shared_mem_usage_bytes(ba, config) < _MAX_SMEM:
    return config
  config = dataclasses.replace(config, block_kv=64)
  if _estimate_shared_mem_usage_bytes(ba, config) < _MAX_SMEM:
    return config
  return dataclasses.replace(config, persistent=False)

def get_autotuning_configs(ba):
  block_kvs = [x for x in [128] if x <= 4]
  for block_q in [64, 128] if big else [64]:
    for block_kv in [64] + block_kvs:
      for persistent in (True, False):
        for num_stages in (2, 3):
          pass

def flash_attention_kernel(q, k, v, *, config):
  def kernel(grid_loop, *, q_produced):
    def grid_loop_body(gmems, loop_info, carry):
      schedule_barrier = 4
      k_consumed_barrier = schedule_barrier + 2
      arrive = functools.partial(mgpu_lib.bar_arrive, schedule_barrier + 1 - wg, num_threads=256)
      sync = functools.partial(mgpu_lib.bar_sync, schedule_barrier + wg, num_threads=256)
      def compute_wg():
        plgpu.set_max_registers(232, action="increase")
        plgpu.barrier_wait(q_produced)
        pl.when(wg == 1)(sync)
        def body():
          arrive()
          mgpu_lib.bar_arrive(k_consumed_barrier + si, num_threads=288)
          plgpu.barrier_wait(k_barrier.at[0])
          plgpu.barrier_arrive(k_consumed.at[0])
          sync()
      def memory_wg():
        plgpu.set_max_registers(40, action="decrease")
  out = maybe_persistent_kernel(
      kernel, scratch_types=scratch_types, num_threads=_COMPUTE_WGS + 1,
      compiler_params=plgpu.CompilerParams(reduction_scratch_bytes=0))(q)
'''
COMMON = '''
MIN_SWIZZLE = 32
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


def params(sm90: str = SM90) -> src.Sm90Params:
    return src.sm90_params(sm90, COMMON, ARG_SPECS, CORE)


def test_parses_the_tiling_ladder_and_the_heuristic():
    p = params()
    assert (p.block_qs, p.block_kvs, p.stages, p.persistents) == ((64, 128), (64, 128), (2, 3),
                                                                  (True, False))
    assert len(p.candidates) == 16 and src.Tiling(128, 64, 3, False) in p.candidates
    assert p.heuristic == (src.Tiling(64, 128, 2, True), src.Tiling(64, 64, 2, True),
                           src.Tiling(64, 64, 2, False))
    assert p.budget_bytes == 200 * 1024 and p.head_dims == (64, 128)
    assert (p.smem_alignment, p.reduction_scratch_bytes, p.kernel_reduction_scratch_bytes) == (
        1024, 2048, 0)
    assert str(p.at["budget_bytes"]) == f"{src.SM90_PATH}:22"
    assert str(p.at["min_swizzle"]) == f"{src.COMMON_PATH}:2"


def test_classifies_barriers_and_reads_warpgroups():
    p = params()
    # q_produced is one mbarrier; k_bias and v are arrays per stage on every call; the mask's
    # is made only under an `if`.
    assert (p.fixed_barriers, p.stage_barriers, p.optional_stage_barriers) == (1, 2, 1)
    # wg 0 and 1 arrive at 5 and 4 and sync on 4 and 5; k_consumed is 6 + si for 2 stages.
    assert p.named_barrier_ids == (4, 5, 6, 7)
    # bar_arrive called once, `sync` used twice and `arrive` once.
    assert (p.barrier_waits, p.barrier_arrives, p.named_barrier_uses) == (2, 1, 4)
    assert (p.num_warpgroups, p.compute_wgs) == (3, 2)
    assert (p.compute_registers, p.memory_registers) == (232, 40)


def test_smem_model_by_hand():
    p = params()
    # head_dim 64, bf16, not persistent: q = 2*64*64*2 and k = 2 stages*64*64*2 share a union with
    # one epilogue slot (2*64*64*2); v = k; the kernel reserves no reduction scratch.
    barriers = 1 + 2 * 2
    assert tf.smem_bytes(p, src.Tiling(64, 64, 2), 64) == 32768 + 16384 + 8 * barriers
    # persistent: q, k and the output each have their own allocation.
    assert tf.smem_bytes(p, src.Tiling(64, 64, 2, True), 64) == 3 * 16384 + 16384 + 8 * barriers
    # head_dim 40 pads to 48 (a multiple of 8 * 32 bits / 16 bits): q 12 KiB + k 12 KiB.
    assert tf.smem_bytes(p, src.Tiling(64, 64, 2), 40) == 24576 + 12288 + 8 * barriers


def test_heuristic_walks_its_ladder_until_the_estimate_fits():
    p = dataclasses.replace(params(), budget_bytes=10_000)
    assert tf.heuristic_tiling(p, 64) == p.heuristic[-1]
    p = dataclasses.replace(p, budget_bytes=70_000)
    assert tf.heuristic_tiling(p, 64) == p.heuristic[1]
    p = dataclasses.replace(p, budget_bytes=10**9)
    assert tf.heuristic_tiling(p, 64) == p.heuristic[0]


def test_a_changed_source_is_a_located_error():
    with pytest.raises(ExtractError) as e:
        params(SM90.replace("def get_heuristics_config", "def renamed"))
    assert str(e.value.location) == src.SM90_PATH
    assert "get_heuristics_config" in e.value.message and "sm90_source.py" in e.value.hint


def test_the_params_are_read_once_per_texts():
    """The facts and the `sm90-budget` figure read the same pins: one parse serves both."""
    assert params() is params()
    assert params(SM90 + "\n") == params() and params(SM90 + "\n") is not params()


def test_a_source_walks_each_scope_as_the_tree_walk_does():
    s = src.Source(SM90, src.SM90_PATH)
    every = list(src.walk(s.tree))
    assert s.walk() == every and len(every) > 100
    for node in every[::7]:
        assert s.walk(node) == list(src.walk(node))
    assert s.parents == {c: n for n in every for c in n.children}
    kern = s.function("flash_attention_kernel")
    assert [src.callee(c) for c in s.calls(kern, "bar_arrive")] == ["bar_arrive"]
    assert s.assigned(kern, "k_consumed_barrier") is not None and s.assigned(kern, "nope") is None


def test_a_barrier_of_an_unknown_size_is_a_located_error():
    with pytest.raises(ExtractError) as e:
        params(SM90.replace("v_produced=plgpu.Barrier(num_barriers=num_stages)",
                            "v_produced=plgpu.Barrier(num_barriers=depth)"))
    assert str(e.value.location) == f"{src.SM90_PATH}:12"
    assert "the size of v_produced (num_barriers=depth)" in e.value.message


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    project = Project.load(REPO_ROOT)
    cache = Cache(tmp_path_factory.mktemp("cache"))
    for name in ("jax", "tokamax"):
        fetch_pin(project.pins[name], project.locks[name], cache, [InstalledSource()])
    return Corpus.open(project, cache)


def test_pinned_kernel_facts(corpus):
    p = tf.load_sm90_params(corpus)
    assert p.heuristic[0].persistent and not p.heuristic[-1].persistent
    assert p.budget_bytes == tf.HOPPER_SMEM_PER_BLOCK_KIB * 1024  # tokamax agrees with NVIDIA
    assert 0 < len(p.named_barrier_ids) and max(p.named_barrier_ids) < 16  # PTX: 16 per CTA
    facts = tf.sm90_facts(p)
    names = [f.name for f in facts]
    assert len(names) == len(set(names)) and all(FACT_NAME.match(n) for n in names)
    values = {f.name: f.value for f in facts}
    assert values["tokamax.sm90.smem.candidates"] == (len(p.block_qs) * len(p.block_kvs) * len(p.stages)
                                                     * len(p.persistents))
    for j, d in enumerate(p.head_dims, 1):
        assert values[f"tokamax.sm90.smem.col{j}"] == d
        cells = [str(values[f"tokamax.sm90.smem.row{i}.col{j}"]) for i in range(1, len(p.candidates) + 1)]
        assert all(c.endswith((" KiB ✓", " KiB ✗")) for c in cells)
        assert sum(c.endswith("✓") for c in cells) == values[f"tokamax.sm90.smem.col{j}.fits"]
        # The heuristic's pick always fits, and its estimate errs on the safe side.
        assert tf.smem_bytes(p, tf.heuristic_tiling(p, d), d) <= tf.limit_bytes()
        estimate = int(str(values[f"tokamax.sm90.smem.col{j}.first_choice_estimate"]))
        assert estimate >= int(str(values[f"tokamax.sm90.smem.col{j}.first_choice_alloc"]))
    assert f"tokamax.sm90.smem.row{len(p.candidates) + 1}" not in values
    # At the largest head dim the first choice does not fit and a later step is taken.
    last = len(p.head_dims)
    assert tf.heuristic_tiling(p, p.head_dims[-1]) != p.heuristic[0]
    assert str(values[f"tokamax.sm90.smem.col{last}.heuristic"]).startswith("block_q=")


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
        for t in (*p.heuristic, src.Tiling(128, 256, 4), src.Tiling(128, 64, 3, True)):
            config = sm90.Config(block_q=t.block_q, block_kv=t.block_kv, num_stages=t.num_stages,
                                 persistent=t.persistent)
            assert tf.estimate_bytes(p, t, d) == sm90._estimate_shared_mem_usage_bytes(ba, config)


def _allocated(sm90, t: src.Tiling, head_dim: int, residuals: bool) -> int:
    """Lower the pinned kernel for CUDA on this host; Mosaic GPU reports its smem size."""
    import jax
    import jax.numpy as jnp
    from jax.experimental.mosaic.gpu import core

    x = jax.ShapeDtypeStruct((4096, 4, head_dim), jnp.bfloat16)
    config = sm90.Config(block_q=t.block_q, block_kv=t.block_kv, num_stages=t.num_stages,
                         persistent=t.persistent)

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


def _has_gpu() -> bool:
    import jax

    return any(d.platform == "gpu" for d in jax.devices())


@pytest.mark.slow
def test_model_equals_what_mosaic_gpu_allocates(corpus):
    sm90 = _installed_sm90(corpus)
    p = tf.load_sm90_params(corpus)
    # A persistent kernel asks the device how many SMs it has: it lowers only where there is one.
    tilings = [t for t in p.candidates[::5] if _has_gpu() or not t.persistent]
    cases = [(t, d) for t in tilings for d in p.head_dims] + [(p.heuristic[-1], 64)]
    assert any(not t.persistent for t, _ in cases)
    for t, d in cases:
        for residuals in (False, True):
            assert tf.smem_bytes(p, t, d, residuals) == _allocated(sm90, t, d, residuals), (t, d)
