"""When and where the site's recipe runs its steps (`generate.generate` says what they are).

`with Schedule(jobs) as run:` holds the build's `Workers` (`run.workers`: `jobs` processes, one
meaning all in this process) and their pool for the first steps; its methods, in order:

- `index(corpus, cache, meanwhile)`: the files no earlier build scanned, scanned on the pool
  while `meanwhile()` (reading the notes) runs here; gives the `Index` and that result.
- `highlight(files, cache)`: pygments on the pool for every file no earlier build highlighted,
  in the background.
- `while_highlighting(*steps)`: on a cold build only, runs `steps` here while the pool highlights
  (the facts, the where-used lists: what many pages share).
- `pages(site, cache, wait)`: waits for the highlighting (a page would otherwise
  highlight its file itself, on a worker that first compiles the lexer's tables), closes the
  pool, then renders the pages the page cache lacks on processes forked after `site.prepare` has computed
  what they share; the pages whose inputs hold the labs' artifacts join them, or, when `wait`
  (the labs' child process still runs), come in a second pass once it is done.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent import futures
from concurrent.futures import Executor, Future
from contextlib import ExitStack
from typing import NamedTuple, Protocol, TypeVar

from reader import profile
from reader.cache import Cache
from reader.corpus import Corpus
from reader.extract import Index
from reader.extract.index import start_index
from reader.model import SourceFile
from reader.render.code.highlight import submit_highlighting
from reader.render.code.scopes import SCOPES_KIND, scope_data
from reader.render.common.model import Page
from reader.render.common.prose import Prose
from reader.render.recipe.pagecache import PageCache
from reader.render.recipe.parallel import Job, Rendered, render_cached
from reader.workers import Workers

T = TypeVar("T")


class Indexed[T](NamedTuple):
    """The corpus's index and what ran while it was built."""

    corpus_index: Index
    alongside: T


class Pages(Protocol):
    """What `Schedule.pages` renders."""

    @property
    def prose(self) -> Prose: ...

    def jobs(self, artifacts: bool) -> Sequence[Job]:
        """The pages whose inputs hold the labs' artifacts (`artifacts`), or the others."""
        ...

    def render(self, job: Job) -> Page:
        """One job's page."""
        ...

    def prepare(self, todo: Sequence[Job]) -> None:
        """Compute, before the workers fork, what `todo`'s pages would each compute again."""
        ...


class Schedule:
    """One build's workers: `jobs` processes (default one per core); see the module's doc."""

    def __init__(self, jobs: int | None = None) -> None:
        self.workers = Workers(jobs)
        self._stack = ExitStack()
        self._pool: Executor | None = None
        self._highlighting: list[Future[None]] = []
        self._paths: dict[str, str] = {}
        """blob -> path, for the profile's names of highlighting tasks."""

    def __enter__(self) -> Schedule:
        self._pool = self._stack.enter_context(self.workers.pool())
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()
        self.workers.close()

    def index(self, corpus: Corpus, cache: Cache | None,
              meanwhile: Callable[[], T]) -> Indexed[T]:
        profile.mark("index")
        # a scan's arguments: ((text, module, is_package, "pin:path"),)
        pool = profile.timed_pool(self._pool, "scan", lambda args: args[0][3].split(":", 1)[1],
                                  here=True)
        if profile.active() is not None:
            self._paths = {corpus.blob(pin, path): path for pin, path in corpus.all_files()}
        finish = start_index(corpus, cache, self.workers, pool, (SCOPES_KIND, scope_data))
        alongside = meanwhile()
        return Indexed(finish(), alongside)

    def highlight(self, files: Sequence[SourceFile], cache: Cache | None) -> None:
        profile.mark("notes")
        # a highlighting's arguments: ((cache, blob, text),)
        pool = profile.timed_pool(self._pool, "highlight",
                                  lambda args: self._paths.get(args[0][1], args[0][1]))
        self._highlighting = submit_highlighting(pool, files, cache, self.workers.count)

    def while_highlighting(self, *steps: Callable[[], object]) -> None:
        profile.mark("facts")
        if self._highlighting:
            for step in steps:
                step()

    def pages(self, site: Pages, cache: PageCache, wait: bool) -> list[Rendered]:
        """Every page: those not waiting for the labs' artifacts, then those that do."""
        profile.mark("pages")
        futures.wait(self._highlighting)
        self._close()
        render = profile.timed("render", site.render)
        now = [*site.jobs(False)] if wait else [*site.jobs(False), *site.jobs(True)]
        out = render_cached(now, render, site.prose, cache, self.workers, site.prepare)
        if wait:
            profile.mark("lab pages")
            # the labs' child is done: both cores are free for the pages that waited for it
            out += render_cached(site.jobs(True), render, site.prose, cache, self.workers)
        profile.mark("assemble")
        return out

    def _close(self) -> None:
        """Shut the pool down (see `Workers.pool`); a second call does nothing."""
        self._pool = None
        self._stack.close()
