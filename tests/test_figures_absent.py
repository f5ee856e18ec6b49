"""A computed figure whose pinned code is missing or of a shape its maker does not know is "not
computed at these pins": the page says where and why (once), the build succeeds and counts it,
`reader diff` lists it and `reader check` finds the text citing it; a bug in reader's own figure
code still stops the build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reader.cli import main
from reader.commands.serve import check_notes
from reader.errors import Location
from reader.render.common.figure import Figure, FigureInputs, Maker
from reader.render.common.prose import Prose
from reader.render.figures import pipeline, registry
from reader.render.figures.pipeline import (
    CALLS,
    PIPELINE,
    FigureError,
    check_shape,
    pinned_failure,
    schedule,
)
from reader.render.figures.registry import Figures
from tests.conftest import git
from tests.small_project import FILES, MIRROR, TOUR, write_small

WHERE = Location(f"jax:{PIPELINE}")

SCHEDULER = '''\
"""A stand-in for the pinned pipeline.py: only its shape is read."""
from jax._src.pallas.primitives import when


class Scheduler:

  def __init__(self, step, indices, grid, grid_offsets, num_stages, trace_scopes=True):
    self.step = step

  def initialize_step(self, buffered_ref, src_ref, step=0, init_limit=None):
    return buffered_ref

  def copy_in(self, buffered_ref, src_ref):
    return buffered_ref

  def wait_in(self, buffered_ref, src_ref):
    return buffered_ref

  def copy_out(self, buffered_ref, dst_ref):
    return buffered_ref

  def wait_out(self, buffered_ref, dst_ref):
    return buffered_ref

  def advance_slots(self, buffered_ref):
    return buffered_ref

  def finalize_step(self, buffered_ref, dst_ref, lag=0):
    return buffered_ref
'''
FINALIZE = SCHEDULER.replace("def finalize_step(self, buffered_ref, dst_ref, lag=0):",
                             "def finalize(self, buffered_ref, dst_ref):")
"""jax 0.11.2's shape: one `finalize` in the epilogue, no `finalize_step(..., lag=)`."""


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_shape_the_figure_drives_is_read_without_running_it():
    check_shape(SCHEDULER, WHERE)  # jax 0.12.0.1's shape: no error
    with pytest.raises(FigureError) as e:
        check_shape(FINALIZE, WHERE)
    assert e.value.location == Location(WHERE.path, _line(FINALIZE, "class Scheduler"))
    assert e.value.message == ("the figure calls Scheduler.finalize_step(buffered_ref, dst_ref, lag=...), "
                               "and the pinned Scheduler has no finalize_step (it has finalize)")
    takes_more = SCHEDULER.replace("def copy_in(self, buffered_ref, src_ref)", "def copy_in(self, buffered_ref, src_ref, sem)")
    with pytest.raises(FigureError) as e:
        check_shape(takes_more, WHERE)
    assert e.value.location == Location(WHERE.path, _line(takes_more, "def copy_in"))
    assert "missing a required argument: 'sem'" in e.value.message
    for text, why in ((SCHEDULER.replace("import when", "import cond"), "binds no `when`"),
                      (SCHEDULER.replace("class Scheduler", "class Schedule"), "defines no class Scheduler")):
        with pytest.raises(FigureError, match=why):
            check_shape(text, WHERE)


def test_the_calls_checked_are_the_calls_the_driver_makes():
    """`schedule` on a Scheduler that records what it is asked: exactly the methods of `CALLS`."""
    pytest.importorskip("jax")
    asked: set[str] = set()
    scope: dict[str, type] = {}
    exec(SCHEDULER.replace("from jax._src.pallas.primitives import when\n", ""), scope)  # noqa: S102

    def recorded(self: object, name: str) -> object:
        if not name.startswith("__"):
            asked.add(name)
        return object.__getattribute__(self, name)

    recording = type("Recording", (scope["Scheduler"],), {"__getattribute__": recorded})
    module = type("module", (), {"Scheduler": recording})
    schedule(module, 3, 2)  # type: ignore[arg-type]
    assert asked - {"step", "_compute_index"} == {c.method for c in CALLS} - {"__init__"}


