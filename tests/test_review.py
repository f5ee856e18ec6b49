"""The review of a pin move without a browser: what it gathers on a project mid-move, its YAML
edits (comments and order kept), its actions (exactly the intended bytes, through the journaled
writer), and the requests it refuses."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from reader.annotations import check as checking
from reader.annotations.accept import edit_notes
from reader.annotations.anchor import fingerprint
from reader.annotations.model import Severity
from reader.cache import Cache, blob_sha
from reader.corpus import Corpus, Project
from reader.model import Span
from reader.render.figures.registry import FIGURES
from reader.review.act import Action, parse_action
from reader.review.gather import gather
from reader.review.model import from_json
from reader.review.rows import rows, windows
from reader.review.web import TOKEN_HEADER, ReviewSite
from tests.conftest import git
from tests.review_project import CORE_V0, CORE_V1, Moved, accepted_project, moved_project
from tests.small_project import MIRROR

PORT = 8123
HOST = f"127.0.0.1:{PORT}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Moved:
    return moved_project(tmp_path_factory.mktemp("moved"))


@pytest.fixture
def moved(built: Moved, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Moved:
    """A copy of the project mid-move, with its cache (and its git history)."""
    small = built.small.copy(tmp_path)
    monkeypatch.setenv("READER_CACHE", str(small.cache))
    monkeypatch.setenv(MIRROR, str(small.upstream))
    return Moved(small, built.v0, built.v1)


def _check(root: Path) -> tuple[checking.CheckReport, Corpus]:
    cache = Cache()
    corpus = Corpus.open(Project.load(root), cache)
    return checking.check(root, lambda: corpus, checking.computed_facts, cache,
                          figures=FIGURES), corpus


def _flagged(root: Path) -> list[str]:
    report, _ = _check(root)
    return [p.note for p in report.problems
            if p.note and p.severity in (Severity.FINDING, Severity.NOTICE)]


def _site(moved: Moved) -> ReviewSite:
    """The review's routes for `moved`, its state gathered as reader serve gathers it."""
    report, corpus = _check(moved.root)
    review = gather(moved.root, moved.root / "site", report, corpus)
    state = moved.root.parent / "review.json"
    state.write_text(json.dumps(review.to_json()))
    return ReviewSite(moved.root, state, PORT, token="t0ken")


def _headers(**extra: str) -> dict[str, str]:
    return {"host": HOST, "origin": f"http://{HOST}", "sec-fetch-site": "same-origin",
            "content-type": "application/json", TOKEN_HEADER.lower(): "t0ken", **extra}


def _post(site: ReviewSite, body: dict, **headers: str) -> tuple[int, dict]:
    reply = site.post("/review/api/act", _headers(**headers), json.dumps(body).encode())
    return reply.status, json.loads(reply.body)


def _digest(moved: Moved) -> str:
    return blob_sha((moved.root / "annotations" / "tour.yaml").read_bytes())


# ---- what it gathers


def test_a_move_in_progress_shows_every_flagged_note_surest_first_with_both_sides(moved):
    report, corpus = _check(moved.root)
    review = gather(moved.root, moved.root / "site", report, corpus)
    assert review.active and review.why.startswith("the pins differ from HEAD's (small ")
    assert review.old == f"small {moved.v0[:7]}" and review.new == f"small {moved.v1[:7]}"
    assert review.move == f"small {moved.v0[:7]} → {moved.v1[:7]}"
    assert [s.id for s in review.screens] == ["tour-call", "tour-spec", "tour-init", "tour-grid"]
    assert [s.status for s in review.screens] == ["moved", "stale", "stale", "stale"]
    call, spec, init, grid = review.screens
    assert call.confidence > spec.confidence > grid.confidence
    assert (call.old.span, call.new.span) == ((4, 5), (6, 7))
    assert [s.acceptable for s in review.screens] == [True, True, True, False]
    # the grid's quote left its lines: no new span, the re-anchoring starts nowhere
    assert grid.new.span is None and grid.old.span == (18, 18)
    assert grid.pick == (22, 22)  # the old line, followed through the diff
    assert "quote 'self.grid = grid' is not within lines [5, 5]" in grid.reason
    # the side-by-side rows: the new parameter is marked inside the changed line
    by_new = {r.new: r for r in init.rows}
    changed = by_new[19]
    assert (changed.kind, changed.old) == ("changed", 16)
    line = init.new.lines[19 - init.new.first]
    assert [line[a:b] for a, b in changed.new_marks] == [", index_map=None"]
    assert by_new[21].kind == "added" and init.new.span == (19, 22)
    assert init.file == "annotations/tour.yaml" and init.digest == _digest(moved)
    assert from_json(json.loads(json.dumps(review.to_json()))) == review


