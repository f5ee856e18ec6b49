"""`reader diff --apply` end to end on the demo upstream (a local git repo, tags v0 and v1): a file
renamed, a function split in two, a function renamed; the notes, the page's `reads` and its
source links follow, `reader check` then lists exactly the marked notes; and the move back."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from reader.annotations import load_articles
from reader.cli import main
from tests.conftest import git
from tests.diff_project import make_demo
from tests.test_move_place import SPLIT_AFTER, SPLIT_BEFORE

TPU_INFO = '''\
"""Chip facts."""

import enum


class ChipVersion(enum.Enum):
    V4 = "v4"
    V5E = "v5e"


def get_device_kind(device):
    kind = device.device_kind
    return kind.lower()
'''

WARMUP = """

def warmup(lr, n):
    scale = min(1.0, n / 1000)
    return lr * scale
"""
LEGACY = """

def legacy(lr):
    return lr
"""
STEP_V0 = textwrap.dedent(SPLIT_BEFORE) + WARMUP + LEGACY
STEP_V1 = textwrap.dedent(SPLIT_AFTER) + WARMUP.replace("def warmup", "def linear_warmup")

V0 = {"jax/_src/pallas/mosaic/__init__.py": "", "jax/_src/pallas/mosaic/tpu_info.py": TPU_INFO,
      "jax/_src/pallas/train.py": STEP_V0}
V1 = {"jax/_src/pallas/tpu_info.py": TPU_INFO, "jax/_src/pallas/train.py": STEP_V1}

LAYER = """\
title: Layer
slug: layer
phase: 1
kind: article
order: 2
intro: |
  The chip's kind comes from [[jax/_src/pallas/mosaic/tpu_info.py::get_device_kind|one function]].
reads:
  - path: jax/_src/pallas/mosaic/tpu_info.py
    symbols: [ChipVersion, get_device_kind]
  - path: jax/_src/pallas/train.py
    symbols:
      - step
      - warmup
      - legacy
notes:
  - id: chip   # the versions
    path: jax/_src/pallas/mosaic/tpu_info.py
    symbol: ChipVersion
    body: Two chips.
  - id: kind
    path: jax/_src/pallas/mosaic/tpu_info.py
    symbol: get_device_kind
    lines: [2, 3]
    body: Lower-cased.
  - id: clip
    path: jax/_src/pallas/train.py
    symbol: step
    lines: [2, 4]
    quote: "grads = clip(grads, 1.0)"
    body: Clipped, then averaged.
  - id: update
    path: jax/_src/pallas/train.py
    symbol: step
    lines: [5, 7]
    body: The update.
  - id: warm
    path: jax/_src/pallas/train.py
    symbol: warmup
    lines: [2, 2]
    body: Linear for a thousand steps.
