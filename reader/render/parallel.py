"""Work on every core: a pool for the scans and the highlighting, and page rendering in processes
forked once the site's inputs are in memory (so they share them, and only names travel)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from reader.progress import counted
from reader.render.model import Page
from reader.render.pagecache import CachedPage, PageCache
from reader.render.prose import Prose

MIN_PARALLEL = 16
"""Fewer pages than this render in this process: forking would cost more than it saves."""


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


@contextmanager
def worker_pool(workers: int) -> Iterator[Executor | None]:
    """A pool of `workers` processes (started on the first task), or None for one worker."""
    if workers < 2 or not can_fork():
        yield None
        return
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        yield pool
    finally:  # tasks not started yet are dropped: whoever needs their result computes it then
        pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class Job:
    """One page to show: its kind (`render/kinds/`), its name, its inputs (what it is rendered
    from besides the world) and its page-cache key (computed from them)."""

    kind: str
    name: str
    key: str
    inputs: object = None


class Rendered(NamedTuple):
    """A job's page, with the job's kind."""

    kind: str
    page: Page


Renderer = Callable[[Job], Page]


@dataclass(frozen=True)
class _State:
    render: Renderer
    prose: Prose
    pages: PageCache


_STATE: _State | None = None
"""What the forked workers render with: set before they fork, so they inherit it."""


def render_cached(jobs: Sequence[Job], render: Renderer, prose: Prose, pages: PageCache,
                  workers: int, before_fork: Callable[[Sequence[Job]], None] = lambda _j: None,
                  ) -> list[Rendered]:
    """Every job's page, in order: read back from `pages` when its key is there, else rendered
    (on `workers` processes when there are many) and stored. `prose.unresolved` gets the
    placeholders every page left unlinked, cached or not."""
    found = {i: hit for i, job in enumerate(jobs) if (hit := pages.get(job.kind, job.key)) is not None}
    todo = [job for i, job in enumerate(jobs) if i not in found]
    global _STATE
    _STATE = _State(render, prose, pages)
    try:
        if workers >= 2 and len(todo) >= MIN_PARALLEL and can_fork():
            before_fork(todo)
            done = list(counted("rendering pages", _on_workers(todo, workers), len(todo)))
        else:
            done = list(counted("rendering pages", map(_render, todo), len(todo)))
    finally:
        _STATE = None
    rendered = iter(done)
    for i, job in enumerate(jobs):
        if i not in found:
            pages.rendered[job.kind] += 1  # stored by whoever rendered it
            found[i] = next(rendered)
        prose.unresolved.extend(found[i].unresolved)
    return [Rendered(job.kind, found[i].page) for i, job in enumerate(jobs)]


def _on_workers(todo: Sequence[Job], workers: int) -> Iterator[CachedPage]:
    """The pages in order, each as soon as it (and those before it) are done."""
    context = multiprocessing.get_context("fork")
    chunks = max(1, len(todo) // (24 * workers))
    with ProcessPoolExecutor(min(workers, len(todo)), mp_context=context) as pool:
        yield from pool.map(_render, todo, chunksize=chunks)


def _render(job: Job) -> CachedPage:
    state = _STATE
    assert state is not None
    before = len(state.prose.unresolved)
    page = state.render(job)
    done = CachedPage(page, tuple(state.prose.unresolved[before:]))
    state.pages.store(job.key, done)  # in the worker: the writing is spread over the cores too
    return done
