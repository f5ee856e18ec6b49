"""Where a build's time goes (`reader build --profile`): each stage's wall and CPU time, the
workers' CPU included, and the files that took longest to scan, highlight and render.

A command makes a `Profile` the active one (`profiling`); the build marks where each stage starts
(`mark`), and `Schedule` runs its pool's scans and highlights and its pages' rendering through
`timed_pool` and `timed`. Each task, in whatever process runs it, appends one line (kind, name,
start, end, CPU seconds) to a file of its process in the profile's folder; the report reads them
back. Without an active profile every hook does nothing. While profiling, the pool takes the
scans one file a task (not in chunks), so that each is timed alone.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class Task:
    """One timed piece of work: `kind` (scan, highlight, render), its file or page, when it ran
    (`time.perf_counter`, one clock for every process of the machine) and its CPU seconds."""

    kind: str
    name: str
    start: float
    end: float
    cpu: float

    @property
    def wall(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Mark:
    """Where a stage starts: its name, the wall clock and this process's CPU time then."""

    stage: str
    wall: float
    cpu: float
    children: float
    """CPU seconds of the child processes that had ended (and been waited for) by then."""
    resident: float = 0.0
    """This process's resident memory then, in MB."""


@dataclass(frozen=True)
class StageTime:
    stage: str
    wall: float
    cpu: float
    """This process's CPU seconds (all its threads)."""
    workers_cpu: float
    """CPU seconds the tasks of other processes reported while the stage ran (shared out by how
    much of each task fell in the stage)."""
    ended_cpu: float
    """CPU seconds of the child processes that ended during the stage (a pool's workers count
    where the pool is shut down; the labs' jax run where it is waited for)."""
    resident: float = 0.0
    """This process's resident memory at the stage's end, in MB."""


@dataclass
class Profile:
    """The stage marks of one build, and the folder its tasks' lines go to."""

    folder: Path
    marks: list[Mark] = field(default_factory=list)
    pid: int = field(default_factory=os.getpid)

    def mark(self, stage: str) -> None:
        if os.getpid() == self.pid:  # a forked worker marks nothing
            self.marks.append(Mark(stage, time.perf_counter(), time.process_time(),
                                   _children_cpu(), _resident_mb()))

    def tasks(self) -> list[Task]:
        out = []
        for path in sorted(self.folder.glob("*.tsv")):
            for line in path.read_text().splitlines():
                kind, name, start, end, cpu = line.split("\t")
                out.append(Task(kind, name, float(start), float(end), float(cpu)))
        return out

    def stages(self, tasks: list[Task]) -> list[StageTime]:
        """Each stage from its mark to the next (the last mark ends the profile)."""
        elsewhere = [t for t in tasks if t.kind.endswith(_WORKER)]
        out = []
        for a, b in zip(self.marks, self.marks[1:], strict=False):
            share = sum(t.cpu * _overlap(t, a.wall, b.wall) for t in elsewhere)
            out.append(StageTime(a.stage, b.wall - a.wall, b.cpu - a.cpu, share,
                                 b.children - a.children, b.resident))
        return out

    def report(self, slowest: int = 10) -> list[str]:
        """The lines `reader build --profile` prints: stages, tasks, the slowest files."""
        self.mark("end")
        tasks = self.tasks()
        stages = self.stages(tasks)
        lines = ["profile: seconds per stage; cpu: this process; tasks cpu: what the workers' "
                 "tasks reported while the stage ran; ended cpu: child processes that ended in it "
                 "(pools where they shut down, the labs' jax run where it is waited for); "
                 "MB: this process's resident memory at the stage's end (total: its peak)",
                 f"  {'stage':<12} {'wall':>8} {'cpu':>8} {'tasks cpu':>10} {'ended cpu':>10} {'MB':>6}"]
        total = StageTime("total", *(sum(getattr(s, k) for s in stages)
                                     for k in ("wall", "cpu", "workers_cpu", "ended_cpu")))
        total = replace(total, resident=_peak_mb())
        lines += [f"  {s.stage:<12} {s.wall:>8.2f} {s.cpu:>8.2f} {s.workers_cpu:>10.2f} "
                  f"{s.ended_cpu:>10.2f} {s.resident:>6.0f}" for s in [*stages, total]]
        lines += _task_lines(tasks)
        lines += slowest_lines(tasks, slowest)
        return lines


_WORKER = "@worker"
"""Suffix of a task kind run by another process than the build's own."""


def _overlap(task: Task, start: float, end: float) -> float:
    """The fraction of `task` that ran between `start` and `end`."""
    if task.wall <= 0:
        return 1.0 if start <= task.start < end else 0.0
    return max(0.0, min(task.end, end) - max(task.start, start)) / task.wall


