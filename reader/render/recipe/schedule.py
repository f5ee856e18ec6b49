"""When and where the site's recipe runs its steps (`generate.generate` says what they are).

`with Schedule(jobs, started, later) as run:` holds the build's `Workers` (`run.workers`: `jobs`
processes, one meaning all in this process) and their pool for the first steps, the slow readers
(`started` by the caller, else by `slow`) and the workers the build's last step runs on beside
mkdocs (`later`); on a failure it ends what it started. Its methods, in order:

- `early(part, needed)`: a part of the last step started now, beside the pages.
- `slow(project, corpus, editions, current)`: the slow readers (`start_slow`: the labs' run, the rule
  history's reads), those the caller started or started now.
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
- `later(last)`: the last step (the search index) on a process of its own, beside mkdocs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent import futures
from concurrent.futures import Executor, Future
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeVar

from reader import profile
from reader.cache import Cache
from reader.corpus import Corpus
from reader.editions.opened import OpenedProject
from reader.extract import Index
from reader.extract.index import start_index
from reader.extract.rulehistory import ReleaseSource, RuleHistory, start_history
from reader.extract.ruletable import RuleTable
from reader.labs import ArtifactRun, LabChildren, LabInfo, canonical_lab, load_labs
from reader.model import SourceFile
from reader.progress import Quiet, reporting
from reader.render.code.highlight import submit_highlighting
from reader.render.code.scopes import SCOPES, scope_data
from reader.render.common.model import Page
from reader.render.common.prose import Prose
from reader.render.ir.site import wanted
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


@dataclass(frozen=True)
class Started:
    """The current edition's slow readers, which a build starts before anything else so that they
    run beside all the rest (an older edition's pages among it): the labs' jax run (a child process)
    and the rule history's release reads (processes of their own, on `workers`)."""

    labs: list[LabInfo]
    artifacts: ArtifactRun
    history: Callable[[Iterable[RuleTable]], RuleHistory | None]
    workers: Workers

    def stop(self) -> None:
        """End what is still running (the build failed before it used them; a no-op after)."""
        self.artifacts.stop()
        self.workers.close()


def start_slow(corpus: Corpus, cache: Cache | None, workers: Workers, editions: Sequence[Corpus],
               releases: ReleaseSource[Any], children: LabChildren, labs: list[LabInfo] | None = None) -> Started:
    """Start the slow readers of the project's current edition: its labs' jax run (a child process
    `children` starts; with the pinned kernels lowered, when the pins have them) and its rule history (a release an older edition
    pins read from `editions`, those editions' files: the project's own older editions, so that a
    warm build finds the history the full build kept; the others from `releases`)."""
    labs = load_labs(corpus.project.root, cache) if labs is None else labs
    canonical = [canonical_lab()] if labs and wanted(corpus) else []
    artifacts = ArtifactRun(corpus.project.root, [*labs, *canonical], cache, children)
    with reporting(Quiet()):  # quiet: no bars of theirs beside the build's
        history = start_history(corpus, workers, releases, cache, editions)
    return Started(labs, artifacts, history, workers)


class Schedule:
    """One build's workers: `jobs` processes (default one per core); see the module's doc.
    `started`: the slow readers the caller started (`start_slow`); `later`: the workers the build's
    last step runs on, beside mkdocs (none: here)."""

    def __init__(self, jobs: int | None = None, started: Started | None = None,
                 later: Workers | None = None) -> None:
        self.workers = Workers(jobs)
        self._started, self._mine, self._later, self._early = started, False, later, False
        self._stack = ExitStack()
        self._pool: Executor | None = None
        self._highlighting: list[Future[None]] = []
        self._paths: dict[str, str] = {}
        """blob -> path, for the profile's names of highlighting tasks."""

    def __enter__(self) -> Schedule:
        self._pool = self._stack.enter_context(self.workers.pool())
        return self

    def __exit__(self, failed: object, *exc: object) -> None:
        if failed is not None and self._mine and self._started is not None:
            self._started.stop()  # started here, so ended here when the build fails (Ctrl-C too)
        self._close()
        self.workers.close()
        if failed is not None and self._early and self._later is not None:
            self._later.close()  # (ends the part of the last step started early)

    def slow(self, project: OpenedProject, corpus: Corpus, editions: Sequence[Corpus],
             current: bool = True) -> Started:
        """The slow readers: those the caller started, else `corpus`'s started now on these workers
        from the sources the command opened (`start_slow`: `editions` the older editions' files;
        the project's labs run for the `current` edition, none for an older one)."""
        if self._started is None:
            self._started = start_slow(corpus, project.cache, self.workers, editions, project.releases,
                                       project.children, None if current else [])
            self._mine = True
        return self._started

    def early(self, part: Callable[[], T], needed: Callable[[], bool]) -> Callable[[], T] | None:
        """A part of the build's last step (`part`, when `needed()`) started now on a process of
        its own, beside the pages, when that step will run on one too (`later` given, forking safe
        now); the call that waits for it, or None (the last step makes it)."""
        if self._later is None or not self._later.may_fork() or not needed():
            return None
        self._early = True
        return self._later.beside(part)

    def later(self, last: Callable[[], T]) -> Callable[[], T] | None:
        """The build's last step (`last`) on a process forked now, beside what the caller does next
        (mkdocs): the call that waits for it; None without `later` (the caller runs it)."""
        return self._later.beside(last) if self._later is not None else None

    def index(self, corpus: Corpus, cache: Cache | None,
              meanwhile: Callable[[], T]) -> Indexed[T]:
        profile.mark("index")
        # a scan's arguments: ((text, module, is_package, "pin:path"),)
        pool = profile.timed_pool(self._pool, "scan", lambda args: args[0][3].split(":", 1)[1],
                                  here=True)
        if profile.active() is not None:
            self._paths = {corpus.blob(pin, path): path for pin, path in corpus.all_files()}
        finish = start_index(corpus, cache, self.workers, pool, (SCOPES, scope_data))
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
