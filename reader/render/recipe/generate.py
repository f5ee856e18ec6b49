"""The site's recipe, as mkdocs' `build()` reads: open what comes from outside the process -> gather
the world every page kind shares -> collect each kind's plan -> render every page -> assemble the
site's pages and files. Only the first step reads git, fetches or starts a process of its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

from reader.annotations import load_articles
from reader.corpus import Corpus
from reader.editions import LineHistory, line_history, load_past
from reader.editions.opened import OpenedProject
from reader.model import SourceFile, line_count
from reader.render.common.templates import keep_compiled
from reader.render.common.urls import RULES
from reader.render.figures.registry import NOT_COMPUTED
from reader.render.kind import World
from reader.render.recipe import registry
from reader.render.recipe.pagecache import PageCache
from reader.render.recipe.parallel import Rendered
from reader.render.recipe.schedule import Schedule, Started
from reader.render.recipe.world import Opened, Pages, figures_in, figures_of, gather
from reader.render.search.index import code_lines, code_packs_kept, kept_search_assets
from reader.render.search.qualified import qualified_names
from reader.render.track.navigation import Generated, PageCount, assemble
from reader.render.track.overview import FileInfo
from reader.track import Track, load_track
from reader.workers import Workers


def generate_site(project: OpenedProject, track_file: str = "track.yaml", jobs: int | None = None,
                  older: Older | None = None, started: Started | None = None,
                  later: Workers | None = None) -> Generated:
    """Every page of an edition of the `project` the command opened: the current one's, or with
    `older` that older edition's: its pins, outline, annotations and labs (`started`: their slow
    readers, started before: `start_slow`); `later`: the workers to make the search index on a
    process of their own, for `Generated.finished` to wait for (`close` ends it)."""
    corpus = project.current if older is None else older.corpus
    return generate(project, corpus, load_track(corpus.project.root / track_file, corpus.cache),
                    Schedule(jobs, started, later), older)


@dataclass(frozen=True)
class Older:
    """An older edition's build (`reader.editions`): its files (`corpus`, opened with the project);
    it runs no labs, and its lab pages link `labs`, the current edition's, `to_current` above its root."""

    corpus: Corpus
    labs: registry.CurrentLabs
    to_current: str


def generate(project: OpenedProject, corpus: Corpus, track: Track, schedule: Schedule,
             older: Older | None = None) -> Generated:
    """Render every page: the pinned files, the articles, the labs, the outline and its overview pages.

    The recipe, one call a step: open -> gather -> collect -> render -> assemble -> index. The
    pages are every page of every kind the registry holds; one whose inputs are unchanged since an
    earlier build is read back from the page cache. The `schedule` decides where and when each step
    runs (a fork pool, a cold build's warm-up, the pages waiting for the labs' artifacts in a
    second pass, the slow readers started before or now, the search index beside mkdocs or here).
    `corpus`: the edition's files, one of the opened `project`'s (the current edition's: the rule
    history reads a release an older edition pins from its files, the previous edition's files are
    theirs).
    """
    cache = project.cache
    editions = project.older_corpora() if older is None else []
    kinds = registry.kinds_for(older.to_current if older is not None else None)
    keep_compiled(cache)
    files = pinned_files(corpus)
    context = _context(corpus, files)  # what the search index lists without indexing its lines
    pages_cache = PageCache(cache)
    with schedule as run:
        # the search index's part the pages do not change, made beside them
        lines = run.early(partial(code_lines, files, context),
                          needed=lambda: not code_packs_kept(files, cache, context))
        # open: what comes from outside the process (the labs' child, the rule history's reads,
        # git for the previous edition), the pinned files scanned meanwhile
        slow = run.slow(project, corpus, editions, current=older is None)
        opened = open_sources(project, corpus, files, run, older, slow, editions)
        # the labs' notebooks the cache lacks (a lab's edit), made beside the rest
        notebooks = registry.start_notebooks(opened.labs, corpus, cache, run.workers) if older is None else None
        # gather: the world the kinds share (the notes at the pins, the files as pages show
        # them, the prose's resolver and facts, the lowered views)
        world = gather(corpus, track, cache, files, opened, run)
        # collect: what each kind plans its pages from
        plans = {name: kind.collect(world) for name, kind in kinds.items()}
        # render: every kind's pages, rendered or read back from the page cache
        pages = run.pages(Pages(world, kinds, plans), pages_cache, wait=registry.waiting(world))
        served = notebooks() if notebooks is not None else None
        # assemble: the outline's pages, the nav, the labs' images and notebooks
        out = _assemble(world, track, files, pages, pages_cache, served)
    # index: the search index, beside mkdocs when it runs on a process of its own
    index = partial(kept_search_assets, files, out.pages, out.keys, cache, context,
                    lines() if lines is not None else None, partial(qualified_names, world.index))
    beside = run.later(lambda: tuple(index()))
    return replace(out, later=beside) if beside is not None else replace(out, assets=out.assets + tuple(index()))


