"""Pages rendered or read back from the page cache, the rendering on the build's workers (forked
once the site's inputs are in memory, so they share them: only the jobs and the pages travel)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from reader.render.common.model import Page
from reader.render.common.prose import Prose
from reader.render.recipe.pagecache import CachedPage, PageCache, Shown
from reader.workers import Workers

MIN_PARALLEL = 16
"""Fewer pages than this render in this process: forking would cost more than it saves."""


@dataclass(frozen=True)
class Job:
    """One page to show: its kind (`render/kinds/`), its name, its page-cache key (computed from
    what it is `shown` from: `key(PAGE, shown)`) and that."""

    kind: str
    name: str
    key: str
    shown: Shown | None = None

    @property
    def inputs(self) -> object:
        """What the page is rendered from besides the world."""
        return self.shown.inputs if self.shown is not None else None


class Rendered(NamedTuple):
    """A job's page, with the job's kind and page-cache key (what the page is a function of)."""

    kind: str
    page: Page
    key: str = ""


Renderer = Callable[[Job], Page]


def render_cached(jobs: Sequence[Job], render: Renderer, prose: Prose, pages: PageCache,
                  workers: Workers, before_fork: Callable[[Sequence[Job]], None] = lambda _j: None,
                  ) -> list[Rendered]:
    """Every job's page, in order: read back from `pages` when its key is there, else rendered
    (on the workers when there are many) and stored. `prose.unresolved` gets the placeholders
    every page left unlinked, cached or not."""
    found = {i: hit for i, job in enumerate(jobs) if job.shown is not None and (hit := pages.get(job.kind, job.shown)) is not None}
    todo = [job for i, job in enumerate(jobs) if i not in found]

    def render_one(job: Job) -> CachedPage:
        before = len(prose.unresolved)
        done = CachedPage(render(job), tuple(prose.unresolved[before:]))
        if job.shown is not None:
            pages.store(job.shown, done)  # where it was rendered: the writing is spread over the cores too
        return done

    forked = workers.parallel and len(todo) >= MIN_PARALLEL
    if forked:
        before_fork(todo)
    chunk = max(1, len(todo) // (24 * workers.count))
    done = iter(workers.map(render_one, todo, "rendering pages", chunk, MIN_PARALLEL))
    for i, job in enumerate(jobs):
        if i not in found:
            pages.rendered[job.kind] += 1
            found[i] = next(done)
        prose.unresolved.extend(found[i].unresolved)
    return [Rendered(job.kind, found[i].page, job.key) for i, job in enumerate(jobs)]