def test_no_move_no_review(tmp_path, monkeypatch):
    moved = accepted_project(tmp_path)
    monkeypatch.setenv("READER_CACHE", str(moved.small.cache))
    report, corpus = _check(moved.root)
    review = gather(moved.root, moved.root / "site", report, corpus)
    assert not review.active and review.screens == ()
    assert review.why.startswith("no move is in progress")


def test_the_windows_line_up_and_the_rows_show_each_shared_line_once():
    old = ["a", "", "", "def f():", "  return 1"]
    new = ["a", "", "B = 2", "", "", "def f():", "  return 1"]
    (of, ol), (nf, nl) = windows(len(old), (4, 5), len(new), (6, 7))
    assert (of, ol, nf, nl) == (1, 5, 3, 7)
    shown = rows(old, new, (of, ol), (nf, nl))
    assert [(r.old, r.new, r.kind) for r in shown] == [
        (1, 1, "same"), (None, 2, "added"), (None, 3, "added"), (2, 4, "same"), (3, 5, "same"),
        (4, 6, "same"), (5, 7, "same")]


# ---- the YAML edits

YAML = """title: x
notes:
  # first
  - id: a
    symbol: X
    # kept
    body: |
      Line one.

      Line two.

    # after the body
    lines: [1, 2]
  - id: b
    body: plain words
"""


def test_an_edited_body_is_a_literal_block_and_every_other_byte_stays():
    out = edit_notes(YAML, {0: {"body": "New one.\n\nNew *two*.\n"}}, "x.yaml")
    assert out == YAML.replace("Line one.\n\n      Line two.", "New one.\n\n      New *two*.")
    out = edit_notes(YAML, {1: {"body": "Two\nlines: yes"}}, "x.yaml")
    assert out == YAML.replace("    body: plain words\n", "    body: |-\n      Two\n      lines: yes\n")
    out = edit_notes(YAML, {1: {"body": "one line: quoted"}}, "x.yaml")
    assert out == YAML.replace("plain words", '"one line: quoted"')


def test_an_action_is_checked_before_anything_is_read():
    assert parse_action({"action": "accept", "note": "n", "digest": "d"}) == Action("accept", "n", "d")
    assert parse_action({"action": "reanchor", "note": "n", "digest": "d",
                         "lines": [3, 5]}).lines == (3, 5)
    for bad in ({"action": "delete", "note": "n", "digest": "d"},
                {"action": "edit", "note": "n", "digest": "d", "body": "  "},
                {"action": "reanchor", "note": "n", "digest": "d", "lines": [5, 3]},
                {"action": "reanchor", "note": "n", "digest": "d", "lines": ["1", 2]}, []):
        with pytest.raises(ValueError):
            parse_action(bad)


# ---- the actions, through the routes


def expected_after_review(before: str) -> str:
    """The annotation file once tour-spec is accepted, tour-init edited and tour-grid re-anchored
    on line 22 at v1: their fingerprints and lines, the new words and the new anchor; nothing
    else (the comments stay)."""
    lines = CORE_V1.split("\n")
    fp = {name: fingerprint(lines, Span(a, b))
          for name, (a, b) in {"spec": (7, 14), "init": (19, 22), "grid": (22, 22)}.items()}
    out = before.replace('''
    fingerprint: "984c252279c6"
    line: 5
''', f'''
    fingerprint: "{fp['spec']}"
    line: 7
''')
    out = out.replace('''      The mapping keeps its spec and grid.
    fingerprint: "add10af806ee"
    line: 16
''', f'''      The mapping keeps its spec, grid and index map.
    fingerprint: "{fp['init']}"
    line: 19
''')
    return out.replace('''    symbol: BlockMapping
    lines: [5, 5]
    quote: "self.grid = grid"
    body: The grid is kept as given.
    fingerprint: "ff3ed7a24a27"
    line: 18
''', f'''    symbol: BlockMapping.__init__
    lines: [4, 4]
    quote: "self.grid = grid"
    body: The grid is kept as given.
    fingerprint: "{fp['grid']}"
    line: 22
''')


