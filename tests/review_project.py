"""A small project in the middle of a pin move, for the review's tests: an upstream with two
versions, the project (a git checkout) pinned to v0 with four accepted notes, then moved to v1
by `reader pin` (the pins now differ from HEAD's).

From v0 to v1: a comment shifts `pkg/core.py` down; `BlockSpec` gains a field (`tour-spec`
goes stale: its words still hold, Accept); `BlockMapping.__init__` gains a parameter
(`tour-init` goes stale: Edit); a line inserted above `self.grid = grid` moves the quote of
`tour-grid` out of its lines (stale, nowhere: Re-anchor); `pkg/call.py`'s `pallas_call` moves
down unchanged (`tour-call` is moved).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from reader.cache import blob_sha
from reader.cli import main
from tests.conftest import REPO_ROOT, git, make_upstream
from tests.small_project import LOCK, MIRROR, PINS, TRACK, Small

CORE_V0 = '''"""A tiny module."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class BlockSpec:
  """A block of an array."""
  block_shape: tuple[int, ...] = ()

  def to_block_mapping(self, grid):
    return BlockMapping(self, grid)


class BlockMapping:

  def __init__(self, spec, grid):
    self.spec = spec
    self.grid = grid
'''

CORE_V1 = '''"""A tiny module."""
import dataclasses

# Blocks and their mappings.


@dataclasses.dataclass(frozen=True)
class BlockSpec:
  """A block of an array."""
  block_shape: tuple[int, ...] = ()
  memory_space: str = "any"

  def to_block_mapping(self, grid):
    return BlockMapping(self, grid)


class BlockMapping:

  def __init__(self, spec, grid, index_map=None):
    self.spec = spec
    self.index_map = index_map
    self.grid = grid
'''

CALL_V0 = '''from pkg import core as pallas_core


def pallas_call(kernel, spec):
  return pallas_core.BlockMapping(spec, (1,))
'''

CALL_V1 = CALL_V0.replace("\n\n\ndef", "\n\nDEFAULT = None\n\n\ndef")

TOUR = """title: "A tour"
slug: tour
phase: 1
kind: article
order: 1
summary: "The small package."
reads:
  - path: pkg/core.py
  - path: pkg/call.py
kernels: [lab_one]
intro: |
  See [[pkg/core.py::BlockSpec]] and [[lab:lab_one]].
notes:
  # The spec: its words hold whatever fields it gains.
  - id: tour-spec
    symbol: BlockSpec
    body: A spec is **frozen**; see [[pkg/core.py::BlockMapping]].
  - id: tour-init
    symbol: BlockMapping.__init__
    body: |
      The mapping keeps its spec and grid.
  # The grid, by its quote.
  - id: tour-grid
    symbol: BlockMapping
    lines: [5, 5]
    quote: "self.grid = grid"
    body: The grid is kept as given.
  - id: tour-call
    path: pkg/call.py
    symbol: pallas_call
    body: The caller.
"""

NOTES = ("tour-spec", "tour-init", "tour-grid", "tour-call")


@dataclass(frozen=True)
class Moved:
    """The project mid-move: `small` (cache, upstream, root) and the two upstream commits."""

    small: Small
    v0: str
    v1: str

    @property
    def root(self) -> Path:
        return self.small.root

    def tour(self) -> str:
        return (self.root / "annotations" / "tour.yaml").read_text()


def accepted_project(base: Path) -> Moved:
    """The project at v0: fetched, every note accepted, committed (not yet moved)."""
    upstream = make_upstream(base / "upstream", [{"pkg/__init__.py": "", "pkg/core.py": CORE_V0,
                                                  "pkg/call.py": CALL_V0},
                                                 {"pkg/__init__.py": "", "pkg/core.py": CORE_V1,
                                                  "pkg/call.py": CALL_V1}])
    v0, v1 = upstream.commits
    root = base / "project"
    root.mkdir(parents=True)
    (root / "pins.toml").write_text(PINS.format(commit=v0))
    files = {"pkg/__init__.py": "", "pkg/call.py": CALL_V0, "pkg/core.py": CORE_V0}
    locked = "".join(f'"{p}" = "{blob_sha(t.encode())}"\n' for p, t in sorted(files.items()))
    (root / "pins.lock").write_text(LOCK.format(commit=v0, files=locked))
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(TRACK)
    (root / "kernels").mkdir()
    (root / "kernels" / "lab_one.py").write_text('"""A lab."""\n')
    (root / "annotations").mkdir()
    (root / "annotations" / "tour.yaml").write_text(TOUR)
    (root / ".gitignore").write_text("site/\n.site*\n")
    small = Small(root, base / "cache", upstream.path, v0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("READER_CACHE", str(small.cache))
        mp.setenv(MIRROR, str(small.upstream))
        mp.chdir(root)
        assert main(["fetch"]) == 0
        assert main(["accept", "--all"]) == 0
        assert main(["check"]) == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "t")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the track at v0")
    return Moved(small, v0, v1)


def moved_project(base: Path) -> Moved:
    """`accepted_project`, then `reader pin small --to v1` (not committed)."""
    moved = accepted_project(base)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("READER_CACHE", str(moved.small.cache))
        mp.setenv(MIRROR, str(moved.small.upstream))
        mp.chdir(moved.root)
        assert main(["pin", "small", "--to", moved.v1]) == 0
    return moved
