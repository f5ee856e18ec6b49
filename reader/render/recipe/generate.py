"""The site's recipe, as mkdocs' `build()` reads: open what comes from outside the process -> gather
the world every page kind shares -> collect each kind's plan -> render every page -> assemble the
site's pages and files. Only the first step reads git, fetches or starts a process of its own."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from reader.annotations import Article, ResolvedNote, load_articles, resolve
from reader.annotations.markup import parse
from reader.annotations.resolve import PinnedSymbols
from reader.cache import Cache, kept_object
from reader.corpus import Corpus, Project
from reader.editions import LineHistory, Past, line_history, load_past, older_corpora
from reader.errors import InputError
from reader.extract import Index
from reader.extract.fact import Facts
from reader.extract.providers import load_facts, load_rules
from reader.extract.rulehistory import RuleHistory, start_history
from reader.extract.ruletable import RuleTable
from reader.labs import (
    ArtifactRun,
    LabArtifacts,
    LabInfo,
    canonical_lab,
    code_of,
    lab_failure,
    load_labs,
    unknown_exercises,
)
from reader.labs.colab import ColabSource, project_colab
from reader.labs.notebook import start_shipped
from reader.model import Reference, SourceFile, line_count, module_of
from reader.progress import Quiet, reporting, unsaid
from reader.render.changes.kind import CHANGES
from reader.render.common.docs import Docs, source_resolver
from reader.render.common.model import NoteView, Page
from reader.render.common.notes import note_views
from reader.render.common.prose import Prose
from reader.render.common.templates import keep_compiled
from reader.render.common.urls import RULES
from reader.render.figures.figure import FigureInputs
from reader.render.figures.registry import NOT_COMPUTED, Figures
from reader.render.ir.site import IrPages, canonical_failure, wanted
from reader.render.lab.older import CurrentLabKind
from reader.render.lab.page import lab_assets, notebook_assets
from reader.render.recipe.kind import Content, PageKind, World
from reader.render.recipe.pagecache import PageCache, page_key, world_key
from reader.render.recipe.parallel import Job, Rendered
from reader.render.recipe.registry import KINDS
from reader.render.recipe.schedule import Schedule
from reader.render.search.index import CodeLines, code_lines, code_packs_kept, kept_search_assets
from reader.render.source.blame import blame_assets
from reader.render.track.navigation import Generated, PageCount, Written, assemble
from reader.render.track.overview import FileInfo
from reader.track import Track, load_track
from reader.workers import Workers


def generate_site(root: Path, track_file: str = "track.yaml", jobs: int | None = None,
                  cache: Cache | None = None, older: Older | None = None,
                  started: Started | None = None, later: Workers | None = None) -> Generated:
    """Every page of the project at `root`: its pins, outline, annotations and labs (`started`:
    their slow readers, started before: `start_slow`); `later`: the workers to make the search
    index on a process of their own, for `Generated.finished` to wait for (`close` ends it)."""
    with unsaid():
        corpus = Corpus.open(Project.load(root), cache, verify=True)
    return generate(corpus, load_track(root / track_file, corpus.cache), corpus.cache, jobs, older,
                    started, later)


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


def start_slow(corpus: Corpus, cache: Cache | None, workers: Workers,
               labs: list[LabInfo] | None = None, editions: Sequence[Corpus] | None = None) -> Started:
    """Start the slow readers of the project's current edition: its labs' jax run (with the pinned
    kernels lowered, when the pins have them) and its rule history (a release an older edition
    pins read from `editions`, those editions' files; None: the project's own older editions,
    so that a warm build finds the history the full build kept)."""
    if editions is None:
        editions = older_corpora(corpus.project.root, cache or corpus.cache)
    labs = load_labs(corpus.project.root, cache) if labs is None else labs
    canonical = [canonical_lab()] if labs and wanted(corpus) else []
    artifacts = ArtifactRun(corpus.project.root, [*labs, *canonical], cache)
    with reporting(Quiet()):  # quiet: no bars of theirs beside the build's
        history = start_history(corpus, workers, cache, editions)
    return Started(labs, artifacts, history, workers)


@dataclass(frozen=True)
class Older:
    """An older edition's build (`reader.editions`): it runs no labs, and its lab pages link
    `labs`, the current edition's, `to_current` above its root."""

    labs: tuple[LabInfo, ...]
    to_current: str