def _pinned(source: str, name: str = "f"):
    scope: dict[str, object] = {}
    exec(compile(source, WHERE.path, "exec"), scope)  # noqa: S102
    return scope[name]


def test_an_error_raised_in_the_pinned_code_is_located_there_and_reader_s_own_is_a_bug():
    fn = _pinned("import json\n\ndef f(x):\n    return json.loads(x)\n")
    try:
        fn("{")  # raised by a library (json) for the pinned code: the pinned line
    except ValueError as e:
        failure = pinned_failure(e, WHERE)
    assert failure is not None and failure.location == Location(WHERE.path, 4)
    assert failure.message.startswith("the pinned Scheduler, driven as emit_pipeline drives it, "
                                      "raised JSONDecodeError: ")

    call = _pinned("def f(ref, g):\n    return g(ref, 3)\n")
    try:
        call(None, pipeline._when)  # the pinned code called reader's, which raised: reader's bug
    except AttributeError as e:
        assert pinned_failure(e, WHERE) is None


def test_a_figure_not_computed_is_said_in_its_place_and_why_once(monkeypatch):
    reshaped = FigureError("the figure calls Scheduler.finalize_step(...)", Location(WHERE.path, 1149))

    def read(_corpus: object) -> None:
        raise reshaped

    def bug(_read: None, _inputs: FigureInputs) -> Figure:
        raise RuntimeError("reader's own bug")

    monkeypatch.setattr(registry, "FIGURES", {"one": Maker(read, bug), "two": Maker(read, bug),
                                              "buggy": Maker(lambda _c: None, bug)})
    figures = Figures(FigureInputs(None, dict))  # type: ignore[arg-type]
    prose = Prose(lambda _p, _s: None, figures=figures, figure_absent=figures.absent)
    out = prose.html("{{figure:one}}\n\n{{figure:two}}", "articles/x.md")
    assert out.count("<em>(not computed at these pins)</em>") == 2 and prose.unresolved == []
    assert prose.absences(["{{figure:one}}", "{{figure:two}}"]) == [
        f"{WHERE.path}:1149: the figure calls Scheduler.finalize_step(...)"]
    assert registry.read_failures(None, ["one", "buggy", "unknown"]) == {"one": reshaped}  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="reader's own bug"):
        figures("buggy")