def test_accept_edit_and_reanchor_write_exactly_those_changes(moved):
    before = moved.tour()
    assert "# The grid, by its quote." in before and before.count("fingerprint:") == 4
    expected = expected_after_review(before)
    gone = [line for line in difflib.unified_diff(before.splitlines(), expected.splitlines(), n=0)
            if line.startswith("-") and not line.startswith("---")]
    assert gone == ['-    fingerprint: "984c252279c6"', "-    line: 5",
                    "-      The mapping keeps its spec and grid.", '-    fingerprint: "add10af806ee"',
                    "-    line: 16", "-    symbol: BlockMapping", "-    lines: [5, 5]",
                    "-    line: 18"]  # the grid's line is the same code: the same fingerprint
    site = _site(moved)
    digest = _digest(moved)
    assert _post(site, {"action": "accept", "note": "tour-spec", "digest": digest}) == (
        200, {"ok": True, "message": "accepted tour-spec (annotations/tour.yaml; line 7)",
              "digest": _digest(moved)})
    # the next screens were read before that write: still good (it was the review's own)
    code, said = _post(site, {"action": "edit", "note": "tour-init", "digest": digest,
                              "body": "The mapping keeps its spec, grid and index map."})
    assert (code, said["message"]) == (200, "saved tour-init (annotations/tour.yaml; line 19)")
    code, said = _post(site, {"action": "reanchor", "note": "tour-grid", "digest": digest,
                              "lines": [22, 22]})
    assert (code, said["message"]) == (200, "re-anchored tour-grid (annotations/tour.yaml; line 22)")
    after = moved.tour()
    assert after == expected, "".join(difflib.unified_diff(expected.splitlines(True),
                                                           after.splitlines(True)))
    assert _flagged(moved.root) == ["tour-call"]
    assert not (moved.root / "annotations" / ".reader-journal.json").exists()


def test_accept_refuses_a_note_that_does_not_anchor(moved):
    site = _site(moved)
    before = moved.tour()
    code, said = _post(site, {"action": "accept", "note": "tour-grid", "digest": _digest(moved)})
    assert code == 422 and said["message"].startswith("note 'tour-grid' is stale: quote ")
    assert said["message"].endswith("re-anchor it (pick its lines on the new code)")
    code, said = _post(site, {"action": "reanchor", "note": "tour-grid", "digest": _digest(moved),
                              "lines": [3, 3]})
    assert (code, said["message"]) == (422, "the picked lines are blank; pick the code the note "
                                            "is about")
    assert moved.tour() == before


def test_a_file_changed_on_disk_turns_the_review_read_only_until_gathered_again(moved):
    site = _site(moved)
    tour = moved.root / "annotations" / "tour.yaml"
    screen_digest = _digest(moved)
    edited = moved.tour().replace("The caller.", "The caller, by hand.")
    tour.write_text(edited)
    code, said = _post(site, {"action": "accept", "note": "tour-spec", "digest": screen_digest})
    assert (code, said["message"]) == (409, (
        "annotations/tour.yaml changed on disk since the review read it; the review is read-only "
        "until reader serve has read it again"))
    assert moved.tour() == edited
    site = _site(moved)  # reader serve reads the files again after they change
    code, said = _post(site, {"action": "accept", "note": "tour-spec", "digest": _digest(moved)})
    assert code == 200 and "The caller, by hand." in moved.tour()


def test_requests_without_the_token_from_another_origin_or_host_are_refused(moved):
    site = _site(moved)
    before = moved.tour()
    body = {"action": "accept", "note": "tour-spec", "digest": _digest(moved)}
    refusals = {
        "no token": _post(site, body, **{TOKEN_HEADER.lower(): ""}),
        "another token": _post(site, body, **{TOKEN_HEADER.lower(): "guess"}),
        "another origin": _post(site, body, origin="http://evil.example"),
        "another port": _post(site, body, origin="http://127.0.0.1:9"),
        "another site": _post(site, body, **{"sec-fetch-site": "cross-site"}),
        "a rebound host name": _post(site, body, host="evil.example:8123"),
        "a form": _post(site, body, **{"content-type": "text/plain"}),
    }
    assert {k: v[0] for k, v in refusals.items()} == {
        "no token": 403, "another token": 403, "another origin": 403, "another port": 403,
        "another site": 403, "a rebound host name": 403, "a form": 415}
    assert refusals["another origin"][1]["message"] == (
        "refused: a request from a page of another origin (http://evil.example)")
    assert refusals["no token"][1]["message"].startswith("refused: the request lacks this run's token")
    assert site.get("/review/api/state", _headers(**{TOKEN_HEADER.lower(): ""})).status == 403
    assert moved.tour() == before
    page = site.get("/review/", {"host": HOST})
    assert page.status == 200 and b'<meta name="reader-token" content="t0ken">' in page.body
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert site.get("/review/", {"host": "evil.example:8123"}).status == 403