def generate(corpus: Corpus, track: Track, cache: Cache | None, jobs: int | None = None,
             older: Older | None = None, started: Started | None = None,
             later: Workers | None = None) -> Generated:
    """Render every page: the pinned files, the articles, the labs, the outline and its overview pages.

    The recipe, one call a step: open -> gather -> collect -> render -> assemble. `Schedule`
    decides where and when each runs (a fork pool, a cold build's warm-up, the pages waiting for
    the labs' artifacts in a second pass); the pages are every page of every kind in `KINDS`, and
    one whose inputs are unchanged since an earlier build is read back from the page cache.
    """
    kinds = KINDS if older is None else {**KINDS, "lab": CurrentLabKind(older.to_current)}
    keep_compiled(cache)
    files = pinned_files(corpus)
    context = _context(corpus, files)  # what the search index lists without indexing its lines
    lines = _start_code_lines(files, context, cache, later)
    try:
        pages_cache = PageCache(cache)
        with Schedule(jobs) as run:
            # open: what comes from outside the process (the labs' child, the rule history's reads,
            # git and fetches for the previous edition), the pinned files scanned meanwhile
            mine = started is None  # started here, so ended here when the build fails (Ctrl-C too)
            slow = started if started is not None else start_slow(
                corpus, cache, run.workers, None if older is None else [], None if older is None else ())
            try:
                opened = open_sources(corpus, files, cache, run, older, slow)
                # the labs' notebooks the cache lacks (a lab's edit), made beside the rest
                notebooks = start_shipped(corpus.project.root, opened.labs, corpus.pins, cache, run.workers) \
                    if older is None else None
                # gather: the world the kinds share (the notes at the pins, the files as pages show
                # them, the prose's resolver and facts, the lowered views)
                world = gather(corpus, track, cache, files, opened, run)
                # collect: what each kind plans its pages from
                plans = {name: kind.collect(world) for name, kind in kinds.items()}
                # render: every kind's pages, rendered or read back from the page cache
                pages = run.pages(Pages(world, kinds, plans), pages_cache, wait=world.artifacts.running)
                served = notebooks() if notebooks is not None else None
            except BaseException:
                if mine:
                    slow.stop()
                raise
        # assemble: the outline's pages, the nav, the labs' images and notebooks, the search index
        out = _assemble(world, track, files, pages, pages_cache, served)
    except BaseException:
        if lines is not None and later is not None:
            later.close()  # (ends the code's part of the search index, started above)
        raise
    return _with_search(files, context, out, world.cache, later, lines)


def _defines(index: Index, path: str, symbol: str) -> bool:
    """Whether `path` is a pinned file that defines `symbol` (any symbol when empty)."""
    module = module_of(path)
    found = index.files.get(module)
    return found is not None and found[1] == path and (not symbol or index.symbol(module, symbol) is not None)


def _defined(labs: Sequence[LabInfo], index: Index, corpus: Corpus,
             cache: Cache | None) -> Callable[[str, str], bool]:
    """`_defines` for the labs' exercises, the answers kept by the files they name (their pins and
    blobs): a warm build loads none of those files' scans."""
    asked = sorted({(e.path, e.symbol) for lab in labs for e in lab.exercises})
    where = [(path, symbol, found, corpus.blob(*found) if found and corpus.has(*found) else "")
             for path, symbol in asked for found in [index.files.get(module_of(path))]]
    known = kept_object(cache, "exercises", page_key("", "exercises", where), frozenset,
                        lambda: frozenset((p, s) for p, s in asked if _defines(index, p, s)))
    return lambda path, symbol: (path, symbol) in known


