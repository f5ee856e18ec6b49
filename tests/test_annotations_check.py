"""`reader check` end to end through the CLI: each bad input with its message and exit code,
the statuses across a pin move, and the text, github and json formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from reader.annotations import check as checking
from reader.annotations.accept import edit_notes
from reader.annotations.load import schema
from reader.cli import main
from reader.errors import Location
from reader.extract.fact import Fact, Facts, Unknown
from tests.annotations_project import pin_project, write_annotation, write_kernel

HEAD = ("title: T\nslug: a\nphase: 2\nkind: article\norder: 1\n"
        "reads:\n  - path: jax/_src/pallas/pallas_call.py\n")
IMPL = "jax/_src/pallas/pallas_call.py@990e6a0"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("READER_CACHE", str(cache))
    root = tmp_path / "proj"
    pin_project(root, cache, "0.10.2", locked_only=("jax/_src/pallas/pallas_test_util.py",))
    write_kernel(root, "first_kernels")
    return root


def check(root: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, list[str]]:
    code = main(["-C", str(root), "check", *flags])
    return code, capsys.readouterr().out.splitlines()


def note(nid: str, *lines: str) -> str:
    return f"  - id: {nid}\n" + "".join(f"    {line}\n" for line in lines) + "    body: x\n"


BAD_INPUT = {
    "malformed yaml": (
        "title: [unclosed\nslug: a\n",
        "annotations/a.yaml:2: malformed YAML: while parsing a flow sequence: expected ',' or "
        "']', but got ':'; fix the YAML syntax"),
    "not a mapping": (
        "- a\n",
        "annotations/a.yaml:1: the file is not a YAML mapping; start with `title:`, `slug:`, "
        "`phase:`, `kind:`, `order:`"),
    "unknown key": (
        HEAD + "sumary: x\n",
        "annotations/a.yaml:8: unknown key 'sumary' in the file (did you mean 'summary'?); known "
        "keys: claim_setup, intro, kernels, kind, notes, order, outro, phase, reads, sections, slug, summary, "
        "title"),
    "unknown note key": (
        HEAD + "notes:\n" + note("n1", "symbol: _pallas_call_impl", "colour: red"),
        "annotations/a.yaml:11: unknown key 'colour' in note 'n1'; known keys: body, claim, fingerprint, "
        "id, line, lines, path, quote, review, symbol"),
    "wrong type": (
        HEAD.replace("phase: 2", "phase: two"),
        "annotations/a.yaml:3: `phase` must be an integer, not a string; write it as an integer"),
    "wrong type of a tool field": (
        HEAD + "notes:\n" + note("n1", "symbol: _pallas_call_impl", "fingerprint: 12345"),
        "annotations/a.yaml:11: note 'n1' `fingerprint` must be a string, not an integer; delete "
        "it and run 'reader accept' (it is written by the tool, never by hand)"),
    "missing key": (
        HEAD.replace("kind: article\n", ""),
        "annotations/a.yaml:1: the file lacks the required key 'kind'; add `kind:`"),
    "value out of range": (
        HEAD.replace("phase: 2", "phase: 7"),
        "annotations/a.yaml:3: `phase` is 7; it must be between 1 and 6; fix the number"),
    "no anchor": (
        HEAD + "notes:\n" + note("n1"),
        "annotations/a.yaml:9: note 'n1' has neither `symbol` nor `quote`; anchor it with a "
        "`symbol`, a `quote`, or both"),
    "slug and file name": (
        HEAD.replace("slug: a", "slug: b"),
        "annotations/a.yaml:2: slug 'b' differs from the file name 'a.yaml'; rename the file to "
        "b.yaml or change the slug"),
    "unknown file": (
        HEAD + "notes:\n" + note("n1", "path: jax/_src/pallas/pallas_cal.py", "symbol: f"),
        "annotations/a.yaml:9: note 'n1': no file 'jax/_src/pallas/pallas_cal.py' in pin 'jax' "
        "(did you mean 'jax/_src/pallas/pallas_call.py'?); use a path listed in pins.lock"),
    "path outside the pins": (
        HEAD + "notes:\n" + note("n1", "path: jax/_src/core.py", "symbol: f"),
        "annotations/a.yaml:9: note 'n1': path 'jax/_src/core.py' is outside the pins (jax: "
        "jax/_src/pallas, jax/experimental/pallas); use a file under a pinned path, or add its "
        "folder to a pin in pins.toml"),
    "path escaping the pins": (
        HEAD.replace("pallas_call.py", "../../etc/passwd"),
        "annotations/a.yaml:7: `reads`: path 'jax/_src/pallas/../../etc/passwd' is outside the "
        "pins (jax: jax/_src/pallas, jax/experimental/pallas); use a file under a pinned path, "
        "or add its folder to a pin in pins.toml"),
    "locked file no source served": (
        HEAD + "  - path: jax/_src/pallas/pallas_test_util.py\n",
        "annotations/a.yaml:8: `reads`: 'jax/_src/pallas/pallas_test_util.py' is locked in pin "
        "'jax' but no source served it; run 'reader fetch jax' with a git source, or read "
        "another file"),
    "unknown symbol": (
        HEAD + "notes:\n" + note("n1", "symbol: _pallas_call_imp"),
        f"annotations/a.yaml:9: note 'n1': symbol '_pallas_call_imp' not found in {IMPL} (did "
        "you mean '_pallas_call_impl'?); fix the note's anchor"),
    "unknown symbol in reads": (
        HEAD + "    symbols: [_pallas_call_dce]\n",
        f"annotations/a.yaml:7: `reads`: symbol '_pallas_call_dce' not found in {IMPL} (did you "
        "mean '_pallas_call_dce_rule'?); fix the name"),
    "quote not found": (
        HEAD + "notes:\n" + note("n1", "symbol: _pallas_call_impl", 'quote: "return nothing"'),
        "annotations/a.yaml:9: note 'n1': quote 'return nothing' not found in "
        "'_pallas_call_impl'; copy the quote exactly from the pinned code"),
    "quote outside its lines": (
        HEAD + "notes:\n" + note("n1", "symbol: _pallas_call_impl", "lines: [1, 2]",
                                  "quote: disable_jit"),
        "annotations/a.yaml:9: note 'n1': quote 'disable_jit' is not within lines [1, 2] of "
        "'_pallas_call_impl' (it is at relative lines [8, 8]); fix `lines` or the quote"),
    "unknown kernel": (
        HEAD + "kernels: [first_kernel]\n",
        "annotations/a.yaml:8: unknown kernel 'first_kernel': no kernels/first_kernel.py (did "
        "you mean 'first_kernels'?); name a lab module in kernels/"),
    "unknown lab link": (
        HEAD + "intro: Try [[lab:tiled_matmul]].\n",
        "annotations/a.yaml:8: unknown kernel 'tiled_matmul': no kernels/tiled_matmul.py; name a "
        "lab module in kernels/"),
    "unknown page link": (
        HEAD + "outro: Next, [[page:blockspec-grid|BlockSpec]].\n",
        "annotations/a.yaml:8: link to unknown page 'blockspec-grid'; link a slug of a file in "
        "annotations/"),
    "unknown symbol in a source link": (
        HEAD + "intro: See [[jax/_src/pallas/pallas_call.py::_pallas_call_dce]].\n",
        f"annotations/a.yaml:8: link: symbol '_pallas_call_dce' not found in {IMPL} (did you "
        "mean '_pallas_call_dce_rule'?); fix the name"),
    "malformed placeholder": (
        HEAD + "intro: Count {{ fact }} here.\n",
        "annotations/a.yaml:8: malformed fact name in '{{ fact }}'; write {{fact:NAME}} with a "
        "name from 'reader facts'"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_one_located_line_and_exit_2(project, capsys, case):
    text, expected = BAD_INPUT[case]
    write_annotation(project, "a", text)
    code, out = check(project, capsys)
    assert (code, out) == (2, [expected])


def _facts(*facts: Fact, unknown: tuple[Unknown, ...] = ()):
    return lambda corpus: Facts(facts, unknown)


def test_unknown_fact_with_did_you_mean(project, capsys, monkeypatch):
    monkeypatch.setattr(checking, "computed_facts",
                        _facts(Fact("tpu.rules.tc", 131, ""), Fact("triton.rules", 101, "")))
    write_annotation(project, "a", HEAD + "summary: '{{fact:tpu.rules.tc}} rules, "
                                          "{{fact:tpu.rule.tc}} typo'\n")
    code, out = check(project, capsys)
    assert (code, out) == (2, ["annotations/a.yaml:8: unknown fact 'tpu.rule.tc' (did you mean "
                               "'tpu.rules.tc'?); 'reader facts' lists the fact names"])


def test_duplicate_ids_across_files(project, capsys):
    write_annotation(project, "a", HEAD + "notes:\n" + note("n1", "symbol: _pallas_call_impl"))
    write_annotation(project, "b", HEAD.replace("slug: a", "slug: b") + "notes:\n"
                     + note("n1", "symbol: _pallas_call_dce_rule"))
    code, out = check(project, capsys)
    assert code == 2
    assert ("annotations/b.yaml:9: duplicate note id 'n1' (first at annotations/a.yaml:9); give "
            "each note its own id") in out


def test_every_problem_is_collected_before_exiting(project, capsys):
    write_annotation(project, "a", HEAD + "kernels: [nope]\nnotes:\n"
                     + note("n1", "symbol: _pallas_call_imp")
                     + note("n2", "symbol: _pallas_call_impl", "quote: nowhere")
                     + note("n3", "symbol: _pallas_call_dce_rule"))
    write_annotation(project, "b", HEAD.replace("slug: a", "slug: b").replace("phase: 2", "phase: 0"))
    write_annotation(project, "c", "title: [\n")
    code, out = check(project, capsys)
    assert code == 2
    assert [line.split(": ", 1)[0] for line in out] == [
        "annotations/a.yaml:8", "annotations/a.yaml:10", "annotations/a.yaml:13",
        "annotations/a.yaml:17", "annotations/b.yaml:3", "annotations/c.yaml:2"]
    assert "is unfingerprinted" in out[3]


def test_a_page_that_does_not_load_is_one_error_not_one_per_link_to_it(project, capsys):
    write_annotation(project, "a", HEAD + "intro: Next, [[page:b]] and [[page:c]].\n")
    write_annotation(project, "b", HEAD.replace("slug: a", "slug: b") + "kernels: [first_kernels\n"
                     "intro: |\n  x\n")
    code, out = check(project, capsys)
    assert (code, [line.split(": ", 1)[0] for line in out]) == (
        2, ["annotations/a.yaml:8", "annotations/b.yaml:9"])
    assert out[0].startswith("annotations/a.yaml:8: link to unknown page 'c'")
    assert out[1].startswith("annotations/b.yaml:9: malformed YAML: ")


def test_empty_or_missing_annotations_dir_is_clean(tmp_path, capsys):
    assert check(tmp_path, capsys) == (0, [])  # no pins.toml needed when there is nothing
    (tmp_path / "annotations").mkdir()
    (tmp_path / "annotations" / "README.md").write_text("not an annotation\n")
    assert check(tmp_path, capsys) == (0, [])


def accepted_project(project: Path, capsys) -> None:
    """An article written and accepted against jax 0.10.1, then the pin moved to 0.10.2."""
    cache = Path(str(project.parent / "cache"))
    pin_project(project, cache, "0.10.1")
    write_annotation(project, "a", HEAD + "  - path: jax/_src/pallas/fuser/fuser_utils.py\nnotes:\n"
                     + note("same", "symbol: _pallas_call_impl")
                     + note("moved", "symbol: _unsupported_lowering_error", "lines: [2, 6]")
                     + note("stale", "symbol: _broadcast_input_output_aliases")
                     + note("orphaned", "symbol: _PALLAS_USE_MOSAIC_GPU")
                     + note("ambiguous", "path: jax/_src/pallas/fuser/fuser_utils.py",
                            "quote: 'for eqn in jaxpr.eqns:'"))
    assert main(["-C", str(project), "accept", "--all"]) == 0
    capsys.readouterr()
    assert check(project, capsys) == (0, [])
    pin_project(project, cache, "0.10.2")


def test_statuses_after_a_pin_move(project, capsys):
    accepted_project(project, capsys)
    code, out = check(project, capsys)
    assert code == 1
    status = {line.split("'")[1]: line.split("' is ")[1].split(":")[0] for line in out}
    assert status == {"same": "moved", "moved": "moved", "stale": "stale",
                      "orphaned": "orphaned", "ambiguous": "ambiguous"}
    assert main(["-C", str(project), "accept", "--moved"]) == 0
    capsys.readouterr()
    code, out = check(project, capsys)
    assert code == 1 and len(out) == 3
    assert not any("moved" in line for line in out)


def test_github_format(project, capsys):
    accepted_project(project, capsys)
    code, out = check(project, capsys, "--format", "github")
    assert code == 1
    assert out[0].startswith("::warning file=annotations/a.yaml,line=10,title=reader check::"
                             "note 'same' is moved: the unchanged code moved from line 62 to ")
    assert out[2].startswith("::error file=annotations/a.yaml,line=21,title=reader check::"
                             "note 'stale' is stale: the code at lines 72-100 changed")


def test_json_report_counts_notes_per_article(project, capsys):
    accepted_project(project, capsys)
    code, out = check(project, capsys, "--format", "json")
    report = json.loads("\n".join(out))
    assert code == report["exit_code"] == 1
    (article,) = report["articles"]
    assert (article["path"], article["slug"], article["notes"]) == ("annotations/a.yaml", "a", 5)
    assert article["statuses"] == {"moved": 2, "stale": 1, "orphaned": 1, "ambiguous": 1}
    same = article["resolved"][0]
    assert (same["id"], same["span"], same["recorded_line"]) == ("same", [61, 69], 62)
    assert report["counts"] == {"error": 0, "finding": 3, "notice": 2}


def test_schema_is_valid_and_shipped_as_package_data():
    Draft202012Validator.check_schema(schema())
    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    assert '"schema/*.json"' in pyproject


def test_a_note_outside_the_shown_symbols_is_an_error(project, capsys):
    write_annotation(project, "a", HEAD + "    symbols: [_pallas_call_impl]\nnotes:\n"
                     + note("inside", "symbol: _pallas_call_impl", "quote: disable_jit")
                     + note("outside", "symbol: _pallas_call_dce_rule"))
    code, out = check(project, capsys)
    assert code == 2
    errors = [line for line in out if "unfingerprinted" not in line]
    assert len(errors) == 1
    assert errors[0].startswith("annotations/a.yaml:14: note 'outside' (lines ")
    assert errors[0].endswith("is outside the symbols the page shows of "
                              "jax/_src/pallas/pallas_call.py (_pallas_call_impl); add its symbol "
                              "to `reads: symbols` or anchor the note inside them")


SM90 = "tokamax/_src/ops/attention/pallas_mosaic_gpu_kernel_sm90.py"


def test_facts_an_extractor_cannot_compute_are_findings(project, capsys, monkeypatch):
    unknown = Unknown(("tokamax.sm90.**",), Location(SM90, 150), "cannot read the heuristic",
                      "update reader/extract/sm90_source.py")
    monkeypatch.setattr(checking, "computed_facts",
                        _facts(Fact("tokamax.sm90.barriers.count", 5, ""), unknown=(unknown,)))
    write_annotation(project, "a", HEAD + "summary: '{{fact:tokamax.sm90.warpgroups}} and "
                                          "{{fact:tokamax.sm90.smem.row1}}, of "
                                          "{{fact:tokamax.sm90.barriers.count}}'\n"
                                          "intro: '{{fact:tokamax.sm9.barriers.count}}'\n")
    code, out = check(project, capsys)
    # Every note and text is still checked; a cited fact that cannot be computed is a finding
    # (exit 1) naming the prose, a typo an error (exit 2), and the extractor's failure is located.
    assert (code, out) == (2, [
        "annotations/a.yaml:8: cites facts that cannot be computed at the pins: "
        f"tokamax.sm90.warpgroups, tokamax.sm90.smem.row1 (see {SM90}:150); update the extractor, "
        "then re-read this text",
        "annotations/a.yaml:9: unknown fact 'tokamax.sm9.barriers.count' (did you mean "
        "'tokamax.sm90.barriers.count'?); 'reader facts' lists the fact names",
        f"{SM90}:150: facts tokamax.sm90.** cannot be computed: cannot read the heuristic; "
        "update reader/extract/sm90_source.py"])
    write_annotation(project, "a", HEAD + "summary: '{{fact:tokamax.sm90.warpgroups}}'\n")
    code, out = check(project, capsys, "--format", "json")
    report = json.loads("\n".join(out))
    assert code == 1 and report["counts"] == {"error": 0, "finding": 2, "notice": 0}


def test_a_second_check_reads_unchanged_files_from_the_cache(project, capsys, monkeypatch):
    from reader import inputs

    path = write_annotation(project, "a", HEAD + "notes:\n" + note("n1", "symbol: _pallas_call_impl"))
    first = check(project, capsys)
    parsed: list[str] = []
    real = inputs.read_yaml
    monkeypatch.setattr(inputs, "read_yaml", lambda text: parsed.append(text) or real(text))
    assert check(project, capsys) == first and parsed == []
    path.write_text(path.read_text().replace("body: x", "body: y"))
    assert check(project, capsys) == first and len(parsed) == 1
    # a check that ends in input errors (exit 2) keeps what it computed: the next reads it back
    path.write_text(HEAD.replace("phase: 2", "phase: two"))
    before = {p for p in (project.parent / "cache").rglob("*") if p.is_file()}
    bad = check(project, capsys)
    after = {p for p in (project.parent / "cache").rglob("*") if p.is_file()}
    assert bad[0] == 2 and len(parsed) == 2 and before < after
    assert check(project, capsys) == bad and len(parsed) == 2


def mark(reason: str, confidence: float, lines: tuple[int, int] = (60, 68)) -> str:
    return ("review:\n"
            f"      reason: {json.dumps(reason)}\n      confidence: {confidence}\n"
            "      was:\n        path: jax/_src/pallas/pallas_call.py\n"
            f"        lines: [{lines[0]}, {lines[1]}]\n        blob: \"{'a' * 40}\"\n"
            f"        commit: \"{'b' * 40}\"")


def test_marked_notes_are_findings_surest_first(project, capsys):
    path = write_annotation(project, "a", HEAD + "notes:\n" + "".join(
        note(n, "symbol: _pallas_call_impl") for n in ("unsure", "clean", "sure")))
    assert main(["-C", str(project), "accept", "--all"]) == 0
    capsys.readouterr()
    was = {"path": "jax/_src/pallas/pallas_call.py", "lines": [60, 68], "blob": "a" * 40,
           "commit": "b" * 40}
    path.write_text(edit_notes(path.read_text(), {
        0: {"review": {"reason": "renamed: found by its body", "confidence": 0.6, "was": was}},
        2: {"review": {"reason": "the code changed", "confidence": 0.95, "was": was,
                       "claim": {"source": "f(1)", "old": "1", "new": "2"}}}}))
    code, out = check(project, capsys)
    assert code == 1
    assert out == [
        "annotations/a.yaml:27: note 'sure' must be re-read after the pin move (95% sure of its "
        "place): the code changed; it was at jax/_src/pallas/pallas_call.py:60-68; re-read it, fix "
        "it if needed, then run 'reader accept sure'",
        "annotations/a.yaml:9: note 'unsure' must be re-read after the pin move (60% sure of its "
        "place): renamed: found by its body; it was at jax/_src/pallas/pallas_call.py:60-68; "
        "re-read it, fix it if needed, then run 'reader accept unsure'"]
    code, out = check(project, capsys, "--format", "json")
    report = json.loads("\n".join(out))
    assert [(p["note"], p["severity"]) for p in report["problems"]] == [("sure", "finding"),
                                                                        ("unsure", "finding")]
    assert report["problems"][0]["review"] == {
        "reason": "the code changed", "confidence": 0.95, "was": was,
        "claim": {"source": "f(1)", "old": "1", "new": "2"}}
    assert [(r["note"], r["confidence"], r["line"], r["path"], r["status"], r["was"])
            for r in report["review"]] == [
        ("sure", 0.95, 27, "jax/_src/pallas/pallas_call.py", "ok", was),
        ("unsure", 0.6, 9, "jax/_src/pallas/pallas_call.py", "ok", was)]
    assert report["review"][0]["span"] == report["articles"][0]["resolved"][2]["span"]


@pytest.mark.parametrize(("bad", "message"), [
    ("      confidence: 1.5", "note 'n' `review.confidence` is 1.5; it must be between 0 and 1"),
    ("        blob: \"abc\"", "note 'n' `review.was.blob` 'abc' is malformed; write the old file's "
                             "40-hex git blob sha (`reader diff --apply` writes it)"),
    ("        lines: [9, 3]", "note 'n' has `review: was: lines: [9, 3]`, which ends before it starts"),
])
def test_a_malformed_mark_is_a_located_input_error(project, capsys, bad, message):
    key = bad.split(":")[0]
    text = "\n".join(bad if line.startswith(key + ":") else line
                     for line in mark("r", 0.5).split("\n"))
    write_annotation(project, "a", HEAD + "notes:\n" + note("n", "symbol: _pallas_call_impl", text))
    code, out = check(project, capsys)
    assert code == 2
    assert any(message in line for line in out), out