"""


@pytest.fixture
def moved(tmp_path, cache, monkeypatch):
    """The demo with the layer page accepted at v0 and committed, then pinned to v1."""
    _, root = make_demo(tmp_path, monkeypatch, (V0, V1))
    (root / "annotations" / "layer.yaml").write_text(LAYER)
    assert main(["-C", str(root), "accept", "--all"]) == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the layer page")
    assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
    return root


def _check(root: Path, capsys) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["-C", str(root), "check", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def _notes(root: Path) -> dict:
    return {n.id: n for a in load_articles(root) for n in a.notes}


def test_apply_follows_files_splits_and_renames_and_check_lists_the_marked(moved, capsys):
    root = moved
    assert main(["-C", str(root), "diff", "--apply", "--no-claims"]) == 1
    err = capsys.readouterr().err
    assert ("annotations/layer.yaml: link [[jax/_src/pallas/mosaic/tpu_info.py::get_device_kind]] "
            "now [[jax/_src/pallas/tpu_info.py::get_device_kind]]") in err
    assert ("annotations/layer.yaml: `reads` no longer shows jax/_src/pallas/train.py::legacy "
            "(gone at the new pins)") in err
    notes = _notes(root)
    # The file that moved: its notes' paths rewritten, their code unchanged: no mark.
    assert (notes["chip"].path, notes["chip"].symbol, notes["chip"].review) == (
        "jax/_src/pallas/tpu_info.py", "ChipVersion", None)
    assert (notes["kind"].path, tuple(notes["kind"].lines or ())) == (
        "jax/_src/pallas/tpu_info.py", (2, 3))
    # The split: the clipping followed its lines into `gradients` (marked: a split is not sure);
    # the update stayed in `step`, its lines realigned.
    assert (notes["clip"].symbol, tuple(notes["clip"].lines or ())) == ("gradients", (2, 4))
    assert notes["clip"].review is not None and "split out of 'step'" in notes["clip"].review.reason
    assert (notes["update"].symbol, tuple(notes["update"].lines or ()), notes["update"].review) == (
        "step", (3, 5), None)
    # The renamed function: found by its body.
    assert notes["warm"].symbol == "linear_warmup" and notes["warm"].review is None
    # The page reads the moved file, the renamed function and the split-out one.
    (page,) = [a for a in load_articles(root) if a.slug == "layer"]
    assert [(r.path, r.symbols) for r in page.reads] == [
        ("jax/_src/pallas/tpu_info.py", ("ChipVersion", "get_device_kind")),
        ("jax/_src/pallas/train.py", ("step", "linear_warmup", "gradients"))]
    text = (root / "annotations" / "layer.yaml").read_text()
    assert "  - id: chip   # the versions\n" in text and "      - linear_warmup\n" in text
    assert "[[jax/_src/pallas/tpu_info.py::get_device_kind|one function]]" in text
    # reader check: no error, and exactly the marked notes, the surest first.
    code, report = _check(root, capsys)
    assert code == 1 and report["counts"]["error"] == 0
    marked = [r["note"] for r in report["review"]]
    assert sorted(marked) == sorted(["clip", "note-changed", "note-orphaned", "note-quote"])
    assert [p["note"] for p in report["problems"]] == marked
    confidences = [r["confidence"] for r in report["review"]]
    assert confidences == sorted(confidences, reverse=True)


def test_the_move_back_to_the_older_release(moved, capsys):
    root = moved
    assert main(["-C", str(root), "diff", "--apply", "--no-claims"]) == 1
    for nid in ("clip", "note-changed", "note-quote"):
        assert main(["-C", str(root), "accept", nid]) == 0
    git(root, "commit", "-qam", "moved to v1")
    assert main(["-C", str(root), "pin", "jax", "--to", "v0"]) == 0
    capsys.readouterr()
    assert main(["-C", str(root), "diff", "--apply", "--no-claims"]) == 1
    notes = _notes(root)
    assert (notes["chip"].path, notes["kind"].path) == ("jax/_src/pallas/mosaic/tpu_info.py",) * 2
    assert (notes["clip"].symbol, tuple(notes["clip"].lines or ())) == ("step", (2, 4))
    assert notes["warm"].symbol == "warmup"
    assert notes["note-moved"].line == 13 and notes["note-moved"].review is None
    (page,) = [a for a in load_articles(root) if a.slug == "layer"]
    assert page.reads[0].path == "jax/_src/pallas/mosaic/tpu_info.py"
    assert "gradients" not in page.reads[1].symbols
    code, report = _check(root, capsys)
    assert code == 1 and report["counts"]["error"] == 0
    assert {p["note"] for p in report["problems"]} == {r["note"] for r in report["review"]}
    # deleted_fn is back at v0: the orphan's mark, never cleared, still asks for a reading.
    assert "note-orphaned" in {r["note"] for r in report["review"]}


def test_a_claim_whose_outcome_changed_marks_its_note_even_on_unchanged_code(moved, capsys):
    from reader.atomic import atomic_write_all
    from reader.cache import Cache
    from reader.corpus import Corpus, Project
    from reader.errors import Location
    from reader.move.apply import apply_proposals
    from reader.move.changes import ClaimChange
    from reader.move.compare import diff_sides
    from reader.move.notes import NoteChange
    from reader.opening import load_side

    root = moved
    old = load_side(root, "HEAD:pins.toml")
    report = diff_sides(root, old, load_side(root, str(root / "pins.toml")), Cache())
    proposals = {c.note: c.proposal for c in report.changes
                 if isinstance(c, NoteChange) and c.proposal is not None}
    assert not proposals["note-moved"].marked  # its code moved unchanged
    claim = ClaimChange(status="changed", note="note-moved", where=Location("a.yaml", 3),
                        source="moved_fn(1)", old="2", new="3")
    done = apply_proposals(root, load_articles(root), proposals,
                           Corpus.open(Project(root, old.pins, old.locks), Cache()),
                           Corpus.open(Project.load(root), Cache()), [claim])
    atomic_write_all(done.files)
    assert "note-moved" in done.marked
    review = _notes(root)["note-moved"].review
    assert review is not None and review.claim is not None
    assert (review.claim.source, review.claim.old, review.claim.new) == ("moved_fn(1)", "2", "3")
    assert review.reason == "its claim's outcome changed: >>> moved_fn(1) gives '3', not '2'"
    assert review.confidence == 1.0


def test_a_link_whose_definition_is_gone_is_named_at_its_line(moved, capsys):
    layer = moved / "annotations" / "layer.yaml"
    layer.write_text(layer.read_text().replace(
        "|one function]].\n", "|one function]];\n  [[jax/_src/pallas/train.py::legacy]] is gone.\n"))
    assert main(["-C", str(moved), "diff", "--apply", "--no-claims"]) == 1
    err = capsys.readouterr().err
    assert ("annotations/layer.yaml:6: link [[jax/_src/pallas/train.py::legacy]] leads nowhere at "
            "the new pins ('legacy' is not defined there at the new pins, and no definition is "
            "surely it); rewrite or remove it ('reader check' reports it until then)") in err
    assert "get_device_kind]] leads nowhere" not in err  # followed, as before
    code, report = _check(moved, capsys)
    assert code == 2 and [p["line"] for p in report["problems"]
                          if "legacy" in p["message"]] == [6]
