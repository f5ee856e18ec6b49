"""Lowered IR with source locations (`lowered.json`, read by reader/render/ir/lowered.py): what each lowered op is,
which primitive's lowering rule emitted it, and the kernel line it came from.

This package's top level imports no jax: `reader check`, `diff` and `rules` load reader without
it. The lowering itself (`reader.ir.lower`, `reader.ir.mlir_ops`, `reader.ir.canonical`) runs in
the labs' artifact child process (`reader/labs/child.py`).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

FORMAT_VERSION = 1
BACKENDS = ("jaxpr", "mosaic_tpu", "mosaic_gpu", "triton")
"""The backends a module can come from, in the order a page lists them."""
LAB_FILE = "lowered.json"
"""The file each lab that declares `lowerings()` writes beside its other artifacts."""
PINNED_PACKAGES = ("jax", "tokamax")
"""Installed packages whose files are pinned: a location in one maps to `<package>/<path>`."""


class OpCount(NamedTuple):
    """An op name and how many of a module's ops have it."""

    op: str
    number: int


@dataclass(frozen=True)
class Coverage:
    """How many of a module's ops carry a file location, and the op names of those that don't."""

    located: int
    total: int
    unlocated: tuple[OpCount, ...]
    """Most frequent first."""


def coverage(module: dict[str, Any]) -> Coverage:
    """The coverage of one module of the format (ops with `loc` / all ops)."""
    ops = module.get("ops", [])
    missing = collections.Counter(op["op"] for op in ops if op["loc"] is None)
    return Coverage(len(ops) - sum(missing.values()), len(ops), tuple(OpCount(*c) for c in missing.most_common()))


class SourceFile(NamedTuple):
    """A location's file: its path and its pin (None for the project's own files)."""

    path: str
    pin: str | None


def source_file(filename: str, root: Path, site_packages: tuple[Path, ...]) -> SourceFile | None:
    """A location's file: project-relative (`kernels/x.py`, pin None) inside
    `root`, `jax/...` / `tokamax/...` (pin "jax" / "tokamax") inside an installed pinned
    package; None elsewhere (stdlib, other packages, a file that is not a path)."""
    path = Path(filename)
    if not path.is_absolute():
        return None
    for base in site_packages:
        try:
            rel = path.relative_to(base)
        except ValueError:
            continue
        if rel.parts and rel.parts[0] in PINNED_PACKAGES:
            return SourceFile(rel.as_posix(), rel.parts[0])
    try:
        rel = path.relative_to(root)
    except ValueError:
        return None
    if any(part.startswith(".") or part == "site-packages" for part in rel.parts):
        return None  # a virtual environment inside the project
    return SourceFile(rel.as_posix(), None)