def test_only_annotation_files_are_written(moved):
    site = _site(moved)
    state = json.loads(site.state.read_text())
    state["screens"][1]["file"] = "pins.toml"
    site.state.write_text(json.dumps(state))
    before = (moved.root / "pins.toml").read_bytes()
    code, said = _post(site, {"action": "accept", "note": state["screens"][1]["id"],
                              "digest": blob_sha(before)})
    assert (code, said["message"]) == (422, "pins.toml is not an annotation file")
    assert (moved.root / "pins.toml").read_bytes() == before


def test_a_marked_note_shows_its_mark_and_accept_removes_it(moved):
    """After `reader diff --apply` (the pins committed): the mark's old code, confidence and
    reason; Accept stamps the note and removes the mark, comments and order kept."""
    git(moved.root, "commit", "-qam", "the pins at v1")
    tour = moved.root / "annotations" / "tour.yaml"
    was = {"path": "pkg/core.py", "lines": [5, 11], "blob": blob_sha(CORE_V0.encode()),
           "commit": moved.v0}
    mark = {"reason": "BlockSpec gained a field", "confidence": 0.97, "was": was}
    unmarked = moved.tour()
    tour.write_text(edit_notes(unmarked, {0: {"review": mark}}, "annotations/tour.yaml"))
    assert '    review:\n      reason: "BlockSpec gained a field"\n' in moved.tour()
    site = _site(moved)
    review = site.review()
    assert review.active and review.why == "1 note marked for re-reading by 'reader diff --apply'"
    first = review.screens[0]
    assert (first.id, first.confidence, first.reason) == ("tour-spec", 0.97, "BlockSpec gained a field")
    assert first.old.label == f"was {moved.v0[:7]}" and first.old.span == (5, 11)
    assert first.old.lines[5 - first.old.first] == "@dataclasses.dataclass(frozen=True)"
    assert [r.new for r in first.rows if r.kind == "added"] == [3, 4, 11]
    code, said = _post(site, {"action": "accept", "note": "tour-spec", "digest": _digest(moved)})
    assert code == 200, said
    after = moved.tour()
    assert "review:" not in after and "# The spec: its words hold" in after
    assert "tour-spec" not in _flagged(moved.root)


def test_several_notes_are_accepted_at_once_or_none_is(moved):
    """Shift+A's request: the notes whose code moved unchanged, one write for all their files;
    a note that cannot be accepted refuses the whole request."""
    site = _site(moved)
    before = moved.tour()
    code, said = _post(site, {"action": "accept", "notes": ["tour-call", "tour-grid"]})
    assert (code, said["message"]) == (422, "note 'tour-grid' is stale: quote 'self.grid = grid' is "
                                            "not within lines [5, 5] of 'BlockMapping' (it is at "
                                            "relative lines [6, 6]); re-anchor it (pick its lines "
                                            "on the new code)")
    assert moved.tour() == before
    code, said = _post(site, {"action": "accept", "notes": ["tour-call", "tour-spec"]})
    assert (code, said["message"]) == (200, "accepted 2 notes in 1 file")
    assert _flagged(moved.root) == ["tour-init", "tour-grid"]
    assert moved.tour().count('line: 6\n') == 1  # tour-call's new line


def test_after_reader_diff_apply_the_review_shows_its_marks_and_accept_clears_them(moved):
    """The placement's marks drive the review: its confidence, reason and old place; Accept
    records the note where --apply put it and removes the mark: reader check is clean."""
    from reader.cli import main

    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(moved.root)
        assert main(["diff", "--apply", "--no-claims"]) == 1  # notes for a person
    site = _site(moved)
    review = site.review()
    assert [(s.id, s.status) for s in review.screens] == [("tour-spec", "ok"), ("tour-init", "ok")]
    spec, init = review.screens
    assert spec.confidence == 1.0 and spec.reason.startswith("its lines followed the code they held")
    assert (spec.old.label, spec.old.span, spec.new.span) == (f"was {moved.v0[:7]}", (5, 11), (7, 14))
    assert init.confidence < spec.confidence and init.acceptable
    code, said = _post(site, {"action": "accept", "notes": ["tour-spec", "tour-init"]})
    assert (code, said["message"]) == (200, "accepted 2 notes in 1 file")
    assert "review:" not in moved.tour() and _flagged(moved.root) == []
