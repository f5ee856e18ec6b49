"""`reader diff` on synthetic moves in a temporary git repo: notes, symbols, rules, the three printers."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from reader.annotations import load_articles, resolve
from reader.cache import Cache
from reader.cli import main
from reader.corpus import Corpus, Project
from reader.errors import Location
from reader.extract.fact import Fact, Facts, Unknown
from reader.move.changes import DiffReport, FactChange, FactsUncomputed, NoteChange, PinChange
from reader.move.comment import markdown
from reader.move.compare import diff_sides
from reader.move.printers import PRINTERS
from reader.opening import load_side
from tests.conftest import REPO_ROOT, git
from tests.diff_project import ANNOTATION, make_demo


def _render(text: str) -> str:
    """HTML as a CommonMark renderer with tables (GitHub's flavour) makes of a PR comment."""
    return MarkdownIt("commonmark").enable("table").render(text)


@pytest.fixture
def moved(tmp_path, cache, monkeypatch):
    """The demo project after `reader pin jax --to v1`, uncommitted."""
    upstream, root = make_demo(tmp_path, monkeypatch)
    assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
    return upstream, root


def _json(capsys, root: Path, *argv: str, code: int = 1) -> dict:
    capsys.readouterr()
    assert main(["-C", str(root), "diff", *argv, "--format", "json"]) == code
    return json.loads(capsys.readouterr().out)


def _notes(report: dict) -> dict[str, dict]:
    return {c["note"]: c for c in report["changes"] if c["section"] == "notes"}


def test_each_note_gets_its_fate(moved, capsys):
    _, root = moved
    notes = _notes(_json(capsys, root))
    assert {k: v["status"] for k, v in notes.items()} == {
        "note-moved": "moved", "note-changed": "changed", "note-orphaned": "orphaned",
        "note-quote": "moved", "note-ambiguous": "ambiguous", "note-unchanged": "unchanged"}
    # moved_fn went down by 6 lines (a constant and a function inserted above it).
    assert (notes["note-moved"]["old"], notes["note-moved"]["new"]) == (
        {"start": 13, "end": 15}, {"start": 19, "end": 21})
    assert notes["note-changed"]["diff"].splitlines()[2:] == [
        "@@ -9 +15 @@", "-    total = a + b", "+    total = a * b"]
    assert "symbol 'deleted_fn' not found" in notes["note-orphaned"]["detail"]
    assert "quote 'y = x * 2' matches 2 places" in notes["note-ambiguous"]["detail"]
    assert [n["needs_person"] for n in notes.values()].count(True) == 3
    # Where each goes at v1: the changed line where it is, the quote that became ambiguous in
    # the function it was in (unchanged: no person needed), the deleted function nowhere.
    proposed = {k: v["proposal"] for k, v in notes.items()}
    assert proposed["note-changed"]["span"] == {"start": 15, "end": 15}
    assert proposed["note-changed"]["how"] == "realigned"
    assert proposed["note-ambiguous"]["span"] == {"start": 20, "end": 20}
    assert (proposed["note-ambiguous"]["symbol"], proposed["note-ambiguous"]["lines"]) == (
        "moved_fn", None)
    assert proposed["note-ambiguous"]["how"] == "moved" and not notes["note-ambiguous"]["needs_person"]
    assert proposed["note-orphaned"]["span"] is None
    assert proposed["note-orphaned"]["reason"].startswith("its code is gone")
    assert proposed["note-moved"]["how"] == "moved" and proposed["note-moved"]["confidence"] == 1


def test_a_placed_note_in_changed_code_is_flagged_for_a_reread(moved, capsys):
    """note-quote's own line is unchanged, but `helper` around it gained a parameter: its place
    is certain, and a person re-reads it there."""
    _, root = moved
    notes = _notes(_json(capsys, root))
    assert notes["note-quote"]["context"] == "helper" and notes["note-quote"]["needs_person"]
    assert notes["note-quote"]["proposal"]["confidence"] == 1.0
    assert notes["note-moved"]["context"] == "" and notes["note-unchanged"]["context"] == ""
    assert main(["-C", str(root), "diff"]) == 1
    out = capsys.readouterr().out
    assert "1 placed note in changed code (re-read advised)" in out.splitlines()[0]
    assert "the code around it in helper changed: re-read the note" in out
    assert main(["-C", str(root), "diff", "--format", "markdown"]) == 1
    assert "| `note-quote` |" in capsys.readouterr().out.split("(re-read advised):")[1]


def test_symbols_rules_and_pins(moved, capsys):
    upstream, root = moved
    report = _json(capsys, root)
    symbols = {(c["path"].rsplit("/", 1)[-1], c["qualname"], c["status"])
               for c in report["changes"] if c["section"] == "symbols"}
    assert symbols == {
        ("core.py", "NEW_CONSTANT", "added"), ("core.py", "inserted", "added"),
        ("core.py", "twin", "added"),
        ("core.py", "helper", "signature"), ("core.py", "deleted_fn", "removed"),
        # Annotated symbols whose code changed; moved_fn moved unchanged, so it is not listed.
        ("core.py", "helper", "body"), ("core.py", "kernel", "body"),
        ("primitives.py", "get_p", "added"),
        ("lowering.py", "_get_rule", "added"), ("lowering.py", "_swap_rule", "removed")}
    sig = next(c for c in report["changes"] if c.get("status") == "signature")
    assert (sig["old_signature"], sig["new_signature"]) == ("def helper(x)", "def helper(x, y=0)")
    rules = [(c["backend"], c["primitive"], c["status"]) for c in report["changes"]
             if c["section"] == "rules"]
    assert rules == [("triton", "jax._src.pallas.primitives.get_p", "added"),
                     ("triton", "jax._src.pallas.primitives.swap_p", "removed")]
    pin = next(c for c in report["changes"] if c["section"] == "pins")
    assert pin["explain"] == f"pin jax moved {upstream.commits[0][:7]} (v0) -> {upstream.commits[1][:7]} (v1)"
    assert report["exit_code"] == 1 and report["needs_person"] == 3


def test_text_and_markdown_print_the_same_records(moved, capsys):
    _, root = moved
    records = _json(capsys, root)["changes"]
    assert main(["-C", str(root), "diff"]) == 1
    text = capsys.readouterr().out
    for title in ("Pins", "Notes:", "Files:", "Symbols:", "Lowering rule tables:", "Facts:"):
        assert re.search(rf"^{re.escape(title)}", text, re.M), title
    for c in records:
        if c["section"] in ("notes", "rules", "pins") and c["status"] != "unchanged":
            assert c["explain"] in text
    assert main(["-C", str(root), "diff", "--format", "markdown"]) == 1
    md = capsys.readouterr().out
    html = _render(md)
    # pins, notes that need a person, notes in changed code, moved notes, rules, cited facts,
    # the other facts
    assert html.count("<table>") == 7
    assert "|---|" not in html and "```" not in html  # every table and fence was recognised
    assert html.count("<h3>") == 5 and "<h2>reader diff: <code>HEAD:pins.toml</code>" in html
    assert '<code class="language-diff">' in html and "-    total = a + b" in html
    assert "compare/" in html and "<details>" in md and md.count("<details>") == md.count("</details>")
    assert "**changed**" in md and "| `note-moved` | `annotations/demo.yaml:12` | moved | 13-15 | 19-21 |" in md


def test_a_long_report_is_cut_to_fit_a_comment_by_priority(moved, capsys):
    _, root = moved
    report = diff_sides(root, load_side(root, "HEAD:pins.toml"),
                        load_side(root, str(root / "pins.toml")), Cache())
    whole = markdown(report)
    assert "Left out" not in whole
    cut = markdown(report, limit=len(whole) - 200)
    assert len(cut) <= len(whole) - 200
    # The body diffs of annotated symbols go first; what needs a person stays.
    assert "_Left out to fit a comment: 1 body diff; `reader diff --format json` has everything._" in cut
    assert "| `note-changed` |" in cut and "-    total = a + b" in cut
    tiny = markdown(report, limit=2500)
    assert len(tiny) <= 2500 and "### Facts" in tiny and "**3 notes need a person; 1 placed note in changed code (re-read advised).**" in tiny
    assert "1 table of notes that need a person" not in tiny and "| `note-changed` |" in tiny
    notices = [line for line in tiny.splitlines() if line.startswith("_Left out")]
    assert len(notices) == 2 and "body diff" in notices[0] and "symbol list" in notices[0]
    assert "| `note-moved` |" in tiny and "1 fact table" in tiny  # moved notes outrank symbols


def test_apply_places_every_note_and_check_lists_exactly_the_marked_ones(moved, capsys):
    _, root = moved
    path = root / "annotations" / "demo.yaml"
    before = path.read_text()
    assert main(["-C", str(root), "diff", "--apply"]) == 1
    assert ("reader diff --apply: 4 notes placed anew; 3 marked for a person to re-read ('reader "
            "check' lists them, the surest first), 1 of them without a place"
            in capsys.readouterr().err)
    after = path.read_text()
    assert "# a comment that --apply must keep" in after
    added = [line.strip() for line in after.splitlines() if line not in before.splitlines()]
    # note-moved's line, note-changed's stamp and mark, note-quote's line and mark,
    # note-ambiguous's symbol (its quote alone matches twice now) and stamp, note-orphaned's mark.
    assert [a for a in added if a.startswith("line:")] == ["line: 19", "line: 15", "line: 11",
                                                           "line: 20"]
    assert sum(a == "review:" for a in added) == 3
    notes = {n.id: n for a in load_articles(root) for n in a.notes}
    assert (notes["note-ambiguous"].symbol, notes["note-ambiguous"].lines) == ("moved_fn", None)
    marks = {k: n.review for k, n in notes.items()}
    assert {k for k, v in marks.items() if v} == {"note-changed", "note-orphaned", "note-quote"}
    orphan = marks["note-orphaned"]
    assert orphan is not None and orphan.confidence == 0
    assert (orphan.was.path, tuple(orphan.was.lines)) == ("jax/_src/pallas/core.py", (18, 19))
    assert len(orphan.was.blob) == 40 and len(orphan.was.commit) == 40
    assert "its code is gone" in orphan.reason and "nearest: " in orphan.reason
    # reader check: exactly the marked notes, the surest first, each once.
    capsys.readouterr()
    assert main(["-C", str(root), "check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split("note '")[1].split("'")[0] for line in out] == [
        "note-changed", "note-quote", "note-orphaned"]
    assert "(100% sure of its place): its lines followed the code they held" in out[0]
    assert "(0% sure of its place): its code is gone" in out[2] and "its anchor: " in out[2]
    # Everything else is placed: the anchors resolve at the new pin.
    corpus = Corpus.open(Project.load(root), Cache())
    statuses = {r.note.id: r.status.value for a in load_articles(root) for r in resolve(a, corpus)}
    assert statuses == {"note-moved": "ok", "note-quote": "ok", "note-changed": "ok",
                        "note-orphaned": "orphaned", "note-ambiguous": "ok", "note-unchanged": "ok"}
    # Accepting a marked note after re-reading it clears it from the list.
    assert main(["-C", str(root), "accept", "note-quote"]) == 0
    capsys.readouterr()
    assert main(["-C", str(root), "check"]) == 1
    assert "note-quote" not in capsys.readouterr().out


def test_only_moved_notes_exit_0(moved, capsys):
    _, root = moved
    kept = ANNOTATION.split("  - id: note-changed")[0]
    (root / "annotations" / "demo.yaml").write_text(kept)
    notes = _notes(_json(capsys, root, code=0))
    assert {k: v["status"] for k, v in notes.items()} == {"note-moved": "moved"}


def test_two_revisions_and_explicit_files(moved, capsys, tmp_path):
    _, root = moved
    git(root, "commit", "-qam", "moved to v1")
    same = _json(capsys, root, "HEAD:pins.toml", "HEAD:pins.toml", code=0)
    assert [c["section"] for c in same["changes"]] == ["notes"] * 6
    back = _json(capsys, root, "HEAD:pins.toml", "HEAD~1:pins.toml")
    assert _notes(back)["note-moved"]["status"] == "moved"
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("pins.toml", "pins.lock"):
        (copy / name).write_text(git(root, "show", f"HEAD~1:{name}") + "\n")
    files = _json(capsys, root, str(copy / "pins.toml"))
    assert files["old"] == str(copy / "pins.toml") and _notes(files)["note-changed"]["status"] == "changed"


@pytest.mark.parametrize("argv, message", [
    (["no-such-rev:pins.toml"], "no-such-rev:pins.toml: cannot read it from git"),
    (["HEAD:missing.toml"], "HEAD:missing.toml: cannot read it from git"),
    (["does-not-exist.toml"], "does-not-exist.toml: file not found"),
    (["HEAD:pins.toml", "HEAD:pins.toml", "--apply"], "--apply records lines at the working tree's pins"),
])
def test_input_errors_exit_2(moved, capsys, monkeypatch, argv, message):
    _, root = moved
    monkeypatch.chdir(root)
    assert main(["diff", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reader: error: ") and message in err and "Traceback" not in err


def test_outside_a_git_repository_head_is_an_input_error(tmp_path, cache, capsys):
    (tmp_path / "pins.toml").write_text('[pins.x]\nrepo = "r"\ncommit = "' + "a" * 40 + '"\npaths = ["x"]\n')
    assert main(["-C", str(tmp_path), "diff"]) == 2
    assert "is not inside a git repository" in capsys.readouterr().err


def _facts(values: dict, *unknown: Unknown) -> Facts:
    return Facts(tuple(Fact(name, v, "") for name, v in values.items()), unknown)


def test_facts_name_the_prose_that_cites_them():
    from reader.annotations.load import load_file
    from reader.move.tables import diff_facts

    loaded = load_file(Path(__file__).parent / "fixtures" / "diff" / "facts-demo.yaml",
                       "annotations/facts-demo.yaml")
    assert loaded.article is not None, loaded.problems
    found = diff_facts(_facts({"rules.triton.count": 101, "corpus.files.count": 285,
                               "same": [1, 2]}),
                       _facts({"rules.triton.count": 102, "pallas_call.line": 1131, "same": [1, 2]}),
                       [loaded.article])
    changes = [c for c in found if isinstance(c, FactChange)]
    assert len(changes) == len(found) == 3
    assert [(c.name, c.old, c.new) for c in changes] == [
        ("corpus.files.count", "285", "(none)"), ("pallas_call.line", "(none)", "1131"),
        ("rules.triton.count", "101", "102")]
    cited = {c.name: [str(w) for w in c.cited_by] for c in changes}
    assert cited == {"corpus.files.count": [], "pallas_call.line": [],
                     "rules.triton.count": ["annotations/facts-demo.yaml:6",
                                            "annotations/facts-demo.yaml:11"]}
    report = DiffReport("a", "b", (PinChange(status="moved", pin="p", repo="r", old="1", new="2"),
                                   *changes))
    md = PRINTERS["markdown"](report)
    assert "| `rules.triton.count` | `101` | `102` | `annotations/facts-demo.yaml:6`, " in md
    assert not report.needs_person and report.exit_code == 0
    assert isinstance(changes[0], FactChange) and not isinstance(changes[0], NoteChange)


def test_a_changed_fact_names_the_prose_citing_it(moved, capsys):
    _, root = moved
    facts = {c["name"]: c for c in _json(capsys, root)["changes"] if c["section"] == "facts"}
    core = facts["lines.jax._src.pallas.core"]
    assert (core["old"], core["new"]) == ("19", "26")
    assert core["cited_by"] == [{"path": "annotations/demo.yaml", "line": 6}]
    only = facts["rules.only.triton.names"]
    assert (only["old"], only["new"], only["cited_by"]) == ('["load", "swap"]', '["get", "load"]', [])
    assert "rules.triton.count" not in facts  # one rule added, one removed
    assert main(["-C", str(root), "diff"]) == 1
    text = capsys.readouterr().out
    assert "fact lines.jax._src.pallas.core: 19 -> 26 (cited by annotations/demo.yaml:6)" in text
    assert "  cited by no prose (5):\n    corpus.lines.count: 48 -> 56\n" in text


SM90 = Location("tokamax/_src/ops/attention/pallas_mosaic_gpu_kernel_sm90.py", 150)


def test_facts_an_extractor_cannot_compute_are_a_change_for_a_person():
    from reader.annotations.load import load_file
    from reader.move.tables import diff_facts

    loaded = load_file(Path(__file__).parent / "fixtures" / "diff" / "facts-demo.yaml",
                       "annotations/facts-demo.yaml")
    assert loaded.article is not None, loaded.problems
    unknown = Unknown(("rules.**",), SM90, "cannot read the table")
    changes = diff_facts(_facts({"rules.triton.count": 101, "corpus.files.count": 285}),
                         _facts({"corpus.files.count": 286}, unknown), [loaded.article], "a", "b")
    # The facts it costs are not reported as gone; the failure is, with the prose citing them.
    assert [c.explain() for c in changes] == [
        "fact corpus.files.count: 285 -> 286 (cited by no prose)",
        f"facts rules.** cannot be computed at b ({SM90}: cannot read the table); cited by "
        "annotations/facts-demo.yaml:6, annotations/facts-demo.yaml:11; update the extractor"]
    report = DiffReport("a", "b", tuple(changes))
    assert isinstance(changes[1], FactsUncomputed) and report.needs_person == [changes[1]]
    assert report.exit_code == 1
    text = PRINTERS["text"](report)
    assert text.startswith("reader diff a -> b: 1 result that cannot be computed needs a person\n")
    assert "Facts: 1 changed, 0 cited by prose, 1 cannot be computed\n  facts rules.**" in text
    md = markdown(report, limit=600)
    assert (f"- **Cannot be computed** at `b`: `facts rules.**` (`{SM90}`: cannot read the table); "
            "cited by `annotations/facts-demo.yaml:6`, `annotations/facts-demo.yaml:11`; update "
            "the extractor.") in md
    assert json.loads(PRINTERS["json"](report))["changes"][1]["where"] == {
        "path": SM90.path, "line": 150}


def test_a_bug_in_the_facts_code_is_not_a_finding(moved):
    _, root = moved

    def failing(corpus):
        raise KeyError("jax._src.pallas.pallas_call")

    with pytest.raises(KeyError):
        diff_sides(root, load_side(root, "HEAD:pins.toml"), load_side(root, str(root / "pins.toml")),
                   Cache(), facts=failing)


def test_the_diff_command_offers_every_printer():
    from reader.commands.diff import FORMATS

    assert tuple(sorted(PRINTERS)) == FORMATS


SHARED = "jax/_src/pallas/shared.py"
"""A file whose v1 replaces each function by another on the very same line: an added and a removed
symbol share each line, which only the name orders."""


def _shared(prefix: str) -> str:
    return "".join(f"def {prefix}{i}(x):\n    return x\n\n\n" for i in range(8))


def test_diff_and_record_are_byte_identical_whatever_the_hash_seed(tmp_path, cache, monkeypatch):
    upstream, root = make_demo(tmp_path, monkeypatch, ({SHARED: _shared("gone_")},
                                                       {SHARED: _shared("new_")}))
    (root / "annotations" / "shared.yaml").write_text(
        "title: Shared\nslug: shared\nphase: 1\nkind: article\norder: 2\n"
        f"summary: One file.\nreads:\n  - path: {SHARED}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "reads shared.py")
    assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), READER_CACHE=str(cache.root),
               READER_MIRROR_JAX=upstream.url)

    def outputs(seed: str) -> list[bytes]:
        out = []
        for fmt in ("text", "markdown", "json"):
            done = subprocess.run([sys.executable, "-m", "reader", "diff", "HEAD:pins.toml", "--format",
                                   fmt, "--record", f"moves/{seed}-{fmt}.json"], cwd=root,
                                  capture_output=True, env={**env, "PYTHONHASHSEED": seed})
            assert done.returncode == 1, done.stderr
            out += [done.stdout, (root / "moves" / f"{seed}-{fmt}.json").read_bytes()]
        return out

    first, second = outputs("1"), outputs("2")
    assert b"new_0" in first[4] and b"gone_0" in first[5]
    assert first == second

