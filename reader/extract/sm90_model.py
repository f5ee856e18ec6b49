"""What the sm90 attention kernel's source says, as plain data (no parser: the figures and the
facts read these without loading libcst; `sm90_source.py` fills them from the pinned files)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import product

from reader.errors import Location

SM90_PATH = "tokamax/_src/ops/attention/pallas_mosaic_gpu_kernel_sm90.py"
COMMON_PATH = "tokamax/_src/ops/attention/pallas_mosaic_gpu_common.py"
ARG_SPECS_PATH = "tokamax/_src/ops/attention/arg_specs.py"
MGPU_CORE_PATH = "jax/_src/pallas/mosaic_gpu/core.py"


@dataclass(frozen=True, order=True)
class Tiling:
    """One candidate config of the sm90 kernel."""

    block_q: int
    block_kv: int
    num_stages: int
    persistent: bool = False
    """A persistent kernel keeps q, k and the output apart; otherwise they share a `RefUnion`."""


@dataclass(frozen=True)
class Sm90Params:
    """The numbers the sm90 kernel and its Pallas lowering fix, as read from the pinned source."""

    block_qs: tuple[int, ...]
    block_kvs: tuple[int, ...]
    stages: tuple[int, ...]
    persistents: tuple[bool, ...]
    heuristic: tuple[Tiling, ...]
    """`get_heuristics_config`'s configs in the order it tries them; the last is taken unseen."""
    budget_bytes: int
    min_swizzle: int
    epi_tile_q: int
    epi_tile_bits: int
    max_epi_slots: int
    compute_wgs: int
    num_warpgroups: int
    compute_registers: int
    memory_registers: int
    fixed_barriers: int
    """Single mbarriers every call allocates (`q_produced`)."""
    stage_barriers: int
    """mbarrier arrays of `num_stages` entries that every call allocates."""
    optional_stage_barriers: int
    """mbarrier arrays of `num_stages` entries allocated only with a mask in smem."""
    named_barrier_ids: tuple[int, ...]
    """Hardware barrier ids `bar.arrive`/`bar.sync` use at the heuristic's first config."""
    barrier_waits: int
    """Call sites of `plgpu.barrier_wait` in the kernel."""
    barrier_arrives: int
    """Call sites of `plgpu.barrier_arrive` (arrivals a thread makes by hand, not by TMA)."""
    named_barrier_uses: int
    """Calls of `bar_arrive`/`bar_sync`, and uses of the partials bound to them."""
    head_dims: tuple[int, ...]
    smem_alignment: int
    reduction_scratch_bytes: int
    """Mosaic GPU's default for `CompilerParams.reduction_scratch_bytes`."""
    kernel_reduction_scratch_bytes: int
    """What the kernel's own `CompilerParams` reserves (the default when it passes none)."""
    at: Mapping[str, Location] = field(default_factory=dict, compare=False)
    """Field name -> where its value is read."""

    @property
    def candidates(self) -> list[Tiling]:
        return [Tiling(q, kv, s, p) for q, kv, p, s in
                product(self.block_qs, self.block_kvs, self.persistents, self.stages)]