def pinned_files(corpus: Corpus) -> list[SourceFile]:
    """Every pinned file with its blob and text."""
    return [SourceFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
            for pin, path in corpus.all_files()]


def open_sources(project: OpenedProject, corpus: Corpus, files: Sequence[SourceFile], run: Schedule,
                 older: Older | None, started: Started, editions: Sequence[Corpus] = ()) -> Opened:
    """With the slow readers `started` (an older edition's run none), read the rest while the
    pinned files are scanned (the previous edition's pins and notes from the `project`'s git history)."""
    cache = project.cache
    root = corpus.project.root
    # index: every pinned file scanned, while the annotations' YAML and the previous edition are read
    index, (articles, past) = run.index(corpus, cache, meanwhile=lambda: (
        load_articles(root, cache), load_past(corpus, files, cache, project.history, editions)))
    # the labs: the current edition's checked against the index (an input error stops their run);
    # an older edition shows the current edition's
    labs = registry.opened_labs(started.labs, started.artifacts, project.colab, index, corpus, cache,
                                older.labs if older is not None else None)
    lines = partial(line_history, corpus, past.previous, cache, project.releases) if older is None \
        else _no_lines
    return Opened(labs, started.history, index, articles, past, lines)


def _no_lines(unhad: Mapping[str, str]) -> LineHistory | None:
    return None


def _assemble(world: World, track: Track, files: list[SourceFile], rendered: list[Rendered],
              pages_cache: PageCache, notebooks: Mapping[str, str] | None = None) -> Generated:
    """The rendered pages with the outline's pages, the nav, and the files, warnings and failures
    the kinds add to the site (`registry.site_files`: the labs' images and `notebooks`, by lab name,
    an older edition linking the current labs'; the failures fail the build unless told not to)."""
    figures = figures_of(world)
    assets = registry.site_files(world, notebooks)
    assets += figures.assets(figures_in(text for a in world.content.articles.values() for text, _ in a.prose()))
    assets += [a for r in rendered for a in r.page.assets]  # the source pages' hover-card data
    warnings = [f"{p} links nowhere yet" for p in sorted(set(world.prose.unresolved))]
    warnings += [f"figure {name}{NOT_COMPUTED}: {e}"
                 for name, e in sorted(figures.failures.items())]
    warnings += registry.site_warnings(world)
    infos = [FileInfo(f.pin, f.path, line_count(f.text), len(world.content.on_file.get(f.path, ())))
             for f in files]
    pages = [r.page for r in rendered if r.kind not in registry.APART]
    changes = [r.page for r in rendered if r.kind in registry.APART]
    out = assemble(track, world.corpus, pages, registry.outlined(world), infos, {"Lowering rules": RULES}, assets,
                   warnings, changes)
    counts = tuple(PageCount(kind, pages_cache.rendered[kind], pages_cache.cached[kind])
                   for kind in registry.COUNTED)
    pins = world.corpus.pins
    by_id = {id(r.page): r.key for r in rendered if r.key}
    keys = {p.src_uri: key for p in out.pages if (key := by_id.get(id(p)))}
    return replace(out, counts=counts, failures=registry.site_failures(world),
                   coverage=tuple(world.ir.coverage()), keys=keys,
                   missing=tuple(p for pin in sorted(pins) for p in world.corpus.missing(pin)))


def _context(corpus: Corpus, files: Sequence[SourceFile]) -> frozenset[str]:
    """The pinned files the search index lists but does not index the lines of (`in_context`)."""
    pins = corpus.pins
    return frozenset(f.path for f in files if f.pin in pins and pins[f.pin].in_context(f.path))
