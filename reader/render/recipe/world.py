"""The world every page kind renders from, gathered from what the recipe opened (`gather`: the notes
at the pins, the files as pages show them, the prose's resolver and facts, the lowered views,
the rule history), and every page planned and rendered over it (`Pages`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from reader.annotations import Article, ResolvedNote, resolve
from reader.annotations.markup import parse
from reader.annotations.model import Note
from reader.annotations.resolve import SYMBOLS, PinnedSymbols
from reader.cache import Cache
from reader.corpus import Corpus
from reader.editions import LineHistory, Past
from reader.extract import Index
from reader.extract.fact import Facts
from reader.extract.providers import load_facts, load_rules
from reader.extract.rulehistory import RuleHistory
from reader.extract.ruletable import RuleTable
from reader.model import SourceFile, module_of
from reader.progress import unsaid
from reader.providers import Provider, how, key, pickled, provide
from reader.render.common.docs import Docs, source_resolver
from reader.render.common.figure import FigureInputs
from reader.render.common.keys import world_key
from reader.render.common.model import NoteView, Page
from reader.render.common.notes import note_views
from reader.render.common.prose import Prose
from reader.render.figures.registry import Figures
from reader.render.kind import Content, Editions, Labs, PageKind, World
from reader.render.recipe import registry
from reader.render.recipe.pagecache import PAGE, Shown
from reader.render.recipe.parallel import Job
from reader.render.recipe.schedule import Schedule
from reader.track import Track


@dataclass(frozen=True)
class Opened:
    """What a build reads from outside its process, all at its start: the labs, their run (a child
    process) and the project's repository their Colab links name, the rule history's releases (read
    on processes of their own), the corpus's index, the annotations, the previous edition (git, fetches)."""

    labs: Labs
    history: Callable[[Iterable[RuleTable]], RuleHistory | None]
    """The rule history given the pins' tables: waits for its releases' reads."""
    index: Index
    articles: list[Article]
    past: Past
    lines: Callable[[Mapping[str, str]], LineHistory | None] = lambda unhad: None
    """The current edition's lines across the releases read (`editions.blame`), once the rule
    history's reads have put those releases in the cache."""


def gather(corpus: Corpus, track: Track, cache: Cache | None, files: Sequence[SourceFile], opened: Opened,
           run: Schedule) -> World:
    """The world every kind renders from: the notes at the pins, the files as pages show them, the
    prose's resolver, the lowered views; the highlighting runs in the background meanwhile."""
    index, articles = opened.index, opened.articles
    labs = list(opened.labs.by_name.values())
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
    lab_refs = registry.lab_refs(labs, index, cache, world)
    docs = Docs(index, corpus, files)
    facts = partial(load_facts, corpus, index, run.workers)
    figures = Figures(FigureInputs(corpus, lambda: prose.load_facts()), cache, world)
    prose = Prose(source_resolver(index, docs), titles, {lab.name: lab.heading for lab in labs},
                  lambda: {f.name: f.value for f in facts()}, figures,
                  absent=lambda name: _absent(facts(), name), figure_absent=figures.absent, cache=cache)
    ir = registry.IrPages(corpus, index, docs.files, opened.labs.by_name, opened.labs.artifacts.results)
    # the rule tables, the facts when a text cites one, the where-used lists: now on a cold build;
    # else when a page first needs them (`Pages.prepare`: before the workers fork)
    cited = _cite_facts([*(text for a in articles for text, _ in a.prose()), *(lab.text for lab in labs)])
    run.while_highlighting(*([prose.load_facts] if cited else []), partial(load_rules, corpus, index),
                           docs.prepare)
    with unsaid():
        history = opened.history(load_rules(corpus, index))
        blame = opened.lines({r.spec: r.failure for r in history.failures if not r.commit} if history else {})
    return World(world, corpus, cache, index, docs, prose, ir, Content({a.slug: a for a in articles}, notes, on_file),
                 replace(opened.labs, refs=lab_refs), Editions(opened.past, history, blame))


def _cite_facts(texts: Iterable[str]) -> bool:
    """Whether any of `texts` cites a fact (`{{fact:NAME}}`)."""
    return any(p.kind == "fact" for text in texts if "fact" in text for p in parse(text)[0])


def _absent(facts: Facts, name: str) -> str:
    """Where and why the extractor of fact `name` failed at these pins, or empty."""
    unknown = facts.unknown_for(name)
    return f"{unknown.where}: {unknown.reason}" if unknown is not None else ""


def figures_of(world: World) -> Figures:
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
                shown = Shown(self.world.key, kind.name, inputs)
                out.append(Job(kind.name, name, key(PAGE, shown), shown))
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
            if world.editions.past.previous is not None:
                world.editions.past.previous.facts  # noqa: B018  (once, before the workers fork: the diff pages' older notes)
        for name in figures_in(texts):
            figures_of(world)(name)


def figures_in(texts: Iterable[str]) -> list[str]:
    """The names of the figures `texts` cite, once each."""
    return list(dict.fromkeys(p.target for text in texts if "figure" in text
                              for p in parse(text)[0] if p.kind == "figure"))


@dataclass(frozen=True)
class Placed:
    """What an article's notes at the pins read: the world (the pins and their files: what placing
    a note reads) and its notes; the producer's way to them: the article, the corpus, the symbols."""

    world: str
    notes: tuple[Note, ...]
    article: Article | None = how()
    corpus: Corpus | None = how()
    symbols: PinnedSymbols | None = how()


def _placed(inputs: Placed) -> tuple[ResolvedNote, ...]:
    assert inputs.article is not None and inputs.corpus is not None and inputs.symbols is not None
    return tuple(resolve(inputs.article, inputs.corpus, inputs.symbols))


RESOLVED: Provider[Placed, tuple[ResolvedNote, ...]] = Provider("resolved", Placed, _placed, pickled(tuple), (SYMBOLS,))
"""An article's notes at the pins (`resolve`)."""


def _resolved(article: Article, corpus: Corpus, symbols: PinnedSymbols, cache: Cache | None,
              world: str) -> tuple[ResolvedNote, ...]:
    """An article's notes at the pins, read back while its notes and the world are unchanged."""
    return provide(RESOLVED, Placed(world, tuple(article.notes), article, corpus, symbols), cache)


def _share_symbols(index: Index, corpus: Corpus, paths: set[str]) -> PinnedSymbols:
    """The notes' files' symbols, from the index's scans when they are in memory already."""
    symbols = PinnedSymbols(corpus)
    for path in paths:
        pin, module = corpus.pin_of(path), module_of(path)
        summary = index.loaded_summary(module)
        if pin and corpus.has(pin, path) and index.files.get(module) == (pin, path) and summary:
            symbols.share(pin, path, summary.symbols)
    return symbols
