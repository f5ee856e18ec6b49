"""LAB·1.4: the emit_pipeline schedule recorded under the TPU interpreter, and its timeline."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from kernels import pipelining as lab


@pytest.fixture(scope="module")
def profile():
    return lab.record()


def test_result_matches_jnp(profile):
    assert profile.error < 1e-3


def test_one_compute_step_per_grid_point(profile):
    computes = [e for e in profile.events if e.kind == "compute"]
    assert [e.step for e in computes] == list(range(2 * 1 * 3))


def test_every_started_dma_is_waited_once(profile):
    starts = [(e.operand, e.slot, e.region) for e in profile.events if e.kind == "start"]
    waits = [(e.operand, e.slot, e.region) for e in profile.events if e.kind == "wait"]
    assert sorted(starts) == sorted(waits)
    assert sum(op == "x" for op, _, _ in starts) == 6   # k changes every step
    assert sum(op == "y" for op, _, _ in starts) == 6   # refetched for each row of tiles
    assert sum(op == "o" for op, _, _ in starts) == 2   # written back once per output tile


def test_inputs_are_double_buffered_and_prefetched(profile):
    slots = {e.slot for e in profile.events if e.kind == "start" and e.operand == "x"}
    assert slots == {0, 1}
    assert lab.prefetched_steps(profile.events) == 5


def test_output_written_back_after_the_reduction_axis(profile):
    computes = [e.tick for e in profile.events if e.kind == "compute"]
    out = [e.tick for e in profile.events if e.kind == "start" and e.operand == "o"]
    assert computes[2] < out[0] < computes[3] and out[1] > computes[5]


def test_parse_of_a_hand_written_log():
    lines = [
        "D: `allocate_buffer` -- key=('hbm', 7, 0, 0), ref_count=1.",
        "D: `get_buffer_content` -- key=('hbm', 7, 0, 0), rnge=(slice(0, 8, 1), slice(0, 128, 1)), in_bounds=True.",
        "D: `store_buffer_content` -- key=('vmem', 9, 0, 0), rnge=(1, slice(0, 8, 1), slice(0, 128, 1)), in_bounds=True.",
        "D: `signal` -- semaphore=5, inc=4096, count_on_core=4096.",
        "D: `wait` -- semaphore=5 finished waiting for value=4096, count_on_core=0.",
        "D: `get_buffer_content` -- key=('vmem', 9, 0, 0), rnge=(1, slice(0, 8, 1)), in_bounds=True.",
        "D: `get_buffer_content` -- k.py:3:4 (body).",
    ]
    events = lab.parse(lines)
    assert [(e.kind, e.operand, e.slot, e.region) for e in events] == [
        ("start", "x", 1, "[0:8, 0:128]"), ("wait", "x", 1, "[0:8, 0:128]"), ("compute", "", -1, "")]


def test_timeline_svg_has_a_bar_per_dma_and_compute(profile, tmp_path):
    root = ET.fromstring(lab.timeline_svg(profile.events))
    bars = root.findall("{http://www.w3.org/2000/svg}rect")
    n_dma = sum(e.kind == "start" for e in profile.events)
    n_compute = sum(e.kind == "compute" for e in profile.events)
    assert len(bars) == 1 + n_dma + n_compute   # + the white background
    paths = lab.artifacts(tmp_path)
    assert [p.name for p in paths] == ["pipelining.timeline.svg", "pipelining.events.txt",
                                       "pipelining.chip_timeline.svg"]   # the committed record has a trace


def test_the_chip_timeline_draws_each_recorded_region_in_its_lane():
    from kernels import _record as rec

    extra = rec.committed("pipelining")["extra"]
    regions = extra["regions"]
    root = ET.fromstring(lab.chip_timeline_svg(regions, extra["block"], extra["buffers"]))
    titles = [r.findtext("{http://www.w3.org/2000/svg}title") or "" for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    drawn = [t.split(":")[0] for t in titles if t.startswith("ep_")]
    assert drawn.count("ep_run_kernel") == sum(r[0] == "ep_run_kernel" for r in regions) == 12
    assert len(drawn) == sum(r[0].startswith(("ep_copy", "ep_wait", "ep_run_kernel")) for r in regions)


def test_main_prints_the_schedule(capsys):
    assert lab.main([]) == 0
    out = capsys.readouterr().out
    assert "start DMA x[0:8, 0:128]" in out and "compute step 5" in out


def test_trace_regions_and_overlap_of_a_hand_written_tpu_trace():
    trace = {"traceEvents": [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/host:CPU"}},
        {"ph": "M", "pid": 9, "name": "process_name", "args": {"name": "/device:TPU:0"}},
        {"ph": "M", "pid": 8, "name": "process_name", "args": {"name": "/device:TPU:1"}},
        {"ph": "X", "pid": 9, "tid": 2, "ts": 10.0, "dur": 1.0, "name": "ep_copy_in"},
        {"ph": "X", "pid": 9, "tid": 2, "ts": 11.0, "dur": 2.0, "name": "ep_wait_in"},
        {"ph": "X", "pid": 9, "tid": 2, "ts": 13.0, "dur": 8.0, "name": "kernel/ep_run_kernel"},
        {"ph": "X", "pid": 9, "tid": 2, "ts": 0.0, "dur": 30.0, "name": "fusion.1"},
        {"ph": "X", "pid": 8, "tid": 2, "ts": 5.0, "dur": 9.0, "name": "ep_run_kernel"},
        {"ph": "X", "pid": 1, "tid": 2, "ts": 1.0, "dur": 9.0, "name": "ep_wait_in"},
    ]}
    regions = lab.trace_regions(trace)
    assert [(r.name, r.start, r.duration) for r in regions] == [
        ("ep_copy_in", 10.0, 1.0), ("ep_wait_in", 11.0, 2.0), ("ep_run_kernel", 13.0, 8.0)]
    lines = lab.overlap(regions)
    assert lines[-1].startswith("waiting on DMAs is 20.0% of compute + waits")
    assert lab.trace_regions({"traceEvents": trace["traceEvents"][:1]}) == []


def test_main_says_what_a_cpu_cannot_show(capsys):
    assert lab.main([]) == 0
    out = capsys.readouterr().out
    assert "since jax finds no TPU here" in out and "== what a CPU cannot show ==" in out