def _resident_mb() -> float:
    """This process's resident memory now (Linux's /proc; elsewhere its peak so far)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return _peak_mb()


def _peak_mb() -> float:
    """This process's peak resident memory (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _task_lines(tasks: list[Task]) -> list[str]:
    by_kind: dict[str, list[Task]] = defaultdict(list)
    for t in tasks:
        by_kind[t.kind.removesuffix(_WORKER)].append(t)
    return [f"  {kind}: {len(ts)} task(s), {sum(t.wall for t in ts):.2f} s wall, "
            f"{sum(t.cpu for t in ts):.2f} s CPU" for kind, ts in sorted(by_kind.items())]


def slowest_lines(tasks: Iterable[Task], count: int = 10) -> list[str]:
    """The `count` files whose scan, highlighting and source page took longest, in seconds."""
    per_file: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for t in tasks:
        kind = t.kind.removesuffix(_WORKER)
        if kind in ("scan", "highlight") or t.name.startswith("source:"):
            per_file[t.name.removeprefix("source:")][kind] += t.wall
    ranked = sorted(per_file.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))[:count]
    lines = [f"the {len(ranked)} slowest files (seconds: scan + highlight + render)",
             f"  {'total':>7} {'scan':>7} {'hl':>7} {'render':>7}  file"]
    lines += [f"  {sum(k.values()):>7.3f} {k['scan']:>7.3f} {k['highlight']:>7.3f} "
              f"{k['render']:>7.3f}  {name}" for name, k in ranked]
    return lines


_ACTIVE: Profile | None = None


@contextmanager
def profiling(enabled: bool = True) -> Iterator[Profile | None]:
    """An active profile while the block runs (None, and nothing recorded, unless `enabled`)."""
    global _ACTIVE
    if not enabled:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="reader-profile-"))
    before, _ACTIVE = _ACTIVE, Profile(folder)
    _ACTIVE.mark("start")
    try:
        yield _ACTIVE
    finally:
        _ACTIVE = before
        shutil.rmtree(folder, ignore_errors=True)


def active() -> Profile | None:
    return _ACTIVE


def mark(stage: str) -> None:
    """Start `stage` of the active profile (nothing without one)."""
    if _ACTIVE is not None:
        _ACTIVE.mark(stage)


def _record(folder: Path, kind: str, name: str, start: float, cpu: float) -> None:
    end = time.perf_counter()
    spent = time.process_time() - cpu
    if _ACTIVE is not None and os.getpid() != _ACTIVE.pid:
        kind += _WORKER
    with open(folder / f"{os.getpid()}.tsv", "a") as out:
        out.write(f"{kind}\t{name}\t{start!r}\t{end!r}\t{spent!r}\n")


class Named(Protocol):
    """A task with a kind and a name (a page's job)."""

    @property
    def kind(self) -> str: ...

    @property
    def name(self) -> str: ...


def timed[T: Named, R](kind: str, fn: Callable[[T], R]) -> Callable[[T], R]:
    """`fn(job)` (a page's renderer), each call timed as `kind` `job.kind:job.name`."""
    profile = _ACTIVE
    if profile is None:
        return fn
    folder = profile.folder

    def run(job: T) -> R:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return fn(job)
        finally:
            _record(folder, kind, f"{job.kind}:{job.name}", start, cpu)
    return run


def _timed_task[R](folder: Path, kind: str, name: str, fn: Callable[..., R], args: tuple) -> R:
    start, cpu = time.perf_counter(), time.process_time()
    try:
        return fn(*args)
    finally:
        _record(folder, kind, name, start, cpu)


class _TimedPool(Executor):
    """`pool`'s tasks, each timed as `kind` and named by `name_of(args)`; without a pool, each
    task runs here when submitted."""

    def __init__(self, pool: Executor | None, folder: Path, kind: str,
                 name_of: Callable[[tuple], str]):
        self.pool, self.folder, self.kind, self.name_of = pool, folder, kind, name_of

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        assert not kwargs, "timed tasks take positional arguments"
        name = self.name_of(args)
        if self.pool is not None:
            return self.pool.submit(_timed_task, self.folder, self.kind, name, fn, args)
        done: Future[Any] = Future()
        try:
            done.set_result(_timed_task(self.folder, self.kind, name, fn, args))
        except BaseException as e:
            done.set_exception(e)
        return done


def timed_pool(pool: Executor | None, kind: str, name_of: Callable[[tuple], str],
               here: bool = False) -> Executor | None:
    """`pool` with each task timed when a profile is active (else `pool` itself). With `here`,
    no pool is timed too: its tasks then run in this process as they are submitted."""
    if _ACTIVE is None or (pool is None and not here):
        return pool
    return _TimedPool(pool, _ACTIVE.folder, kind, name_of)
