"""Facts about tokamax's sm90 attention kernel: its tiling ladder, barriers, registers, smem budget.

Every kernel parameter is parsed from the pinned source; the only numbers typed here are the
hardware limits of compute capability 9.0 (H100 and H200 share the GH100 SM), cited below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reader.extract.fact import Fact
from reader.extract.sm90_model import (
    ARG_SPECS_PATH,
    COMMON_PATH,
    MGPU_CORE_PATH,
    SM90_PATH,
    Sm90Params,
    Tiling,
)

if TYPE_CHECKING:
    from reader.corpus import Corpus

# NVIDIA, "Tuning CUDA Applications for Hopper GPU Architecture"
# (https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html), Streaming Multiprocessor,
# shared memory: an H100 SM has up to 228 KB of shared memory, of which CUDA reserves 1 KB
# per thread block, so one block can address up to 227 KB. The same guide gives the register
# file: 64K 32-bit registers per SM. H200 uses the same SM (compute capability 9.0), see
# the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability".
HOPPER_SMEM_PER_SM_KIB = 228
HOPPER_SMEM_PER_BLOCK_KIB = 227
HOPPER_REGISTERS_PER_SM = 64 * 1024
THREADS_PER_WARPGROUP = 128  # 4 warps of 32 threads (PTX ISA, "warpgroup").
MBARRIER_BYTES = 8  # An mbarrier is an opaque 64-bit object in shared memory (PTX ISA).


@dataclass(frozen=True)
class SmemRow:
    """Shared memory one tiling allocates, per head dimension (bf16, no bias, no mask)."""

    tiling: Tiling
    bytes_by_head_dim: tuple[int, ...]


ELEMENT_BYTES = 2
"""q, k, v and the output in 16 bits: the FA3 specs' bfloat16/float16, and the dtype the
estimate assumes (`jnp.finfo(jnp.bfloat16).bits`)."""


def _align(x: int, a: int) -> int:
    return -(-x // a) * a


def _padded_head_dim(p: Sm90Params, head_dim: int) -> int:
    # `pad_head_dim_to_next_multiple_of_min_swizzle`: the wgmma contracting dimension is a
    # multiple of the minimum swizzle.
    return _align(head_dim, 8 * p.min_swizzle // (8 * ELEMENT_BYTES))


def _group(p: Sm90Params, sizes: list[int]) -> int:
    """Bytes of refs laid out one after another, each starting on `SMEM_ALIGNMENT`."""
    size = 0
    for n in sizes:
        size = _align(size, p.smem_alignment) + n
    return size


def _scratch_bytes(p: Sm90Params, t: Tiling, head_dim: int, residuals: bool) -> list[int]:
    """The size of each top-level scratch allocation of `_get_scratch_types` (no bias, no mask)."""
    b, d = ELEMENT_BYTES, _padded_head_dim(p, head_dim)
    epi_d = p.epi_tile_bits // (8 * b)
    epi_d = epi_d if d % epi_d == 0 else d
    slots = min(p.max_epi_slots, (t.block_q // p.epi_tile_q) * (d // epi_d))
    q = p.compute_wgs * t.block_q * d * b
    k = v = t.num_stages * t.block_kv * d * b
    o = p.compute_wgs * slots * p.epi_tile_q * epi_d * b
    rows = [p.compute_wgs * t.block_q * 4] * 2 if residuals else []  # `l_scratch`, `m_scratch`: f32
    qko = [q, k, o, *rows] if t.persistent else [max(_group(p, [q, k]), _group(p, [o, *rows]))]
    return [*qko, v]


def _barrier_bytes(p: Sm90Params, t: Tiling) -> int:
    return MBARRIER_BYTES * (p.fixed_barriers + p.stage_barriers * t.num_stages)


def smem_bytes(p: Sm90Params, t: Tiling, head_dim: int, residuals: bool = False) -> int:
    """Bytes of shared memory the kernel allocates for `t` (no bias, no mask, long sequences).

    Mirrors `_get_scratch_types` and how Pallas sizes it: a `RefUnion` takes its largest group,
    every ref starts on `SMEM_ALIGNMENT`, each scratch allocation is rounded up to it, the
    in-kernel reductions reserve the kernel's `reduction_scratch_bytes`, and every mbarrier
    adds `MBARRIER_BYTES` after the buffers.
    """
    a = p.smem_alignment
    buffers = sum(_align(n, a) for n in _scratch_bytes(p, t, head_dim, residuals))
    return buffers + _align(p.kernel_reduction_scratch_bytes, a) + _barrier_bytes(p, t)


def estimate_bytes(p: Sm90Params, t: Tiling, head_dim: int) -> int:
    """tokamax's own `_estimate_shared_mem_usage_bytes` (`estimate_smem_bytes` over the same
    scratch types: each rounded up to 1 KiB, plus 8 bytes per mbarrier), no bias, no mask."""
    a = p.smem_alignment
    return sum(_align(n, a) for n in _scratch_bytes(p, t, head_dim, False)) + _barrier_bytes(p, t)


def heuristic_tiling(p: Sm90Params, head_dim: int) -> Tiling:
    """The config `get_heuristics_config` returns for this head dimension (non-causal)."""
    return next((t for t in p.heuristic[:-1] if estimate_bytes(p, t, head_dim) < p.budget_bytes),
                p.heuristic[-1])


def smem_rows(p: Sm90Params) -> list[SmemRow]:
    return [SmemRow(t, tuple(smem_bytes(p, t, d) for d in p.head_dims)) for t in p.candidates]


def limit_bytes() -> int:
    return HOPPER_SMEM_PER_BLOCK_KIB * 1024


def _tiling_text(t: Tiling) -> str:
    return (f"block_q={t.block_q}, block_kv={t.block_kv}, num_stages={t.num_stages}, "
            f"persistent={t.persistent}")


def _kib(n: int) -> str:
    return f"{n / 1024:.1f}"


def _cell(n: int) -> str:
    return f"{_kib(n)} KiB {'✓' if n <= limit_bytes() else '✗'}"


def _fact(p: Sm90Params, source: str, name: str, value: int | str, about: str) -> Fact:
    """A fact read at `p.at[source]`: the pinned file and line its value comes from."""
    where = p.at[source]
    return Fact(name, value, about, where.path, where.line or 0)


def _table_facts(p: Sm90Params) -> list[Fact]:
    """The budget table as one fact per row label and cell: `row{i}`, `row{i}.col{j}`, `col{j}`."""
    out = []
    for i, row in enumerate(smem_rows(p), 1):
        t = row.tiling
        label = f"{t.block_q} × {t.block_kv} × {t.num_stages}" + (" persistent" if t.persistent else "")
        out.append(_fact(p, "candidates", f"tokamax.sm90.smem.row{i}", label,
                         "block_q × block_kv × num_stages (persistent or not) of candidate i"))
        out += [_fact(p, "candidates", f"tokamax.sm90.smem.row{i}.col{j}", _cell(n),
                      "allocation, and whether it fits") for j, n in enumerate(row.bytes_by_head_dim, 1)]
    return out


def _per_head_dim(p: Sm90Params) -> list[Fact]:
    out = []
    first = p.heuristic[0]
    for j, d in enumerate(p.head_dims, 1):
        fit = sum(r.bytes_by_head_dim[j - 1] <= limit_bytes() for r in smem_rows(p))
        h = heuristic_tiling(p, d)
        col = f"tokamax.sm90.smem.col{j}"
        out += [
            _fact(p, "head_dims", col, d, "a head dim of tokamax's FlashAttention-3 benchmark specs"),
            _fact(p, "candidates", f"{col}.fits", fit, "candidate tilings that fit at this head dim"),
            _fact(p, "heuristic", f"{col}.heuristic", _tiling_text(h),
                  "the heuristic's config at this head dim (non-causal)"),
            _fact(p, "heuristic", f"{col}.first_choice_estimate", estimate_bytes(p, first, d),
                  "tokamax's estimate for its first-choice tiling, bytes"),
            _fact(p, "heuristic", f"{col}.first_choice_alloc", smem_bytes(p, first, d),
                  "what the first-choice tiling allocates, bytes"),
            _fact(p, "heuristic", f"{col}.heuristic_alloc_kib", _kib(smem_bytes(p, h, d)),
                  "what the heuristic's config allocates, KiB"),
        ]
    return out


def hopper_facts() -> list[Fact]:
    """The hardware limits above: typed from NVIDIA's guides, so no pinned file is their source."""
    return [Fact("hopper.smem.per_sm_kib", HOPPER_SMEM_PER_SM_KIB, "Hopper tuning guide"),
            Fact("hopper.smem.per_block_kib", HOPPER_SMEM_PER_BLOCK_KIB, "Hopper tuning guide"),
            Fact("hopper.registers.per_sm", HOPPER_REGISTERS_PER_SM, "Hopper tuning guide")]


