"""`reader accept`: only `fingerprint` and `line` change; comments, order and layout survive."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from reader.annotations.accept import DELETE, Stamp, edit_notes, stamp_notes
from reader.annotations.anchor import fingerprint
from reader.cli import main
from reader.errors import InputError
from reader.model import Span, split_lines
from tests.annotations_project import fixture, pin_project, write_annotation

ARTICLE = """\
# pallas_call, line by line.   (a comment the tool must keep)
slug: a          # key order is the author's: slug before title
title: 'T'
phase: 2
kind: article
order: 1
reads:
  - {path: jax/_src/pallas/pallas_call.py}
notes:
  # The impl rule.
  - body: |
      Jits the kernel call, then binds it.

      Two paragraphs.

    symbol: _pallas_call_impl       # body first, then the anchor
    id: impl

  - id: dce   # no fingerprint yet
    symbol: "_pallas_call_dce_rule"
    quote: >-
      del used_outs
    body: >
      Folded text
      over lines.
  - id: error
    symbol: _unsupported_lowering_error
    body: "Plain."
    fingerprint: "000000000000"   # stale on purpose
    line: 1
# trailing comment"""


def changed_lines(old: str, new: str) -> list[str]:
    return [d for d in difflib.ndiff(old.splitlines(), new.splitlines()) if d[:2] in ("- ", "+ ")]


def test_stamping_inserts_or_rewrites_only_the_two_fields():
    new = stamp_notes(ARTICLE, {0: Stamp("4d7d70938828", 61), 1: Stamp("abcdef012345", 78),
                                2: Stamp("86c9dc86aa3c", 110)})
    assert changed_lines(ARTICLE, new) == [
        '+     fingerprint: "4d7d70938828"', "+     line: 61",
        '+     fingerprint: "abcdef012345"', "+     line: 78",
        '-     fingerprint: "000000000000"   # stale on purpose',
        '+     fingerprint: "86c9dc86aa3c"   # stale on purpose', "-     line: 1", "+     line: 110"]
    lines = new.splitlines()
    # Inserted right after each note's last value, before blank lines and comments.
    assert lines[lines.index("    id: impl") + 1] == '    fingerprint: "4d7d70938828"'
    assert lines[lines.index("      over lines.") + 1] == '    fingerprint: "abcdef012345"'
    assert new.endswith("# trailing comment")
    # Stamping again with the same values changes nothing at all.
    assert stamp_notes(new, {0: Stamp("4d7d70938828", 61)}) == new


def test_stamping_the_last_note_of_a_file_without_final_newline():
    text = "title: T\nnotes:\n  - id: x\n    symbol: f\n    body: b"
    assert stamp_notes(text, {0: Stamp("0123456789ab", 3)}) == (
        text + '\n    fingerprint: "0123456789ab"\n    line: 3\n')


def test_a_flow_style_note_is_refused():
    text = "title: T\nnotes:\n  - {id: x, symbol: f, body: b}\n"
    with pytest.raises(InputError, match="cannot edit a note written in flow style"):
        stamp_notes(text, {0: Stamp("0123456789ab", 3)}, "annotations/a.yaml")


HEAD = ("title: T\nslug: a\nphase: 2\nkind: article\norder: 1\n"
        "reads:\n  - path: jax/_src/pallas/pallas_call.py\nnotes:\n")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("READER_CACHE", str(cache))
    root = tmp_path / "proj"
    pin_project(root, cache, "0.10.1")
    return root


