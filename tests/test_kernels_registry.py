"""The lab registry, each lab's `Exercises:` line against the pinned source, and `reader run`."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pytest

from kernels import LABS
from reader.cache import blob_sha
from reader.cli import main as reader_main
from reader.corpus import Project
from reader.extract.symbols import symbols_of
from reader.labs import load_labs

REPO_ROOT = Path(__file__).resolve().parent.parent
LOADED = {lab.name: lab for lab in load_labs(REPO_ROOT)}


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
    assert len(LABS) >= 10
    for name, lab in LABS.items():
        assert lab.name == name and lab.path.is_file(), name
        assert lab.heading.startswith(("LAB·", "EXTRA·")) and " · " in lab.heading
        assert 1 <= lab.phase <= 6
        assert "def main(argv: list[str] | None = None) -> int:" in lab.path.read_text(), name


# The outline's labs as the outline prints them (its numbers and its gaps are its own).
OUTLINE_LABS = {
    "LAB·1.1": "First kernels", "LAB·1.2": "Tiled matmul", "LAB·1.4": "Pipelining profile",
    "LAB·2.1": "The lowering ladder", "LAB·2.2": "Finding the spill",
    "LAB·3.2": "Flash attention, blind", "LAB·3.3": "The backward pass", "LAB·4.2": "Ring attention",
}


def test_labs_carry_the_outlines_labels_and_the_tracks_own_extra_labels():
    """The outline's eight labs under its labels; every other lab `EXTRA·A`, `EXTRA·B`, ... in
    track order, so that no one takes it for an outline lab; `LABS` in track order."""
    from reader.track import load_track

    track = load_track(REPO_ROOT / "track.yaml")
    order = [(e.ref, phase.number) for phase in track.phases for e in phase.entries if e.kind == "lab"]
    assert list(LABS) == [name for name, _ in order]
    assert {name: LABS[name].phase for name, _ in order} == dict(order)
    outline = {lab.label: lab.title for lab in LABS.values() if lab.in_outline}
    assert outline == OUTLINE_LABS
    extras = [lab.label for lab in LABS.values() if not lab.in_outline]
    assert extras == [f"EXTRA·{chr(ord('A') + i)}" for i in range(len(extras))]


@pytest.mark.parametrize("name", sorted(name for name, lab in LABS.items() if not lab.in_outline))
def test_the_tracks_own_labs_say_so_on_their_page(name):
    """An extra lab's page (its docstring's description) says it is the track's own."""
    from reader.labs import description

    assert "The track's own lab, not one of the outline's" in description(LOADED[name].docstring)


@pytest.mark.parametrize("name", sorted(LABS))
def test_exercised_symbols_are_defined_in_pinned_files(name):
    locks = Project.load(REPO_ROOT).locks
    pairs = LOADED[name].exercises
    assert pairs, f"{name}: the docstring has no `Exercises:` line"
    assert LOADED[name].docstring.startswith(LABS[name].label), name
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
    assert "LAB·1.2 · Tiled matmul" in out


def test_reader_run_unknown_lab_is_an_input_error(capsys):
    assert reader_main(["run", "tiled_matmull"]) == 2
    assert "did you mean 'tiled_matmul'" in capsys.readouterr().err


def test_reader_run_passes_arguments_to_the_lab(capsys):
    assert reader_main(["run", "first_kernels", "--rows", "8", "--cols", "128"]) == 0
    out = capsys.readouterr().out
    assert "x, y of shape (8, 128)" in out
    assert "pallas_call[" in out
