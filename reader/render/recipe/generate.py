"""The site's recipe (index -> highlight -> notes -> facts -> pages -> assemble), and what its
pages are rendered from (`kind.Site`): the notes at the pins, the source docs, the labs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from reader.annotations import Article, ResolvedNote, load_articles, resolve
from reader.annotations.markup import parse
from reader.annotations.resolve import PinnedSymbols
from reader.cache import Cache, kept_object
from reader.corpus import Corpus, Project
from reader.extract import Index
from reader.extract.fact import Facts, load_facts
from reader.extract.rulehistory import start_history
from reader.extract.symbols import symbols_of
from reader.labs import (
    ArtifactRun,
    LabArtifacts,
    LabInfo,
    canonical_lab,
    lab_failure,
    load_labs,
    unknown_exercises,
)
from reader.labs.notebook import notebook_assets
from reader.model import Reference, SourceFile, module_of, split_lines
from reader.progress import Quiet, reporting, unsaid
from reader.render.article.content import note_views
from reader.render.changes.kind import CHANGES
from reader.render.changes.page import load_moves
from reader.render.common.docs import Docs, lab_uses, labs_by_file, source_resolver
from reader.render.common.model import NoteView, Page, TitledPage
from reader.render.common.prose import Prose
from reader.render.common.urls import RULES
from reader.render.diff.page import changed_files
from reader.render.figures.figure import FigureInputs
from reader.render.figures.registry import Figures
from reader.render.ir.site import IrPages, canonical_failure, wanted
from reader.render.lab.older import CurrentLabKind
from reader.render.lab.page import lab_assets
from reader.render.previous import load_previous
from reader.render.recipe.kind import PageKind, Site, World
from reader.render.recipe.pagecache import PageCache, page_key, world_key
from reader.render.recipe.parallel import Job, Rendered
from reader.render.recipe.registry import KINDS
from reader.render.recipe.schedule import Schedule
from reader.render.search.index import search_assets
from reader.render.track.navigation import Generated, PageCount, Written, assemble
from reader.render.track.overview import FileInfo
from reader.track import Track, load_track
from reader.workers import Workers


def generate_site(root: Path, track_file: str = "track.yaml", jobs: int | None = None,
                  cache: Cache | None = None, older: Older | None = None) -> Generated:
    """Every page of the project at `root`: its pins, outline, annotations and labs."""
    with unsaid():
        corpus = Corpus.open(Project.load(root), cache)
    return generate(corpus, load_track(root / track_file, corpus.cache), corpus.cache, jobs, older)


@dataclass(frozen=True)
class Older:
    """An older edition's build (`reader/editions.py`): it runs no labs, and its lab pages link
    `labs`, the current edition's, `to_current` above its root."""

    labs: tuple[LabInfo, ...]
    to_current: str


def generate(corpus: Corpus, track: Track, cache: Cache | None, jobs: int | None = None,
             older: Older | None = None) -> Generated:
    """Render every page: the pinned files, the articles, the labs, the outline and its overview pages.

    The recipe, one call a step: index -> highlight -> notes -> facts -> pages -> assemble.
    `Schedule` decides where and when each runs (a fork pool, a cold build's warm-up, the pages
    waiting for the labs' artifacts in a second pass); the pages are every page of every kind in
    `KINDS`, and one whose inputs are unchanged since an earlier build is read back from the page cache.
    """
    root = corpus.project.root
    labs = load_labs(root) if older is None else list(older.labs)
    if older is None:  # an older edition shows the current labs' exercises it lacks as such
        unknown_exercises(labs, partial(_defines, corpus))
    canonical = [canonical_lab()] if labs and older is None and wanted(corpus) else []  # pinned kernels lowered
    # the labs' jax run: a child process from here on (none for an older edition)
    artifacts = ArtifactRun(root, [*labs, *canonical] if older is None else [], cache)
    kinds = KINDS if older is None else {**KINDS, "lab": CurrentLabKind(older.to_current)}
    files = pinned_files(corpus)
    pages_cache = PageCache(cache)
    with Schedule(jobs) as run:
        # the rule history: the releases not kept, read on processes of their own (quiet: no bars
        # of theirs beside the build's) from now on
        with reporting(Quiet()):
            history = start_history(corpus, run.workers, cache)
        # index: every pinned file scanned, while the annotations' YAML is read
        index, articles = run.index(corpus, cache, meanwhile=lambda: load_articles(root, cache))
        # highlight: pygments once per file, in the background
        run.highlight(files, cache)
        # notes: resolved at the pins, with everything the pages share
        site = replace(_read_site(corpus, track, cache, index, labs, files, artifacts, articles,
                                  run.workers), history=history)
        # facts (and where-used lists): now on a cold build; else when a page first needs them
        run.while_highlighting(site.world.prose.load_facts, site.world.docs.prepare)
        # pages: every kind's, rendered or read back from the page cache
        pages = run.pages(Pages(site, kinds), pages_cache, wait=artifacts.running)
    # assemble: the outline's pages, the nav, the labs' images, warnings and failures
    return _assemble(site, track, files, pages, pages_cache, notebooks=older is None)