def pinned_files(corpus: Corpus) -> list[SourceFile]:
    """Every pinned file with its blob and text."""
    return [SourceFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
            for pin, path in corpus.all_files()]


@dataclass(frozen=True)
class Opened:
    """What a build reads from outside its process, all at its start: the labs and their run (a
    child process), the rule history's releases (read on processes of their own), the corpus's
    index, the annotations, the previous edition (git, fetches) and the project's repository."""

    labs: list[LabInfo]
    artifacts: ArtifactRun
    history: Callable[[Iterable[RuleTable]], RuleHistory | None]
    """The rule history given the pins' tables: waits for its releases' reads."""
    index: Index
    articles: list[Article]
    past: Past
    colab: ColabSource
    lines: Callable[[], LineHistory | None] = lambda: None
    """The current edition's lines across the releases read (`editions.blame`), once the rule
    history's reads have put those releases in the cache."""


def open_sources(corpus: Corpus, files: Sequence[SourceFile], cache: Cache | None, run: Schedule,
                 older: Older | None, started: Started) -> Opened:
    """With the slow readers `started` (an older edition's run none), read the rest while the
    pinned files are scanned."""
    root = corpus.project.root
    labs = started.labs if older is None else list(older.labs)
    artifacts, history = started.artifacts, started.history
    # index: every pinned file scanned, while the annotations' YAML and the previous edition are read
    index, (articles, past) = run.index(corpus, cache, meanwhile=lambda: (
        load_articles(root, cache), load_past(corpus, files, cache)))
    if older is None:  # an older edition shows the current labs' exercises it lacks as such
        try:
            unknown_exercises(labs, _defined(labs, index, corpus, cache))
        except InputError:
            artifacts.stop()
            raise
    colab = project_colab(root) if older is None else ColabSource("", "")
    lines = partial(line_history, corpus, past.previous, cache) if older is None and cache is not None \
        else _no_lines
    return Opened(labs, artifacts, history, index, articles, past, colab, lines)


def _no_lines() -> LineHistory | None:
    return None


def gather(corpus: Corpus, track: Track, cache: Cache | None, files: Sequence[SourceFile], opened: Opened,
           run: Schedule) -> World:
    """The world every kind renders from: the notes at the pins, the files as pages show them, the
    prose's resolver, the lowered views; the highlighting runs in the background meanwhile."""
    index, labs, articles = opened.index, opened.labs, opened.articles
    # highlight: pygments once per file, in the background
    run.highlight(files, cache)
    outlined = {e.slug: e.title for ph in track.phases for e in ph.entries if e.slug}
    titles = {**outlined, **{a.slug: a.title for a in articles}}
    world = world_key(corpus, labs, titles)
    # notes: resolved at the pins
    symbols = _share_symbols(index, corpus, {n.path for a in articles for n in a.notes})
    notes = {a.slug: note_views(a, _resolved(a, corpus, symbols, cache, world), corpus) for a in articles}
    on_file: dict[str, list[NoteView]] = defaultdict(list)
    for views in notes.values():
        for n in views:
            on_file[n.path].append(n)
    lab_refs = _lab_refs(index, labs, cache, world)
    docs = Docs(index, corpus, files)
    facts = partial(load_facts, corpus, index, run.workers)
    figures = Figures(FigureInputs(corpus, lambda: prose.load_facts()), cache, world)
    prose = Prose(source_resolver(index, docs), titles, {lab.name: lab.heading for lab in labs},
                  lambda: {f.name: f.value for f in facts()}, figures,
                  absent=lambda name: _absent(facts(), name), figure_absent=figures.absent, cache=cache)
    by_name = {lab.name: lab for lab in labs}
    ir = IrPages(corpus, index, docs.files, by_name, opened.artifacts.results)
    # the rule tables, the facts when a text cites one, the where-used lists: now on a cold build;
    # else when a page first needs them (`Pages.prepare`: before the workers fork)
    cited = _cite_facts([*(text for a in articles for text, _ in a.prose()), *(lab.text for lab in labs)])
    run.while_highlighting(*([prose.load_facts] if cited else []), partial(load_rules, corpus, index),
                           docs.prepare)
    with unsaid():
        history = opened.history(load_rules(corpus, index))
        blame = opened.lines()
    return World(world, corpus, cache, index, docs, prose, by_name, lab_refs, opened.artifacts, ir,
                 Content({a.slug: a for a in articles}, notes, on_file), opened.past, history, opened.colab,
                 blame)


