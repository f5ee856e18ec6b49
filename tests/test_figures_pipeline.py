"""The pipeline figure: the pinned Scheduler driven step by step issues the DMAs the TPU
interpreter records for the real `emit_pipeline`, and the figure draws them."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernels.pipelining import record_copy
from reader.corpus import Corpus, Project
from reader.errors import Location
from reader.render.common.figure import FigureInputs
from reader.render.figures.pipeline import (
    BUFFER_COUNTS,
    PIPELINE,
    STEPS,
    Dma,
    FigureError,
    pinned_schedule,
    pinned_schedules,
    pipeline_timeline,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.open(Project.load(ROOT))


@pytest.fixture(scope="module")
def pinned(corpus: Corpus):
    """The pinned schedule for (steps, buffers), computed in a child process (as the site does)."""
    text = corpus.read_text("jax", PIPELINE)
    return lambda steps, buffers: pinned_schedule(text, Location(PIPELINE), steps, buffers)


def _as_recorded(dmas: tuple[Dma, ...]) -> list[tuple[str, str, int, int]]:
    kinds = {"copy_in": "start", "copy_out": "start", "wait_in": "wait", "wait_out": "wait"}
    return [("compute", "", -1, d.block) if d.op == "body" else (kinds[d.op], d.operand, d.slot, d.block)
            for d in dmas]


@pytest.mark.parametrize("buffers", [2, 3])
def test_the_driven_scheduler_issues_what_the_interpreter_runs(pinned, buffers):
    recorded = [("compute", "", -1, e.step) if e.kind == "compute"
                else (e.kind, e.operand, e.slot, int(e.region[1:].split(":")[0]) // 8)
                for e in record_copy(5, buffers)]
    assert _as_recorded(pinned(5, buffers)) == recorded


def test_buffered_2_fetches_one_step_ahead_and_writes_back_one_step_behind(pinned):
    dmas = pinned(4, 2)
    at = {(d.op, d.block): d.step for d in dmas if d.operand}
    assert [at[("copy_in", b)] for b in range(4)] == [-1, 0, 1, 2]   # block i+1 issued at step i
    assert [at[("wait_in", b)] for b in range(4)] == [0, 1, 2, 3]    # waited where it is used
    assert [at[("copy_out", b)] for b in range(4)] == [0, 1, 2, 3]
    assert [at[("wait_out", b)] for b in range(4)] == [1, 2, 3, 4]   # 4: the epilogue
    assert {d.slot for d in dmas if d.operand == "x"} == {0, 1}


def test_buffered_3_fetches_two_ahead_from_the_prologue(pinned):
    dmas = pinned(4, 3)
    at = {(d.op, d.block): d.step for d in dmas if d.operand}
    assert [at[("copy_in", b)] for b in range(4)] == [-1, -1, 0, 1]
    assert [at[("wait_out", b)] for b in range(4)] == [2, 3, 4, 4]
    assert {d.slot for d in dmas if d.operand == "x"} == {0, 1, 2}


def test_the_figures_buffer_counts_are_scheduled_by_one_child_process(corpus):
    text, where = corpus.read_text("jax", PIPELINE), Location(PIPELINE)
    pinned_schedules.cache_clear()
    dmas = [pinned_schedule(text, where, STEPS, n) for n in BUFFER_COUNTS]
    assert pinned_schedules.cache_info().misses == 1
    assert [max(d.slot for d in found) + 1 for found in dmas] == list(BUFFER_COUNTS)


def test_the_figure_draws_one_row_per_slot_and_a_column_per_step(corpus):
    figure = pipeline_timeline(3)(FigureInputs(corpus, dict))
    svg = figure.html
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "\n\n" not in svg
    assert [f"{op} slot {s}</text>" in svg for op in "xo" for s in range(4)] == [True] * 3 + [False] + [True] * 3 + [False]
    assert "step 5</text>" in svg and "step 6</text>" not in svg and "epilogue</text>" in svg
    assert "x block 2 read: issued at step 0 (copy_in), waited at step 2 (wait_in)" in svg


def test_a_pipeline_that_does_not_run_is_a_located_error():
    with pytest.raises(FigureError) as e:
        pinned_schedule("from jax._src import no_such_module\n", Location("jax:" + PIPELINE), 2, 2)
    assert str(e.value).startswith(f"jax:{PIPELINE}:1: the pinned pipeline.py does not run")
    assert e.value.location == Location(f"jax:{PIPELINE}", 1)  # from the child with its location


def test_driving_the_pinned_file_leaves_this_process_s_jax_as_it_was(corpus):
    """The figure runs the pinned file elsewhere: no second `emit_pipeline_p` is registered here."""
    from jax._src.pallas.mosaic import lowering

    before = {id(p) for table in lowering.lowering_rules.values() for p in table}
    pipeline_timeline(2)(FigureInputs(corpus, dict))
    assert {id(p) for table in lowering.lowering_rules.values() for p in table} == before