def _defines(corpus: Corpus, path: str, symbol: str) -> bool:
    """Whether `path` is a pinned file that defines `symbol` (any symbol when empty)."""
    pin = corpus.pin_of(path)
    if not pin or not corpus.has(pin, path):
        return False
    return not symbol or any(s.qualname == symbol for s in symbols_of(corpus.read_text(pin, path)))


def pinned_files(corpus: Corpus) -> list[SourceFile]:
    """Every pinned file with its blob and text."""
    return [SourceFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
            for pin, path in corpus.all_files()]


def _read_site(corpus: Corpus, track: Track, cache: Cache | None, index: Index,
               labs: list[LabInfo], files: list[SourceFile], artifacts: ArtifactRun,
               articles: list[Article], workers: Workers) -> Site:
    """The notes at the pins, and everything pages are rendered from."""
    outlined = {e.slug: e.title for ph in track.phases for e in ph.entries if e.slug}
    titles = {**outlined, **{a.slug: a.title for a in articles}}
    world = world_key(corpus, labs, titles)
    symbols = _share_symbols(index, corpus, {n.path for a in articles for n in a.notes})
    notes = {a.slug: note_views(a, _resolved(a, corpus, symbols, cache, world), corpus) for a in articles}
    on_file: dict[str, list[NoteView]] = defaultdict(list)
    for views in notes.values():
        for n in views:
            on_file[n.path].append(n)
    lab_refs = _lab_refs(index, labs, cache, world)
    docs = Docs(index, corpus, files)
    prose = Prose(source_resolver(index, docs), titles, {lab.name: lab.heading for lab in labs},
                  lambda: {f.name: f.value for f in load_facts(corpus, index, workers)},
                  Figures(FigureInputs(corpus, lambda: prose.load_facts()), cache, world),
                  absent=lambda name: _absent(load_facts(corpus, index, workers), name), cache=cache)
    by_name = {lab.name: lab for lab in labs}
    ir = IrPages(corpus, index, docs.files, by_name, artifacts.results)
    moves = load_moves(corpus.project.root)
    previous = load_previous(corpus.project.root, moves, corpus.cache) if moves else None
    diffs = changed_files(previous, files, cache) if previous else {}
    return Site(World(world, corpus, cache, index, docs, prose, by_name, lab_refs, artifacts, ir, previous),
                {a.slug: a for a in articles}, notes, on_file, moves,
                lab_uses(labs, lab_refs), _labs_by_file(index, labs, lab_refs, cache, world), diffs,
                previous.releases if previous else {}, previous.notes_on(set(diffs)) if previous else {})


def _absent(facts: Facts, name: str) -> str:
    """Where and why the extractor of fact `name` failed at these pins, or empty."""
    unknown = facts.unknown_for(name)
    return f"{unknown.where}: {unknown.reason}" if unknown is not None else ""


def _assemble(site: Site, track: Track, files: list[SourceFile], rendered: list[Rendered],
              pages_cache: PageCache, notebooks: bool = True) -> Generated:
    """The rendered pages with the outline's pages, the nav, the labs' images, the warnings and
    the failures (the labs that raised: each page says so, and the build fails unless told not to)."""
    world = site.world
    ready = world.artifacts.results()
    figures = _figures(world)
    assets = [a for name in world.labs for a in lab_assets(name, ready.get(name, LabArtifacts()))]
    if notebooks:  # the labs' notebooks (an older edition links the current labs)
        assets += notebook_assets(world.corpus.project.root, list(world.labs.values()),
                                  world.corpus.pins, world.cache)
    assets += figures.assets(_figures_in(text for a in site.articles.values() for text, _ in a.prose()))
    assets += [a for r in rendered for a in r.page.assets]  # the source pages' hover-card data
    failures = tuple(e for name, r in ready.items()
                     if name in world.labs and (e := lab_failure(world.labs[name], r)))
    warnings = [f"{p} links nowhere yet" for p in sorted(set(world.prose.unresolved))]
    warnings += canonical_failure(ready)
    warnings += [f"figure {name} could not be made: {why}"
                 for name, why in sorted(figures.failures.items())]
    # A `kind: lab` page is the walkthrough of its lab: the lab's page links it, the nav does not.
    articles, labs = site.articles.values(), world.labs.values()
    written = [Written("article", a.slug, a.title, a.phase, a.order, a.summary) for a in articles
               if not (a.kind == "lab" and a.kernels and set(a.kernels) <= set(world.labs))]
    written += [Written("lab", lab.name, lab.heading, lab.phase) for lab in labs]
    infos = [FileInfo(f.pin, f.path, len(split_lines(f.text)), len(site.on_file.get(f.path, ())))
             for f in files]
    pages = [r.page for r in rendered if r.kind != CHANGES.name]
    changes = [r.page for r in rendered if r.kind == CHANGES.name]
    out = assemble(track, world.corpus, pages, written, infos, {"Lowering rules": RULES}, assets,
                   warnings, changes)
    counts = tuple(PageCount(kind, pages_cache.rendered[kind], pages_cache.cached[kind])
                   for kind in ("source", "article"))
    index = search_assets(files, out.pages, world.cache)  # the search index's pieces
    return replace(out, assets=out.assets + tuple(index), counts=counts, failures=failures,
                   coverage=tuple(world.ir.coverage()))