def _cite_facts(texts: Iterable[str]) -> bool:
    """Whether any of `texts` cites a fact (`{{fact:NAME}}`)."""
    return any(p.kind == "fact" for text in texts if "fact" in text for p in parse(text)[0])


def _absent(facts: Facts, name: str) -> str:
    """Where and why the extractor of fact `name` failed at these pins, or empty."""
    unknown = facts.unknown_for(name)
    return f"{unknown.where}: {unknown.reason}" if unknown is not None else ""


def _assemble(world: World, track: Track, files: list[SourceFile], rendered: list[Rendered],
              pages_cache: PageCache, notebooks: Mapping[str, str] | None = None) -> Generated:
    """The rendered pages with the outline's pages, the nav, the labs' images and `notebooks` (by
    lab name; an older edition links the current labs'), the warnings and the failures (the labs
    that raised: each page says so, and the build fails unless told not to)."""
    ready = world.artifacts.results()
    figures = _figures(world)
    assets = [a for name in world.labs for a in lab_assets(name, ready.get(name, LabArtifacts()))]
    if notebooks is not None:
        assets += notebook_assets(notebooks)
    assets += figures.assets(_figures_in(text for a in world.content.articles.values() for text, _ in a.prose()))
    assets += [a for r in rendered for a in r.page.assets]  # the source pages' hover-card data
    assets += blame_assets(world.blame)
    failures = tuple(e for name, r in ready.items()
                     if name in world.labs and (e := lab_failure(world.labs[name], r)))
    warnings = [f"{p} links nowhere yet" for p in sorted(set(world.prose.unresolved))]
    warnings += canonical_failure(ready)
    warnings += [f"figure {name}{NOT_COMPUTED}: {e}"
                 for name, e in sorted(figures.failures.items())]
    # A `kind: lab` page is the walkthrough of its lab: the lab's page links it, the nav does not.
    articles, labs = world.content.articles.values(), world.labs.values()
    written = [Written("article", a.slug, a.title, a.phase, a.order, a.summary) for a in articles
               if not (a.kind == "lab" and a.kernels and set(a.kernels) <= set(world.labs))]
    written += [Written("lab", lab.name, lab.heading, lab.phase) for lab in labs]
    infos = [FileInfo(f.pin, f.path, line_count(f.text), len(world.content.on_file.get(f.path, ())))
             for f in files]
    pages = [r.page for r in rendered if r.kind != CHANGES.name]
    changes = [r.page for r in rendered if r.kind == CHANGES.name]
    out = assemble(track, world.corpus, pages, written, infos, {"Lowering rules": RULES}, assets,
                   warnings, changes)
    counts = tuple(PageCount(kind, pages_cache.rendered[kind], pages_cache.cached[kind])
                   for kind in ("source", "article"))
    pins = world.corpus.pins
    by_id = {id(r.page): r.key for r in rendered if r.key}
    keys = {p.src_uri: key for p in out.pages if (key := by_id.get(id(p)))}
    return replace(out, counts=counts, failures=failures,
                   coverage=tuple(world.ir.coverage()), keys=keys,
                   missing=tuple(p for pin in sorted(pins) for p in world.corpus.missing(pin)))


def _context(corpus: Corpus, files: Sequence[SourceFile]) -> frozenset[str]:
    """The pinned files the search index lists but does not index the lines of (`in_context`)."""
    pins = corpus.pins
    return frozenset(f.path for f in files if f.pin in pins and pins[f.pin].in_context(f.path))


