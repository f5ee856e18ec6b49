"""The lab registry, each lab's `Exercises:` line against the pinned source, and `reader run`."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pytest

from kernels import LABS, docstring, exercises
from reader.cache import blob_sha
from reader.cli import main as reader_main
from reader.corpus import Project
from reader.extract.symbols import symbols_of

REPO_ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def _qualnames(path: str) -> tuple[str, frozenset[str]]:
    """The installed release's text of a pinned path: its blob sha and defined names."""
    text = _installed(path).read_text()
    return blob_sha(text.encode()), frozenset(s.qualname for s in symbols_of(text))


def _installed(path: str) -> Path:
    spec = importlib.util.find_spec(path.split("/")[0])
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent.parent / path


def test_registry_names_modules_that_exist_with_main():
    assert len(LABS) == 10
    for name, lab in LABS.items():
        assert lab.name == name and lab.path.is_file(), name
        assert lab.heading.startswith("LAB·") and " · " in lab.heading
        assert 1 <= lab.phase <= 6
        assert "def main(argv: list[str] | None = None) -> int:" in lab.path.read_text(), name


def test_labs_are_numbered_by_their_place_in_the_track():
    """`LAB·p.k`: the k-th lab of phase p in track.yaml, the one scheme every page shows."""
    from reader.track import load_track

    track = load_track(REPO_ROOT / "track.yaml")
    want = {}
    for phase in track.phases:
        labs = [e.ref for e in phase.entries if e.kind == "lab"]
        want.update({name: (f"LAB·{phase.number}.{k}", phase.number) for k, name in enumerate(labs, 1)})
    assert {name: (lab.label, lab.phase) for name, lab in LABS.items()} == want
    assert list(LABS) == list(want)  # in the track's order


@pytest.mark.parametrize("name", sorted(LABS))
def test_exercised_symbols_are_defined_in_pinned_files(name):
    locks = Project.load(REPO_ROOT).locks
    pairs = exercises(name)
    assert pairs, f"{name}: the docstring has no `Exercises:` line"
    assert docstring(name).startswith(LABS[name].label), name
    for path, symbol in pairs:
        pin = next((lock for lock in locks.values() if path in lock.files), None)
        assert pin is not None, f"{name}: {path} is not a pinned file"
        blob, names = _qualnames(path)
        assert blob == pin.files[path], f"the installed {path} differs from the pinned one"
        assert symbol in names, f"{name}: {path}::{symbol} is not defined there"


def test_reader_run_lists_labs(capsys):
    assert reader_main(["run", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in LABS)
    assert "LAB·2.1 · Tiled matmul" in out


def test_reader_run_unknown_lab_is_an_input_error(capsys):
    assert reader_main(["run", "tiled_matmull"]) == 2
    assert "did you mean 'tiled_matmul'" in capsys.readouterr().err


def test_reader_run_passes_arguments_to_the_lab(capsys):
    assert reader_main(["run", "first_kernels", "--rows", "8", "--cols", "128"]) == 0
    out = capsys.readouterr().out
    assert "x, y of shape (8, 128)" in out
    assert "pallas_call[" in out