def accept(root: Path, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["-C", str(root), "accept", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_accept_by_id_after_a_pin_move(project, capsys):
    path = write_annotation(project, "a", HEAD
                            + "  - id: impl  # moves\n    symbol: _pallas_call_impl\n    body: x\n"
                            + "  - id: gone\n    symbol: _PALLAS_USE_MOSAIC_GPU\n    body: y\n")
    code, out, _ = accept(project, capsys, "--all")
    old = split_lines(fixture("pallas_call", "0.10.1"))
    impl = old.index("def _pallas_call_impl(*args, **params):") + 1
    gone = old.index("_PALLAS_USE_MOSAIC_GPU = config.bool_state(") + 1
    assert code == 0
    assert out.splitlines() == [
        f"annotations/a.yaml:9: accepted note 'impl' (unfingerprinted): fingerprint "
        f"{fingerprint(old, Span(impl, impl + 8))}, line {impl}",
        f"annotations/a.yaml:12: accepted note 'gone' (unfingerprinted): fingerprint "
        f"{fingerprint(old, Span(gone, gone + 7))}, line {gone}"]
    before = path.read_text()
    pin_project(project, project.parent / "cache", "0.10.2")
    code, out, err = accept(project, capsys, "impl", "gone")
    assert code == 1
    assert out == (f"annotations/a.yaml:9: accepted note 'impl' (moved): fingerprint "
                   f"{fingerprint(old, Span(impl, impl + 8))}, line {impl - 1}\n")
    assert err.startswith("reader: cannot accept: annotations/a.yaml:14: note 'gone' is orphaned: ")
    assert err.endswith("\nreader accept: 1 accepted, 0 already ok, 1 refused\n")
    assert changed_lines(before, path.read_text()) == [f"-     line: {impl}", f"+     line: {impl - 1}"]


def test_accept_unknown_id_and_bad_arguments(project, capsys):
    write_annotation(project, "a", HEAD + "  - id: impl\n    symbol: _pallas_call_impl\n    body: x\n")
    code, _, err = accept(project, capsys, "imp")
    assert (code, err) == (2, "reader: error: no note with id 'imp' in annotations/ (did you "
                              "mean 'impl'?); 'reader check --format json' lists the note ids\n")
    code, _, err = accept(project, capsys)
    assert code == 2 and "name the notes to accept, or give --all or --moved" in err


def test_accept_writes_nothing_while_there_are_input_errors(project, capsys):
    good = write_annotation(project, "a", HEAD + "  - id: impl\n    symbol: _pallas_call_impl\n"
                                                 "    body: x\n")
    write_annotation(project, "b", "title: [\n")
    code, out, err = accept(project, capsys, "--all")
    assert (code, out) == (2, "")
    assert "annotations/b.yaml:2: malformed YAML" in err
    assert "fingerprint" not in good.read_text()


WAS = {"path": "jax/_src/pallas/core.py", "lines": [3, 9], "blob": "a" * 40, "commit": "b" * 40}


def test_editing_anchors_and_marks_keeps_every_other_byte():
    review = {"reason": "renamed: 'f' is now 'g'", "confidence": 0.85, "was": WAS}
    new = edit_notes(ARTICLE, {
        0: {"symbol": "_pallas_call_impl_new", "lines": [2, 4], "review": review},
        1: {"quote": DELETE, "symbol": "_dce", "path": "jax/_src/pallas/x.py"},
        2: {"fingerprint": "86c9dc86aa3c", "line": 7}})
    assert changed_lines(ARTICLE, new) == [
        "-     symbol: _pallas_call_impl       # body first, then the anchor",
        "+     symbol: _pallas_call_impl_new       # body first, then the anchor",
        "+     lines: [2, 4]",
        "+     review:",
        "+       reason: \"renamed: 'f' is now 'g'\"",
        "+       confidence: 0.85",
        "+       was:",
        "+         path: jax/_src/pallas/core.py",
        "+         lines: [3, 9]",
        f'+         blob: "{"a" * 40}"',
        f'+         commit: "{"b" * 40}"',
        "+     path: jax/_src/pallas/x.py",
        "+     symbol: _dce",
        '-     symbol: "_pallas_call_dce_rule"',
        "-     quote: >-",
        "-       del used_outs",
        '-     fingerprint: "000000000000"   # stale on purpose',
        '+     fingerprint: "86c9dc86aa3c"   # stale on purpose',
        "-     line: 1", "+     line: 7"]
    lines = new.splitlines()
    assert lines[lines.index("    symbol: _dce") - 1] == "    path: jax/_src/pallas/x.py"
    # A mark is rewritten in place, and removed with every line of it.
    again = edit_notes(new, {0: {"review": {**review, "confidence": 0.5}}})
    assert changed_lines(new, again) == ["-       confidence: 0.85", "+       confidence: 0.5"]
    assert edit_notes(again, {0: {"review": DELETE, "lines": DELETE,
                                  "symbol": "_pallas_call_impl"}}) == edit_notes(
        ARTICLE, {1: {"quote": DELETE, "symbol": "_dce", "path": "jax/_src/pallas/x.py"},
                  2: {"fingerprint": "86c9dc86aa3c", "line": 7}})


def test_removing_the_key_that_opens_a_note_is_refused():
    text = "title: T\nnotes:\n  - symbol: f\n    id: x\n    body: b\n"
    with pytest.raises(InputError, match="cannot remove `symbol`: it opens the note's item"):
        edit_notes(text, {0: {"symbol": DELETE}}, "annotations/a.yaml")


def test_accept_removes_the_mark_and_accept_moved_keeps_it(project, capsys):
    path = write_annotation(project, "a", HEAD + "  - id: impl\n    symbol: _pallas_call_impl\n"
                            "    body: x\n  - id: dce\n    symbol: _pallas_call_dce_rule\n    body: y\n")
    assert accept(project, capsys, "--all")[0] == 0
    accepted = path.read_text()
    review = {"reason": "the code changed", "confidence": 0.9, "was": WAS}
    path.write_text(edit_notes(accepted, {0: {"review": review}, 1: {"review": review}}))
    pin_project(project, project.parent / "cache", "0.10.2")
    code, out, _ = accept(project, capsys, "--moved")
    assert code == 0 and "re-read mark removed" not in out
    assert "review:" in path.read_text()
    code, out, err = accept(project, capsys, "impl")
    assert code == 0
    assert out.endswith("; re-read mark removed\n")
    assert err == "reader accept: 1 accepted, 0 already ok, 0 refused\n"
    text = path.read_text()
    assert text.count("review:") == 1 and text.index("review:") > text.index("id: dce")
    assert main(["-C", str(project), "check"]) == 1
    code, out, err = accept(project, capsys, "--all")
    assert code == 0 and "review:" not in path.read_text()