def sm90_facts(p: Sm90Params) -> list[Fact]:
    """Every fact this module computes, in a stable order, each with the line it is read at."""
    regs = (p.compute_wgs * p.compute_registers + (p.num_warpgroups - p.compute_wgs)
            * p.memory_registers) * THREADS_PER_WARPGROUP
    ids = p.named_barrier_ids
    stages = p.heuristic[0].num_stages
    return [
        _fact(p, "smem_alignment", "mosaic_gpu.smem_alignment", p.smem_alignment, "SMEM_ALIGNMENT"),
        _fact(p, "reduction_scratch_bytes", "mosaic_gpu.reduction_scratch_bytes",
              p.reduction_scratch_bytes, "CompilerParams.reduction_scratch_bytes default"),
        _fact(p, "launch", "tokamax.sm90.warpgroups", p.num_warpgroups, "num_threads of the launch"),
        _fact(p, "launch", "tokamax.sm90.warpgroups.compute", p.compute_wgs, "_COMPUTE_WGS"),
        _fact(p, "launch", "tokamax.sm90.smem.reduction_scratch_bytes",
              p.kernel_reduction_scratch_bytes, "reduction_scratch_bytes the kernel reserves"),
        _fact(p, "registers", "tokamax.sm90.registers.compute", p.compute_registers,
              "set_max_registers increase"),
        _fact(p, "registers", "tokamax.sm90.registers.memory", p.memory_registers,
              "set_max_registers decrease"),
        _fact(p, "registers", "tokamax.sm90.registers.total", regs,
              "registers the warpgroups claim"),
        _fact(p, "barriers", "tokamax.sm90.mbarriers.fixed", p.fixed_barriers,
              "single mbarriers (q_produced)"),
        _fact(p, "barriers", "tokamax.sm90.mbarriers.per_stage", p.stage_barriers,
              "mbarrier arrays sized num_stages"),
        _fact(p, "barriers", "tokamax.sm90.mbarriers.per_stage_optional", p.optional_stage_barriers,
              "mask mbarrier arrays sized num_stages"),
        _fact(p, "barriers", "tokamax.sm90.mbarriers.at_heuristic",
              p.fixed_barriers + p.stage_barriers * stages,
              "mbarriers without bias or mask at the heuristic's first choice"),
        _fact(p, "barriers", "tokamax.sm90.mbarriers.max",
              p.fixed_barriers + (p.stage_barriers + p.optional_stage_barriers) * max(p.stages),
              "mbarriers with a mask at the deepest candidate pipeline"),
        _fact(p, "named_barriers", "tokamax.sm90.named_barriers", len(ids),
              "hardware barrier ids bar.arrive/bar.sync use at the heuristic's stages"),
        _fact(p, "named_barriers", "tokamax.sm90.named_barrier_ids", " and ".join(map(str, ids)),
              "their ids"),
        _fact(p, "named_barriers", "tokamax.sm90.barrier_waits", p.barrier_waits,
              "plgpu.barrier_wait call sites"),
        _fact(p, "named_barriers", "tokamax.sm90.barrier_arrives", p.barrier_arrives,
              "plgpu.barrier_arrive call sites"),
        _fact(p, "named_barriers", "tokamax.sm90.named_barrier_uses", p.named_barrier_uses,
              "bar_arrive/bar_sync calls and uses of their partials"),
        _fact(p, "named_barriers", "tokamax.sm90.hand_placed_barriers",
              p.barrier_waits + p.barrier_arrives + p.named_barrier_uses,
              "every wait and arrival the kernel places by hand"),
        _fact(p, "budget_bytes", "tokamax.sm90.smem.budget_kib", p.budget_bytes // 1024,
              "budget in get_heuristics_config"),
        _fact(p, "candidates", "tokamax.sm90.smem.candidates", len(p.candidates),
              "tilings get_autotuning_configs can offer"),
        *_per_head_dim(p),
        *_table_facts(p),
    ]


def load_sm90_params(corpus: Corpus) -> Sm90Params:
    """Read the four pinned files these facts come from."""
    from reader.extract.sm90_source import sm90_params  # the parse: libcst loads here

    return sm90_params(corpus.read_text("tokamax", SM90_PATH),
                       corpus.read_text("tokamax", COMMON_PATH),
                       corpus.read_text("tokamax", ARG_SPECS_PATH),
                       corpus.read_text("jax", MGPU_CORE_PATH))
