"""The labs' chip records (`kernels/runs/`): the committed ones, their schema, staleness in `reader check`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernels import LABS
from reader.annotations.check import check
from reader.errors import InputError
from reader.labs.records import RUNS, read_record, records_of, stale_records

REPO = Path(__file__).resolve().parents[1]
TPU_LABS = ("first_kernels", "tiled_matmul", "pipelining", "flash_attention", "flash_attention_bwd",
            "block_sparse", "ring_attention", "reduce_scatter", "autotuned_op")


def test_every_tpu_lab_has_a_committed_passing_record_of_its_current_source():
    for lab in TPU_LABS:
        (record,) = records_of(REPO, lab)
        assert record.device_kind == "TPU v5 lite" and record.passed, lab
        assert all(c.passed and c.error <= c.tolerance for c in record.checks), lab
        assert dict(record.versions)["jax"] == "0.10.2", lab
        assert not record.stale((REPO / "kernels" / f"{lab}.py").read_bytes()), \
            f"{lab}: measure it again on a TPU: {record.remeasure}"
    assert stale_records(REPO) == []


def test_records_hold_the_issue_figures():
    matmul = records_of(REPO, "tiled_matmul")[0]
    over_xla = [r for r in matmul.ratios if "over XLA" in r.name]
    assert len(over_xla) == 2 and all(r.target == 0.95 and r.meets for r in over_xla)
    flash = records_of(REPO, "flash_attention")[0]
    assert [r.meets for r in flash.ratios if r.target is not None] == [True, True]
    assert all(t.runs >= 20 for t in flash.timings)
    refused = {r.form.split(":")[0]: r.stage for lab in ("first_kernels", "tiled_matmul", "flash_attention")
               for r in records_of(REPO, lab)[0].refusals}
    assert refused == {"rowsum_rank1": "lowering", "panel_matmul (128, 128, 64)": "compile",
                       "statistics block (None, block_q) of (heads, seq)": "lowering"}


def _project(tmp_path: Path, lab: str = "first_kernels") -> Path:
    (tmp_path / "kernels").mkdir()
    shutil.copy(REPO / "kernels" / f"{lab}.py", tmp_path / "kernels" / f"{lab}.py")
    runs = tmp_path / RUNS / "tpu-v5-lite"
    runs.mkdir(parents=True)
    shutil.copy(REPO / RUNS / "tpu-v5-lite" / f"{lab}.json", runs / f"{lab}.json")
    return tmp_path


def test_reader_check_flags_a_record_made_stale_by_an_edit_of_its_lab(tmp_path):
    root = _project(tmp_path)
    assert check(root, lambda: pytest.fail("no corpus needed"), figures=()).exit_code == 0
    lab = root / "kernels" / "first_kernels.py"
    lab.write_text(lab.read_text().replace("BLOCK = (8, 128)", "BLOCK = (16, 128)"))
    report = check(root, lambda: pytest.fail("no corpus needed"), figures=())
    (problem,) = report.problems
    assert report.exit_code == 1
    assert str(problem).startswith("kernels/runs/tpu-v5-lite/first_kernels.json:1: the record of lab "
                                   "'first_kernels' on TPU v5 lite")
    assert "python3 benchmarks/chip.py --only first_kernels" in str(problem)


def test_an_edit_of_prose_or_comments_keeps_the_measurement(tmp_path):
    root = _project(tmp_path)
    lab = root / "kernels" / "first_kernels.py"
    text = lab.read_text()
    lab.write_text(text.replace("Exercises:", "A reworded docstring.\n\nExercises:", 1)
                   .replace("# %% The kernels", "# %% The three kernels", 1))
    assert lab.read_text() != text
    assert stale_records(root) == []
    lab.write_text(text.replace('plat.Lowering("add", add_kernel, add, (x, y))',
                                'plat.Lowering("add", add_kernel, add, (x, y), ("jaxpr",))'))
    assert stale_records(root) == []   # what the page lowers is no part of a chip run
    lab.write_text(text + "\nTILE = 8\n")
    assert [s.record.lab for s in stale_records(root)] == ["first_kernels"]


def test_a_record_whose_source_is_not_what_it_hashed_is_refused(tmp_path):
    root = _project(tmp_path)
    path = root / RUNS / "tpu-v5-lite" / "first_kernels.json"
    data = json.loads(path.read_text())
    data["source"] = data["source"].replace("BLOCK = (8, 128)", "BLOCK = (16, 128)")
    path.write_text(json.dumps(data, indent=1))
    with pytest.raises(InputError, match="does not hash to its source_sha256"):
        read_record(root, path)


def test_a_malformed_record_is_a_located_input_error(tmp_path):
    root = _project(tmp_path)
    path = root / RUNS / "tpu-v5-lite" / "first_kernels.json"
    data = json.loads(path.read_text())
    del data["checks"][0]["tolerance"]
    path.write_text(json.dumps(data, indent=1))
    with pytest.raises(InputError) as e:
        read_record(root, path)
    assert e.value.location is not None and e.value.location.path.endswith("first_kernels.json")
    assert "tolerance" in path.read_text().splitlines()[e.value.location.line - 1] or e.value.location.line == 1
    path.write_text("{ not json")
    report = check(root, lambda: pytest.fail("no corpus needed"), figures=())
    assert report.exit_code == 2 and "not JSON" in str(report.problems[0])


def test_the_record_names_the_lab_it_is_filed_under(tmp_path):
    root = _project(tmp_path)
    path = root / RUNS / "tpu-v5-lite" / "first_kernels.json"
    path.rename(path.with_name("tiled_matmul.json"))
    with pytest.raises(InputError, match="records lab 'first_kernels' but is named tiled_matmul.json"):
        stale_records(root)


def test_every_lab_with_a_record_is_registered():
    assert {p.stem for p in (REPO / RUNS).glob("*/*.json")} <= set(LABS)


def test_the_interpret_mode_article_quotes_the_chip_refusals_as_recorded():
    import yaml
    notes = {n["id"]: " ".join(n["body"].split())
             for n in yaml.safe_load((REPO / "annotations" / "interpret-mode.yaml").read_text())["notes"]}
    quoted = {"im-chip-rank1": ("first_kernels", 0), "im-chip-stats-block": ("flash_attention", 0),
              "im-chip-lane-slice": ("tiled_matmul", 0)}
    for note, (lab, n) in quoted.items():
        message = records_of(REPO, lab)[0].refusals[n].message
        assert message[:150] in notes[note], (note, message[:150])


def test_a_record_s_verdict_is_kept_by_the_lab_s_bytes_and_the_source_it_ran(tmp_path, monkeypatch):
    """With a cache, `reader check` compares a lab's code with its record's once per pair of texts;
    an edit of the lab (a declared input) compares them again."""
    from reader import labs
    from reader.cache import Cache

    root, cache = _project(tmp_path), Cache(tmp_path / "cache")
    lab = root / "kernels" / "first_kernels.py"
    text = lab.read_text()
    lab.write_text(text.replace("Exercises:", "A reworded docstring.\n\nExercises:", 1))
    assert stale_records(root, cache) == []
    monkeypatch.setattr(labs.records, "measured_code", lambda _text: pytest.fail("compared again"))
    assert stale_records(root, cache) == []
    lab.write_text(text + "\nTILE = 8\n")
    with pytest.raises(pytest.fail.Exception, match="compared again"):
        stale_records(root, cache)
    monkeypatch.undo()
    assert [s.record.lab for s in stale_records(root, cache)] == ["first_kernels"]