def _figures(world: World) -> Figures:
    assert isinstance(world.prose.figures, Figures)
    return world.prose.figures


@dataclass(frozen=True)
class Pages:
    """Every page of `kinds`, planned from `site` (each keyed by its inputs) and rendered."""

    site: Site
    kinds: Mapping[str, PageKind[Any]]

    @property
    def prose(self) -> Prose:
        return self.site.world.prose

    def jobs(self, artifacts: bool) -> list[Job]:
        """The pages whose inputs hold the labs' artifacts (`artifacts`), or the others."""
        out = []
        for kind in self.kinds.values():
            for name in kind.pages(self.site, artifacts):
                inputs = kind.inputs(self.site, name)
                out.append(Job(kind.name, name, page_key(self.site.world.key, kind.name, inputs), inputs))
        return out

    def render(self, job: Job) -> Page:
        return self.kinds[job.kind].render(self.site.world, job.inputs)

    def prepare(self, todo: Sequence[Job]) -> None:
        """Before the workers fork: compute once what they would each compute again."""
        world = self.site.world
        world.docs.prepare()
        texts = [text for job in todo for text in self.kinds[job.kind].prose(world, job.inputs)]
        if any("{{fact:" in text for text in texts):
            world.prose.load_facts()
            if world.previous is not None:
                world.previous.facts  # noqa: B018  (once, before the workers fork: the diff pages' older notes)
        for name in _figures_in(texts):
            _figures(world)(name)


def _figures_in(texts: Iterable[str]) -> list[str]:
    """The names of the figures `texts` cite, once each."""
    return list(dict.fromkeys(p.target for text in texts if "figure" in text
                              for p in parse(text)[0] if p.kind == "figure"))


LAB_REFS_KIND = "lab-refs"


def _lab_refs(index: Index, labs: Sequence[LabInfo], cache: Cache | None,
              world: str) -> dict[str, list[Reference]]:
    """Each lab's references into the corpus (cached: resolving them reads many modules)."""
    out = {}
    for lab in labs:
        key = page_key(world, "lab-refs", lab.name, lab.text)
        out[lab.name] = kept_object(cache, LAB_REFS_KIND, key, list,
                              partial(index.references_in, lab.text, lab.path))
    return out


RESOLVED_KIND = "resolved"


def _resolved(article: Article, corpus: Corpus, symbols: PinnedSymbols, cache: Cache | None,
              world: str) -> tuple[ResolvedNote, ...]:
    """An article's notes at the pins, read back while its notes and the world (the pins and
    their files: what placing a note reads) are unchanged."""
    return kept_object(cache, RESOLVED_KIND, page_key(world, RESOLVED_KIND, article.notes), tuple,
                 lambda: resolve(article, corpus, symbols))


LABS_BY_FILE_KIND = "labs-by-file"


def _labs_by_file(index: Index, labs: Sequence[LabInfo], refs: Mapping[str, Sequence[Reference]],
                  cache: Cache | None, world: str) -> dict[str, tuple[TitledPage, ...]]:
    """`docs.labs_by_file`, read back while the world and the labs (their texts: their
    references) are unchanged."""
    return kept_object(cache, LABS_BY_FILE_KIND, page_key(world, LABS_BY_FILE_KIND, labs), dict,
                 lambda: labs_by_file(index, labs, refs))


def _share_symbols(index: Index, corpus: Corpus, paths: set[str]) -> PinnedSymbols:
    """The notes' files' symbols, from the index's scans when they are in memory already."""
    symbols = PinnedSymbols(corpus)
    for path in paths:
        pin, module = corpus.pin_of(path), module_of(path)
        summary = index.loaded_summary(module)
        if pin and corpus.has(pin, path) and index.files.get(module) == (pin, path) and summary:
            symbols.share(pin, path, summary.symbols)
    return symbols
