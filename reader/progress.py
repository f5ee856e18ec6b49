"""Progress of long work: a line per step, and per countable stage a bar on a terminal (rich),
a closing line elsewhere, or nothing (`--quiet`).

One channel: a command picks a `Reporter` and makes it the active one (`reporting`; the CLI
makes `Lines` active for a command that picks none); the work says a line with `say(message)`
and calls `stage(label, total)` where it can count (files fetched, scanned, highlighted; pages
rendered, laid out, link-checked), so no function between the command and the work takes a
progress parameter. Outside a command (a library call, `mkdocs build`) nothing is shown. A forked
worker's stages report nothing.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any


class Stage:
    """A counted stage: `advance()` per item done; `close()` (or the `with` block) ends it."""

    def __init__(self, reporter: Reporter, label: str, total: int):
        self.reporter, self.label, self.total = reporter, label, total
        self.done = 0
        self.closed = False
        self.started = time.perf_counter()
        self._pid = os.getpid()
        self._lock = threading.Lock()

    def advance(self, n: int = 1) -> None:
        if os.getpid() != self._pid:  # a forked worker: its parent counts
            return
        with self._lock:
            self.done += n
        self.reporter._advanced(self, n)

    def close(self) -> None:
        with self._lock:
            if self.closed or os.getpid() != self._pid:
                return
            self.closed = True
        self.reporter._closed(self)

    def __enter__(self) -> Stage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Reporter:
    """Plain lines on stderr: each message, and each stage when it ends with its count and time."""

    def __call__(self, message: str) -> None:
        print(f"  {message}", file=sys.stderr, flush=True)

    def warn(self, message: str) -> None:
        """A line that is shown even with `--quiet` (mkdocs' warnings)."""
        print(message, file=sys.stderr, flush=True)

    def stage(self, label: str, total: int) -> Stage:
        return Stage(self, label, total)

    def _advanced(self, stage: Stage, n: int) -> None:
        pass

    def _closed(self, stage: Stage) -> None:
        if stage.done:  # a source that served none of the files it was asked for says so itself
            self(f"{stage.label}: {stage.done}/{stage.total} in {time.perf_counter() - stage.started:.1f} s")

    def close(self) -> None:
        pass


class Quiet(Reporter):
    """Nothing but warnings."""

    def __call__(self, message: str) -> None:
        pass

    def _closed(self, stage: Stage) -> None:
        pass


class Lines(Reporter):
    """Each message as a line, no stage counts: the commands without `--quiet`."""

    def _closed(self, stage: Stage) -> None:
        pass


class Bars(Reporter):
    """A terminal: a rich progress bar per stage, with the lines printed above the bars."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        # No refresh thread (workers fork while it would run): the bars redraw as they advance.
        self.bars = Progress(TextColumn("  {task.description}"), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), console=Console(stderr=True), auto_refresh=False,
                             redirect_stdout=False, redirect_stderr=False)
        self._tasks: dict[int, Any] = {}
        self._started = False
        self._drawn = 0.0

    def __call__(self, message: str) -> None:
        self.bars.console.print(f"  {message}", markup=False, highlight=False)
        if self._started:
            self.bars.refresh()

    def warn(self, message: str) -> None:
        self.bars.console.print(message, markup=False, highlight=False)

    def stage(self, label: str, total: int) -> Stage:
        stage = Stage(self, label, total)
        if total:  # nothing to do (all of it cached): no bar
            if not self._started:  # from the first bar on: lines print above the bars
                self._started = True
                self.bars.start()
            self._tasks[id(stage)] = self.bars.add_task(label, total=total)
            self.bars.refresh()
        return stage

    def _advanced(self, stage: Stage, n: int) -> None:
        if id(stage) not in self._tasks:
            return
        self.bars.update(self._tasks[id(stage)], completed=stage.done)
        now = time.perf_counter()
        if now - self._drawn > 0.1:
            self._drawn = now
            self.bars.refresh()

    def _closed(self, stage: Stage) -> None:
        task = self._tasks.pop(id(stage), None)
        if task is None:
            return
        self.bars.update(task, completed=stage.done, total=stage.done or stage.total)
        self.bars.refresh()

    def close(self) -> None:
        if self._started:
            self.bars.stop()


def reporter(quiet: bool = False) -> Reporter:
    """Bars when stderr is a terminal, plain lines when it is not, nothing when `quiet`."""
    if quiet:
        return Quiet()
    term = os.environ.get("TERM", "")
    if sys.stderr.isatty() and term not in ("", "dumb"):
        return Bars()
    return Reporter()


_ACTIVE: Reporter | None = None


@contextmanager
def reporting(active: Reporter) -> Iterator[Reporter]:
    """Make `active` the reporter the work's stages go to while the block runs."""
    global _ACTIVE
    before, _ACTIVE = _ACTIVE, active
    try:
        yield active
    finally:
        _ACTIVE = before
        active.close()


def current() -> Reporter:
    """The active reporter (a quiet one when no command set one: a library call, `mkdocs build`)."""
    return _ACTIVE if _ACTIVE is not None else _QUIET


_QUIET = Quiet()


_SAYING: contextvars.ContextVar[bool] = contextvars.ContextVar("reader_progress_saying", default=True)


def say(message: str) -> None:
    """A line of progress through the active reporter (nothing inside `unsaid`)."""
    if _SAYING.get():
        current()(message)


@contextmanager
def unsaid() -> Iterator[None]:
    """Drop the lines said in this block, in this thread; stages still count. The build opens its
    pins and reads the rule history under it: its own steps are its lines, a fetch is its bar."""
    token = _SAYING.set(False)
    try:
        yield
    finally:
        _SAYING.reset(token)


def stage(label: str, total: int) -> Stage:
    """A counted stage of the active reporter."""
    return current().stage(label, total)


def counted[T](label: str, items: Iterable[T], total: int) -> Iterator[T]:
    """`items`, advancing a stage of `total` as each is taken."""
    with stage(label, total) as s:
        for item in items:
            yield item
            s.advance()


def track(label: str, futures: list[Future[Any]]) -> None:
    """A stage advanced as each of `futures` completes (a cancelled one ends it without counting)."""
    if not futures:
        return
    s = stage(label, len(futures))
    seen = [0]
    lock = threading.Lock()

    def done(f: Future[Any]) -> None:
        if not f.cancelled():
            s.advance()
        with lock:
            seen[0] += 1
            last = seen[0] == len(futures)
        if last:
            s.close()
    for f in futures:
        f.add_done_callback(done)
