"""`reader build --profile`: each stage's wall and CPU time and the slowest files, on the small
project (as a child process, so its workers fork from a process of its own)."""

from __future__ import annotations

import re
import shutil

from reader.profile import Task, slowest_lines
from tests.small_project import FILES, reader, write_small

STAGES = ["start", "index", "notes", "facts", "pages", "assemble", "mkdocs", "link check", "finish"]
EXTRA = {f"pkg/extra_{i:02d}.py": f'"""Module {i}."""\n\n' + "".join(
    f"def f{j}(x):\n    return x + {j}\n\n" for j in range(20 * (i + 1))) for i in range(12)}


def _profiled(tmp_path, jobs: str):
    small = write_small(tmp_path, {**FILES, **EXTRA})
    for argv in (["fetch"], ["accept", "--all"]):
        assert reader(small, *argv).returncode == 0, argv
    done = reader(small, "build", "--profile", "--jobs", jobs)
    assert done.returncode == 0, done.stderr
    return small, done.stdout


def _stages(rows: dict[str, list[float]]) -> list[str]:
    """The stage names, less `lab pages` (a second pass only while the labs' jax run is going)."""
    return [name for name in rows if name != "lab pages"]


def _stage_rows(out: str) -> dict[str, list[float]]:
    rows = {}
    for line in out.splitlines():
        if m := re.fullmatch(r"  (\w[\w ]*?) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +(\d+)", line):
            rows[m.group(1)] = [float(v) for v in m.groups()[1:]]
    return rows


def _slowest(out: str) -> list[tuple[list[float], str]]:
    lines = out.split("slowest files", 1)[1].splitlines()[2:]
    return [([float(v) for v in line.split()[:4]], line.split()[4]) for line in lines
            if re.match(r"  +[\d.]+ ", line)]


def test_a_cold_profiled_build_times_each_stage_and_names_the_ten_slowest_files(tmp_path):
    small, out = _profiled(tmp_path, "2")
    rows = _stage_rows(out)
    assert _stages(rows) == [*STAGES, "total"]
    assert all(wall >= 0 and cpu >= 0 for wall, cpu, _, _, _ in rows.values())
    # the build's resident memory at each stage's end, its peak on the total's row
    assert all(20 < mb <= rows["total"][4] for *_, mb in rows.values())
    assert abs(rows["total"][0] - sum(v[0] for s, v in rows.items() if s != "total")) < 0.05
    assert rows["index"][2] + rows["notes"][2] + rows["facts"][2] + rows["pages"][2] > 0  # workers
    assert re.search(r"\n  scan: 14 task\(s\)", out) and re.search(r"\n  render: 1\d task\(s\)", out)
    # the pool highlights until the pages start (a page highlights its file itself after that)
    highlighted = re.search(r"\n  highlight: (\d+) task\(s\)", out)
    assert highlighted is None or 1 <= int(highlighted.group(1)) <= 14
    slowest = _slowest(out)
    assert len(slowest) == 10
    times = [t[0] for t, _ in slowest]
    assert times == sorted(times, reverse=True) and all(t > 0 for t in times)
    assert all(abs(total - (scan + hl + render)) < 0.002 for (total, scan, hl, render), _ in slowest)
    assert {name for _, name in slowest} <= {*FILES, *EXTRA}
    # every page is rendered in a cold build; a file's scan may be a cache hit (the facts, run
    # beside the index in a process of their own, may have scanned it first), but not all
    assert all(render > 0 for (_, _, _, render), _ in slowest), out
    assert any(scan > 0 for (_, scan, _, _), _ in slowest), out
    # a build with nothing to do again: stages timed, no file scanned or rendered
    shutil.rmtree(small.root / "site")
    again = reader(small, "build", "--profile", "--jobs", "2")
    assert _stages(_stage_rows(again.stdout)) == [*STAGES, "total"]
    # (unless reader's own code changed in between: other work in this checkout keys a new cache)
    assert "source pages 0 rendered" not in again.stdout or "the 0 slowest files" in again.stdout


def test_with_one_job_the_scans_and_pages_are_timed_in_the_build_itself(tmp_path):
    _, out = _profiled(tmp_path, "1")
    rows = _stage_rows(out)
    assert _stages(rows) == [*STAGES, "total"]
    assert rows["total"][2] == 0  # no worker processes
    assert len(_slowest(out)) == 10


def test_fewer_files_than_asked_are_all_listed():
    tasks = [Task("scan", "a.py", 0.0, 0.5, 0.4), Task("render", "source:a.py", 1.0, 1.25, 0.2),
             Task("highlight@worker", "b.py", 0.0, 1.0, 0.9), Task("render", "article:t", 0, 9, 9)]
    lines = slowest_lines(tasks, 10)
    assert lines[0] == "the 2 slowest files (seconds: scan + highlight + render)"
    assert lines[2].split() == ["1.000", "0.000", "1.000", "0.000", "b.py"]
    assert lines[3].split() == ["0.750", "0.500", "0.000", "0.250", "a.py"]