@pytest.fixture
def reshaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The small project with the pipeline figures in its article, pinned where pipeline.py has
    jax 0.12.0.1's Scheduler, and v1 of its upstream, where it has jax 0.11.2's."""
    path = "jax/_src/pallas/mosaic/pipeline.py"
    small = write_small(tmp_path, {**FILES, path: SCHEDULER})
    (small.root / "pins.toml").write_text((small.root / "pins.toml").read_text().replace(
        'paths = ["pkg"]', 'paths = ["pkg", "jax"]'))
    (small.root / "annotations" / "tour.yaml").write_text(TOUR.replace(
        "intro: |\n", "intro: |\n  {{figure:pipeline-buffered-2}}\n\n  {{figure:pipeline-buffered-3}}\n\n"))
    (small.upstream / path).write_text(FINALIZE)
    git(small.upstream, "commit", "-qam", "version 1")
    monkeypatch.setenv("READER_CACHE", str(small.cache))
    monkeypatch.setenv(MIRROR, str(small.upstream))
    monkeypatch.chdir(small.root)
    for argv in (["fetch"], ["accept", "--all"]):
        assert main(argv) == 0, argv
    return small, git(small.upstream, "rev-parse", "HEAD")


def test_a_move_to_a_reshaped_pipeline_is_listed_by_diff_and_the_site_builds_without_it(reshaped, capsys):
    small, v1 = reshaped
    (small.root / "old").mkdir()
    for name in ("pins.toml", "pins.lock"):
        shutil.copy(small.root / name, small.root / "old" / name)
    assert main(["pin", "small", "--to", v1]) == 0
    capsys.readouterr()
    assert main(["diff", "old/pins.toml", "--format", "json", "--no-claims"]) == 1
    report = json.loads(capsys.readouterr().out)
    figures = [c for c in report["changes"] if c.get("what", "").startswith("figure ")]
    where = {"path": f"small:{PIPELINE}", "line": _line(FINALIZE, "class Scheduler")}
    assert [(c["what"], c["side"], c["where"], c["cited_by"]) for c in figures] == [
        (f"figure pipeline-buffered-{n}", "pins.toml", where, [{"path": "annotations/tour.yaml", "line": 10}])
        for n in (2, 3)]
    assert main(["diff", "old/pins.toml", "--no-claims"]) == 1
    text = capsys.readouterr().out
    assert ("figure pipeline-buffered-2 cannot be computed at pins.toml (small:jax/_src/pallas/mosaic/"
            "pipeline.py:5: the figure calls Scheduler.finalize_step(buffered_ref, dst_ref, lag=...), "
            "and the pinned Scheduler has no finalize_step (it has finalize)); cited by "
            "annotations/tour.yaml:10; update the figure's maker (reader/render/figures/)") in text

    assert main(["check"]) == 1  # the CI gate: the text citing them is a finding, as for facts
    assert ("annotations/tour.yaml:10: cites figures that cannot be computed at the pins: "
            f"pipeline-buffered-2, pipeline-buffered-3 (small:{PIPELINE}:5: the figure calls "
            "Scheduler.finalize_step(buffered_ref, dst_ref, lag=...), and the pinned Scheduler has no "
            "finalize_step (it has finalize)); update the figure's maker (reader/render/figures/), "
            "then re-read this text") in capsys.readouterr().out.splitlines()
    problems, _ = check_notes(small.root, small.root / "site", small.root / "review.json")
    assert [p for p in problems if "cites figures" in p] == [  # reader serve's check says the same
        f"annotations/tour.yaml:10: cites figures that cannot be computed at the pins: "
        f"pipeline-buffered-2, pipeline-buffered-3 (small:{PIPELINE}:5: the figure calls "
        "Scheduler.finalize_step(buffered_ref, dst_ref, lag=...), and the pinned Scheduler has no "
        "finalize_step (it has finalize)); update the figure's maker (reader/render/figures/), "
        "then re-read this text"]

    assert main(["build", "--jobs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("  4 notes for the track's author (1 placeholder that links nowhere yet, "
                             "2 figures not computed at these pins, 1 other)"), out
    page = (small.root / "site" / "articles" / "tour.html").read_text()
    assert page.count("(not computed at these pins)</em>") == 2
    assert page.count(f"Where this page reads “(not computed at these pins)”: small:{PIPELINE}:5: the "
                      "figure calls Scheduler.finalize_step(buffered_ref, dst_ref, lag=...), and the "
                      "pinned Scheduler has no finalize_step (it has finalize).") == 1


def test_the_figures_pinned_code_cannot_make_are_kept_by_the_pinned_blobs(reshaped, monkeypatch):
    """`unreadable` reads each maker's pinned code once per set of pinned blobs (a warm `reader
    check` parses none); a pin move, a declared input, reads them again."""
    from reader.cache import Cache
    from reader.corpus import Corpus, Project

    small, v1 = reshaped
    opened = lambda: Corpus.open(Project.load(small.root), Cache(small.cache))  # noqa: E731
    assert registry.unreadable(opened(), ["pipeline-buffered-2"]) == {}
    assert main(["pin", "small", "--to", v1]) == 0
    reads = []
    real = {name: maker for name, maker in registry.FIGURES.items()}

    def counted(maker: Maker) -> Maker:
        return Maker(lambda corpus: (reads.append(1), maker.read(corpus))[1], maker.draw)

    monkeypatch.setattr(registry, "FIGURES", {n: counted(m) if isinstance(m, Maker) else m for n, m in real.items()})
    first = registry.unreadable(opened(), ["pipeline-buffered-2", "sm90-budget"])
    assert reads and list(first) == ["pipeline-buffered-2", "sm90-budget"]  # the small project has no sm90 kernel
    reads.clear()
    again = registry.unreadable(opened(), ["pipeline-buffered-2", "sm90-budget"])
    assert reads == [] and list(again) == list(first)
    assert (again["pipeline-buffered-2"].brief, again["pipeline-buffered-2"].hint) == (
        first["pipeline-buffered-2"].brief, first["pipeline-buffered-2"].hint)
    assert again["pipeline-buffered-2"].location == Location(f"small:{PIPELINE}", _line(FINALIZE, "class Scheduler"))
