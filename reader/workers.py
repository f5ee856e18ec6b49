"""The one owner of worker processes. Every stage that runs on several cores asks the build's
`Workers` for them; `Workers(1)` runs every stage in the calling process (`reader build --jobs 1`:
pdb works), and the parallel build is byte for byte the same (tests/test_workers.py).

`isolated` runs a function in a fresh interpreter: not for speed, but to keep what it imports out
of this process. Work reaches a forked worker as arguments: `pool()`'s tasks are pickled with theirs; `map`'s,
`start`'s and `beside`'s functions are the target of processes forked with them (inherited, never pickled:
they may hold the corpus and the index), and only the items and the results travel back.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import queue
import shutil
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reader.progress import counted


class Workers:
    """`count` processes at most (default one per core); one means everything runs here."""

    def __init__(self, jobs: int | None = None):
        self.count = max(1, jobs or os.cpu_count() or 1)
        self._pool_threads: set[threading.Thread] = set()
        self._pools = 0
        self._started: list[_Forked] = []

    @property
    def parallel(self) -> bool:
        return self.count >= 2 and "fork" in multiprocessing.get_all_start_methods()

    @contextmanager
    def pool(self) -> Iterator[Executor | None]:
        """A pool of forked processes for independent tasks, started on the first task (None when
        serial: the caller runs the tasks itself). On leaving, tasks not started are dropped."""
        if not self.parallel:
            yield None
            return
        before = set(threading.enumerate())
        pool = ProcessPoolExecutor(self.count, mp_context=multiprocessing.get_context("fork"))
        self._pools += 1
        try:
            yield _Pool(pool, self, before)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            self._pools -= 1
            if not self._pools:
                self._pool_threads.clear()

    def may_fork(self) -> bool:
        """Whether forking now is safe: no thread runs here but the caller's and those of this
        object's pools (a lock another thread holds at the fork would never be released in the
        child). Threads a native library starts are not Python's to list: the build never loads
        one that starts any here (jax runs in the labs' child process)."""
        if not self.parallel:
            return False
        me = threading.current_thread()
        return all(t is me or t in self._pool_threads for t in threading.enumerate())

    def map[T, R](self, fn: Callable[[T], R], items: Sequence[T], label: str = "",
                  chunk: int = 1, least: int = 2) -> list[R]:
        """`fn` of each item, in order: on forked processes when parallel and there are at least
        `least` items, else here; `label` names the progress stage counted as results come."""
        if not self.parallel or len(items) < max(2, least):
            done: Iterator[R] = map(fn, items)
        else:
            done = self._forked_map(fn, items, max(1, chunk))
        return list(counted(label, done, len(items)) if label else done)

    def _forked_map[T, R](self, fn: Callable[[T], R], items: Sequence[T], chunk: int) -> Iterator[R]:
        return _Forked(fn, items, chunk, self.count).results()

    def start[T, R](self, fn: Callable[[T], R], items: Sequence[T]) -> Callable[[], list[R]]:
        """`fn` of each item on forked processes (at most `count`) started now, while the caller
        goes on; the returned call waits for the results, in order. When forking is not safe now
        or the workers are one, that call computes them here. `close` ends what is left running."""
        if not items or not self.may_fork():
            return lambda: list(map(fn, items))
        forked = _Forked(fn, items, 1, self.count)
        self._started.append(forked)
        return lambda: list(forked.results())

    def close(self) -> None:
        """End the processes `start` forked whose results were not asked for (a build that failed)."""
        for forked in self._started:
            forked.end()
        self._started.clear()

    def beside[R](self, fn: Callable[[], R]) -> Callable[[], R]:
        """`fn` started on one forked process while the caller goes on (here, when forking is
        not safe now or the workers are one); the returned call waits for its result."""
        results = self.start(lambda _: fn(), [None])
        return lambda: results()[0]


def isolated[R](fn: Callable[..., R], *args: Any) -> R:
    """`fn(*args)` in a fresh interpreter (spawned, whatever the workers: not for speed but so
    that what it imports and registers, jax's global tables, never reaches this process)."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


class _Pool(Executor):
    """A process pool whose threads its `Workers` knows (see `may_fork`)."""

    def __init__(self, pool: ProcessPoolExecutor, owner: Workers, before: set[threading.Thread]):
        self.pool, self.owner, self.before = pool, owner, before

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        try:
            return self.pool.submit(fn, *args, **kwargs)
        finally:  # the pool's manager thread starts with its first task, its queue's feeder soon after
            self.owner._pool_threads |= set(threading.enumerate()) - self.before

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.pool.shutdown(wait, cancel_futures=cancel_futures)


class _Forked:
    """`fn` over chunks of items on up to `count` processes forked now; `results` gives them in
    order and ends the processes."""

    def __init__(self, fn: Callable[[Any], Any], items: Sequence[Any], chunk: int, count: int):
        context = multiprocessing.get_context("fork")
        self.chunks = [items[i:i + chunk] for i in range(0, len(items), chunk)]
        self.tasks, self.queue = context.SimpleQueue(), context.Queue()  # no thread here: nothing to fork with
        self.folder = Path(tempfile.mkdtemp(prefix="reader-results-"))
        self.workers = [context.Process(target=_serve, args=(fn, self.chunks, self.tasks, self.queue,
                                                             self.folder), daemon=True)
                        for _ in range(min(count, len(self.chunks)))]
        for w in self.workers:
            w.start()
        for n in [*range(len(self.chunks)), *(None for _ in self.workers)]:
            self.tasks.put(n)

    def results(self) -> Iterator[Any]:
        try:
            ready: dict[int, list[Any]] = {}
            for n in range(len(self.chunks)):
                while n not in ready:
                    got, carried = _next(self.queue, self.workers)
                    value = carried.value()
                    if isinstance(value, _Failure):
                        raise value.error
                    ready[got] = value
                yield from ready.pop(n)
        finally:
            self.end()

    def end(self) -> None:
        """Kill the processes still running and wait for them; a second call does nothing."""
        for w in self.workers:
            if w.is_alive():
                w.kill()
            w.join()
        if self.workers:
            self.tasks.close()
            self.queue.close()
        self.workers = []
        shutil.rmtree(self.folder, ignore_errors=True)


SPILL = 1 << 15
"""A chunk's results of more pickled bytes than this come back through a file in the caller's
folder, not the queue: the worker then ends (or goes on) as soon as they are written, instead of
waiting, with all its memory, until the caller reads them (a message over a pipe's 64 KB waits for
its reader: the search index's part made beside the pages held about 390 MB for most of a build)."""


class _Carried:
    """A chunk's results as a worker sends them: pickled, in the message or in a file."""

    def __init__(self, value: Any, folder: Path, n: int):
        data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        self.path = folder / f"{os.getpid()}-{n}" if len(data) > SPILL else None
        if self.path is not None:
            self.path.write_bytes(data)
        self.data = data if self.path is None else b""

    def value(self) -> Any:
        if self.path is None:
            return pickle.loads(self.data)
        data = self.path.read_bytes()
        self.path.unlink()
        return pickle.loads(data)


class _Failure:
    """An exception raised in a worker, carried back."""

    def __init__(self, error: BaseException):
        self.error = error


def _serve(fn: Callable[[Any], Any], chunks: Sequence[Sequence[Any]], tasks: Any, results: Any,
           folder: Path) -> None:
    """A forked worker: the chunks named on `tasks` (all of them when None), each one's results
    put on `results` (`_Carried`: a large one through a file in `folder`)."""
    todo = iter(range(len(chunks))) if tasks is None else iter(tasks.get, None)
    for n in todo:
        try:
            results.put((n, _Carried([fn(item) for item in chunks[n]], folder, n)))
        except BaseException as e:  # noqa: BLE001  (carried back and raised there)
            try:
                results.put((n, _Carried(_Failure(e), folder, n)))
            except Exception:  # not picklable: its text
                results.put((n, _Carried(_Failure(RuntimeError(traceback.format_exc())), folder, n)))
            return
    results.close()
    results.join_thread()


def _next(results: Any, workers: list[Any]) -> tuple[int, Any]:
    """The next result; an error when every worker has ended without giving it."""
    while True:
        try:
            return results.get(timeout=1.0)
        except queue.Empty:
            if not any(w.is_alive() for w in workers):
                try:
                    return results.get(timeout=1.0)
                except queue.Empty:
                    raise RuntimeError("a worker process ended without its results "
                                       f"(exit codes {[w.exitcode for w in workers]})") from None