def _start_code_lines(files: Sequence[SourceFile], context: frozenset[str], cache: Cache | None,
                      workers: Workers | None) -> Callable[[], CodeLines] | None:
    """The search index's part that the pages do not change (`code_lines`), started on a process
    of its own now, beside the pages, when the index will be made on one too (`workers`) and the
    cache lacks the code's packs; None otherwise (the index makes all of it)."""
    if workers is None or not workers.may_fork():
        return None
    if code_packs_kept(files, cache, context):
        return None
    return workers.beside(lambda: code_lines(files, context))


def _with_search(files: Sequence[SourceFile], context: frozenset[str], out: Generated,
                 cache: Cache | None, workers: Workers | None,
                 lines: Callable[[], CodeLines] | None = None) -> Generated:
    """`out` with the search index's files (`kept_search_assets`): made here, or on a process
    forked now when `workers` are given, `later` (the caller goes on: mkdocs lays the pages out);
    `lines`: its part made beside the pages (`_start_code_lines`), waited for here."""
    index = partial(kept_search_assets, files, out.pages, out.keys, cache, context,
                    lines() if lines is not None else None)
    if workers is None:
        return replace(out, assets=out.assets + tuple(index()))
    return replace(out, later=workers.beside(lambda: tuple(index())))


def _figures(world: World) -> Figures:
    assert isinstance(world.prose.figures, Figures)
    return world.prose.figures


@dataclass(frozen=True)
class Pages:
    """Every page of `kinds`, planned from what each collected (`plans`, by kind name; each page
    keyed by its inputs) and rendered from `world`."""

    world: World
    kinds: Mapping[str, PageKind[Any, Any]]
    plans: Mapping[str, Any]

    @property
    def prose(self) -> Prose:
        return self.world.prose

    def jobs(self, artifacts: bool) -> list[Job]:
        """The pages whose inputs hold the labs' artifacts (`artifacts`), or the others."""
        out = []
        for kind in self.kinds.values():
            plan = self.plans[kind.name]
            for name in kind.pages(plan, artifacts):
                inputs = kind.inputs(plan, name)
                out.append(Job(kind.name, name, page_key(self.world.key, kind.name, inputs), inputs))
        return out

    def render(self, job: Job) -> Page:
        return self.kinds[job.kind].render(self.world, job.inputs)

    def prepare(self, todo: Sequence[Job]) -> None:
        """Before the workers fork: compute once what they would each compute again."""
        world = self.world
        world.docs.prepare()
        texts = [text for job in todo for text in self.kinds[job.kind].prose(world, job.inputs)]
        if _cite_facts(texts):
            world.prose.load_facts()
            if world.past.previous is not None:
                world.past.previous.facts  # noqa: B018  (once, before the workers fork: the diff pages' older notes)
        for name in _figures_in(texts):
            _figures(world)(name)


def _figures_in(texts: Iterable[str]) -> list[str]:
    """The names of the figures `texts` cite, once each."""
    return list(dict.fromkeys(p.target for text in texts if "figure" in text
                              for p in parse(text)[0] if p.kind == "figure"))


LAB_REFS_KIND = "lab-refs"


def _lab_refs(index: Index, labs: Sequence[LabInfo], cache: Cache | None,
              world: str) -> dict[str, list[Reference]]:
    """Each lab's references into the corpus (cached: resolving them reads many modules), kept by
    the lab's code without its docstring's words (`code_of`: its lines kept): a docstring holds no
    reference, and resolving a lab's again took 0.13 s of a docstring's edit."""
    out = {}
    for lab in labs:
        key = page_key(world, "lab-refs", lab.name, code_of(lab.text))
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


def _share_symbols(index: Index, corpus: Corpus, paths: set[str]) -> PinnedSymbols:
    """The notes' files' symbols, from the index's scans when they are in memory already."""
    symbols = PinnedSymbols(corpus)
    for path in paths:
        pin, module = corpus.pin_of(path), module_of(path)
        summary = index.loaded_summary(module)
        if pin and corpus.has(pin, path) and index.files.get(module) == (pin, path) and summary:
            symbols.share(pin, path, summary.symbols)
    return symbols
