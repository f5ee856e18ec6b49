"""The move record (`reader diff --record`) and its 'What changed' page, on the two-commit demo."""

from __future__ import annotations

import json
import re

import pytest

from reader.cli import main
from reader.editions import load_moves
from reader.errors import InputError
from reader.move.record import MoveRecord
from reader.render.changes.page import move_page
from tests.diff_project import make_demo


@pytest.fixture
def moved(tmp_path, cache, monkeypatch, capsys):
    """The demo after a finished move to v1: one note rewritten, one retired, one added."""
    upstream, root = make_demo(tmp_path, monkeypatch)
    assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
    yaml = root / "annotations" / "demo.yaml"
    text = yaml.read_text()
    text = text.replace("body: The sum.", "body: The sum, now doubled.")
    start = text.index("  - id: note-orphaned")
    text = text[:start] + text[text.index("  - id: note-quote"):]
    text += "  - id: note-new\n    symbol: inserted\n    body: New in v1.\n"
    yaml.write_text(text)
    main(["-C", str(root), "accept", "--all"])
    capsys.readouterr()
    return upstream, root


def _record(root, capsys) -> dict:
    out = root / "moves" / "v1.json"
    assert main(["-C", str(root), "diff", "HEAD:pins.toml", "--format", "json", "--record", str(out)]) in (0, 1)
    assert "reader diff --record" in capsys.readouterr().err
    return json.loads(out.read_text())


def test_the_record_gives_each_note_its_fate(moved, capsys):
    upstream, root = moved
    data = _record(root, capsys)
    fates = {f["note"]: f["fate"] for f in data["fates"]}
    assert fates == {
        "note-moved": "moved", "note-changed": "rewritten", "note-quote": "moved",
        "note-ambiguous": "unplaced", "note-unchanged": "unchanged", "note-new": "added",
        "note-orphaned": "retired"}
    moved_note = next(f for f in data["fates"] if f["note"] == "note-moved")
    assert moved_note["old_line"] < moved_note["new_line"]
    assert data["pins"] == [{"name": "jax", "repo": "https://example.invalid/jax",
                             "old": upstream.commits[0], "new": upstream.commits[1],
                             "old_release": "", "new_release": ""}]
    # `HEAD` is recorded as the commit it named, so the record keeps its meaning.
    assert re.fullmatch(r"[0-9a-f]{40}", data["old_rev"]) and data["old"] == data["old_rev"][:12] + ":pins.toml"
    sections = {c["section"] for c in data["changes"]}
    assert sections == {"symbols", "rules", "facts"}
    symbols = {(c["qualname"], c["status"]) for c in data["changes"] if c["section"] == "symbols"}
    assert {("deleted_fn", "removed"), ("inserted", "added")} <= symbols
    assert all("diff" not in c for c in data["changes"])


def test_record_needs_a_revision_for_the_old_annotations(moved, capsys):
    _, root = moved
    (root / "old.toml").write_text((root / "pins.toml").read_text())
    (root / "old.lock").write_text((root / "pins.lock").read_text())
    assert main(["-C", str(root), "diff", str(root / "old.toml"), "--record", "x.json"]) == 2
    assert "OLD must be REV:pins.toml" in capsys.readouterr().err


def test_the_page_links_live_notes_and_added_symbols(moved, capsys):
    _, root = moved
    _record(root, capsys)
    [(stem, record)] = load_moves(root)
    shown = {"articles/demo.md", "source/jax/_src/pallas/core.py.md"}
    page = move_page(stem, record, shown)
    assert page.src_uri == "changes/v1.md"
    assert page.title.startswith("What changed from jax ")
    html = page.html
    assert 'href="../articles/demo.html#note-note-moved"' in html
    # A retired note has nowhere to link.
    assert "<code>note-orphaned</code>" in html and "#note-note-orphaned" not in html
    assert 'href="../source/jax/_src/pallas/core.py.html#L' in html
    assert "<code>deleted_fn</code>" in html
    # After a later move of jax (back to v0), an added symbol's line is another commit's: no link.
    later = move_page(stem, record, shown, current={"tokamax"}).html
    assert "<code>inserted</code>" in later and "core.py.html#L" not in later
    # The rule table that gained and lost a primitive.
    assert "get_p" in html and "swap_p" in html


def test_a_broken_record_is_a_located_error(tmp_path):
    (tmp_path / "moves").mkdir()
    (tmp_path / "moves" / "x.json").write_text('{"version": 1,\n "old": ')
    with pytest.raises(InputError, match="not JSON") as e:
        load_moves(tmp_path)
    assert str(e.value.location) == "moves/x.json:2"
    (tmp_path / "moves" / "x.json").write_text('{"version": 99}')
    with pytest.raises(InputError, match="not a move record"):
        load_moves(tmp_path)


def test_record_round_trips():
    data = {"version": 1, "old": "a", "new": "b", "old_rev": "HEAD", "titles": {"s": "T"},
            "pins": [], "fates": [{"fate": "moved", "note": "n", "article": "s", "path": "p",
                                   "old_line": 1, "new_line": 2}], "changes": []}
    assert MoveRecord.from_json(data, "x").to_json() == data
