"""The track's labs: one runnable module per lab, registered in `LABS` (imports no jax)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Blind:
    """A lab whose kernel the learner writes blind: `reader run LAB --check FILE` checks it."""

    scaffold: str
    """The module in `kernels/` to copy: the kernel's signature, its body as TODO steps."""
    kernel: str
    """The function the learner writes; the lab's `check_kernel(fn)` runs it."""
    upstream: str
    """`path::qualname` of the pinned function the learner's kernel is diffed against."""

    @property
    def upstream_path(self) -> str:
        return self.upstream.partition("::")[0]

    @property
    def upstream_symbol(self) -> str:
        return self.upstream.partition("::")[2]


OUTLINE, EXTRA = "LAB·", "EXTRA·"
"""The label prefixes of the outline's labs and of the track's own."""


@dataclass(frozen=True)
class Lab:
    """One lab: `python -m kernels.<name>` runs it, `reader run <name>` too."""

    name: str
    """The module's short name, e.g. `tiled_matmul`; `[[lab:NAME]]` in annotations."""
    title: str
    """The lab's title in the outline, e.g. `Tiled matmul`."""
    label: str
    """The outline's own label, e.g. `LAB·1.2` (its numbers, gaps included); a lab the outline does
    not list, the track's own, is `EXTRA·A`, `EXTRA·B`, ... in track order."""
    phase: int
    """The track phase (1-6) whose outline lists the lab."""
    blind: Blind | None = None
    """Set when the learner writes the lab's kernel from a scaffold (`reader run LAB --check`)."""

    @property
    def module(self) -> str:
        return f"kernels.{self.name}"

    @property
    def heading(self) -> str:
        """`LAB·1.2 · Tiled matmul`: how the outline prints the lab."""
        return f"{self.label} · {self.title}"

    @property
    def in_outline(self) -> bool:
        """Whether the outline lists the lab (`LAB·x.y`), rather than the track adding it (`EXTRA·X`)."""
        return self.label.startswith(OUTLINE)

    @property
    def path(self) -> Path:
        """The lab's source file (what the site hashes to cache its artifacts)."""
        return Path(__file__).resolve().parent / f"{self.name}.py"


LABS: dict[str, Lab] = {lab.name: lab for lab in (
    Lab("first_kernels", "First kernels", "LAB·1.1", 1),
    Lab("tiled_matmul", "Tiled matmul", "LAB·1.2", 2),
    Lab("pipelining", "Pipelining profile", "LAB·1.4", 3),
    Lab("lowering_ladder", "The lowering ladder", "LAB·2.1", 4),
    Lab("finding_the_spill", "Finding the spill", "LAB·2.2", 4),
    Lab("mosaic_gpu_matmul", "A Mosaic GPU matmul", "EXTRA·A", 4),
    Lab("flash_attention", "Flash attention, blind", "LAB·3.2", 5, Blind(
        "flash_attention_blind", "flash_kernel",
        "jax/experimental/pallas/ops/tpu/flash_attention.py::_flash_attention_kernel_single_batch")),
    Lab("flash_attention_bwd", "The backward pass", "LAB·3.3", 5),
    Lab("block_sparse", "Block-sparse attention", "EXTRA·B", 5),
    Lab("ring_attention", "Ring attention", "LAB·4.2", 6),
    Lab("autotuned_op", "An autotuned op", "EXTRA·C", 6),
    Lab("reduce_scatter", "Reduce-scatter in a kernel", "EXTRA·D", 6),
)}

