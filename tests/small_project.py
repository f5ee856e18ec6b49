"""A whole small reader project for end-to-end tests: a local upstream, pins, lock, outline, one
article with an accepted note, a lab; fetched, checked and built once, then copied per test."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from reader.cache import blob_sha
from reader.cli import main
from tests.conftest import REPO_ROOT, make_upstream
from tests.golden import CALL, CORE

FILES = {"pkg/core.py": CORE.replace("fixture", "pkg"), "pkg/call.py": CALL.replace("fixture", "pkg")}
NAME = "small"
MIRROR = "READER_MIRROR_SMALL"

PINS = """[pins.small]
repo = "https://example.invalid/small.git"
commit = "{commit}"
paths = ["pkg"]
"""
LOCK = """[small]
commit = "{commit}"

[small.files]
{files}"""
TRACK = """title: "A small track"
summary: "Two files and a lab."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "A tour"
        slug: tour
      - source: pkg/call.py
        summary: The caller.
      - lab: lab_one
        title: "LAB 1 · One"
"""
TOUR = """title: "A tour"
slug: tour
phase: 1
kind: article
order: 1
summary: "The small package."
reads:
  - path: pkg/core.py
kernels: [lab_one]
intro: |
  See [[pkg/core.py::BlockSpec]] and [[lab:lab_one]].
notes:
  - id: tour-blockspec
    symbol: BlockSpec
    body: The spec.
"""
"""Line numbers matter to the tests: `phase` is line 3, `reads` 7, the note 13, its body 15."""


@dataclass(frozen=True)
class Small:
    """A built small project: its root, its cache, and the upstream repository it pins."""

    root: Path
    cache: Path
    upstream: Path
    commit: str

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a `python -m reader` child process needs for this project."""
        return dict(os.environ, READER_CACHE=str(self.cache), PYTHONPATH=str(REPO_ROOT),
                    **{MIRROR: str(self.upstream)}, **extra)

    def copy(self, dest: Path) -> Small:
        """A copy of project and cache (the upstream is shared: tests never change it)."""
        shutil.copytree(self.root, dest / "project", symlinks=True)
        shutil.copytree(self.cache, dest / "cache", symlinks=True)
        return Small(dest / "project", dest / "cache", self.upstream, self.commit)


def write_small(base: Path, files: dict[str, str] | None = None) -> Small:
    """The project's files, not yet fetched or built; the upstream holds `files` (default FILES,
    whose lock has `pkg/call.py` on line 5 and `pkg/core.py` on line 6)."""
    files = files or FILES
    upstream = make_upstream(base / "upstream", [files])
    commit = upstream.commits[0]
    root = base / "project"
    root.mkdir(parents=True)
    (root / "pins.toml").write_text(PINS.format(commit=commit))
    locked = "".join(f'"{p}" = "{blob_sha(t.encode())}"\n' for p, t in sorted(files.items()))
    (root / "pins.lock").write_text(LOCK.format(commit=commit, files=locked))
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(TRACK)
    (root / "kernels").mkdir()
    (root / "kernels" / "lab_one.py").write_text('"""A lab."""\n')
    (root / "annotations").mkdir()
    (root / "annotations" / "tour.yaml").write_text(TOUR)
    return Small(root, base / "cache", upstream.path, commit)


def build_small(base: Path, files: dict[str, str] | None = None) -> Small:
    """`write_small`, then `fetch_and_build`."""
    return fetch_and_build(write_small(base, files))


def fetch_and_build(small: Small) -> Small:
    """Fetch, accept every note, check (clean) and build, in this process."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("READER_CACHE", str(small.cache))
        mp.setenv(MIRROR, str(small.upstream))
        mp.chdir(small.root)
        for argv in (["fetch"], ["accept", "--all"], ["check"], ["build", "--jobs", "1"]):
            assert main(argv) == 0, argv
    return small


def reader(small: Small, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m reader ARGV` in the project, as a child process."""
    return subprocess.run([sys.executable, "-m", "reader", *argv], cwd=small.root,
                          env=small.env(**env), capture_output=True, text=True, timeout=120)


def tree_digest(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of the bytes (`-> target` for a link, `/` for a folder, the size
    for a file over 64 MiB, which only a test that made it on purpose has)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[rel] = "/"
        elif path.stat().st_size > 64 << 20:
            out[rel] = f"{path.stat().st_size} bytes"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out
