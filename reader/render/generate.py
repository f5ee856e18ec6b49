"""The site's recipe (index -> highlight -> notes -> facts -> pages -> assemble), and what its
pages are rendered from: the notes at the pins, the source docs, the labs."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reader.annotations import Article, load_articles, resolve
from reader.annotations.markup import parse
from reader.annotations.resolve import PinnedSymbols
from reader.cache import Cache, blob_sha
from reader.claims.env import label
from reader.corpus import Corpus, Project
from reader.extract import Index
from reader.extract.fact import load_facts
from reader.extract.ruletable import load_rules
from reader.extract.symbols import symbols_of
from reader.model import Reference, SourceFile, module_of, split_lines
from reader.render.article import render_article
from reader.render.content import article_doc, note_views
from reader.render.figure import FigureInputs
from reader.render.figures import Figures
from reader.render.irsite import IrPages, canonical_failure, wanted
from reader.render.lab import LabDoc, lab_assets, render_lab
from reader.render.labs import (
    ArtifactRun,
    LabArtifacts,
    LabInfo,
    canonical_lab,
    lab_failure,
    load_labs,
)
from reader.render.links import definitions, linked_refs, target_of, uses_from
from reader.render.model import DefinitionView, NoteView, Page, PageLink, SourceDoc, UseView
from reader.render.moves import load_moves, move_page
from reader.render.navigation import Generated, Written, assemble
from reader.render.overview import FileInfo
from reader.render.pagecache import PageCache, page_key, world_key
from reader.render.pages import source_page
from reader.render.parallel import Job
from reader.render.prose import Prose, SourceResolver
from reader.render.rules import rules_page
from reader.render.schedule import Schedule
from reader.render.urls import RULES, article_page, lab_page
from reader.render.urls import source_page as source_uri
from reader.track import Track, load_track


def generate_site(root: Path, track_file: str = "track.yaml", jobs: int | None = None,
                  cache: Cache | None = None) -> Generated:
    """Every page of the project at `root`: its pins, outline, annotations and labs."""
    corpus = Corpus.open(Project.load(root), cache)
    return generate(corpus, load_track(root / track_file), corpus.cache, jobs)


def generate(corpus: Corpus, track: Track, cache: Cache | None, jobs: int | None = None) -> Generated:
    """Render every page: the pinned files, the articles, the labs, the outline and its overview pages.

    The recipe, one call a step: index -> highlight -> notes -> facts -> pages -> assemble.
    `Schedule` decides where and when each runs (a fork pool, a cold build's warm-up, the labs'
    pages in a second pass); a page whose inputs are unchanged since an earlier build is read
    back from the page cache.
    """
    root = corpus.project.root
    labs = load_labs(root)
    canonical = [canonical_lab()] if labs and wanted(corpus) else []  # pinned kernels lowered
    artifacts = ArtifactRun(root, [*labs, *canonical], cache)  # the labs' jax run: a child process from here on
    files = pinned_files(corpus)
    pages_cache = PageCache(cache)
    with Schedule(jobs) as run:
        # index: every pinned file scanned, while the annotations' YAML is read
        index, articles = run.index(corpus, cache, meanwhile=lambda: load_articles(root, cache))
        # highlight: pygments once per file, in the background
        run.highlight([(f.blob, f.text) for f in files], cache)
        # notes: resolved at the pins, with everything the pages share
        site = _read_site(corpus, track, cache, index, labs, files, artifacts, articles)
        # facts (and where-used lists): now on a cold build; else when a page first needs them
        run.while_highlighting(site.prose.load_facts, site.docs.prepare)
        # pages: rendered, or read back from the page cache
        pages = run.pages(site, pages_cache, site.jobs(files), later=site.lab_jobs,
                          wait=artifacts.running)
    # assemble: the outline's pages, the nav, the labs' images, warnings and failures
    return _assemble(site, track, files, pages, pages_cache)


def pinned_files(corpus: Corpus) -> list[SourceFile]:
    """Every pinned file with its blob and text."""
    return [SourceFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
            for pin, path in corpus.all_files()]


def _read_site(corpus: Corpus, track: Track, cache: Cache | None, index: Index,
               labs: list[LabInfo], files: list[SourceFile], artifacts: ArtifactRun,
               articles: list[Article]) -> _Site:
    """The notes at the pins, and everything pages are rendered from."""
    symbols = _share_symbols(index, corpus, {n.path for a in articles for n in a.notes})
    notes = {a.slug: note_views(a, resolve(a, corpus, symbols), corpus) for a in articles}
    on_file: dict[str, list[NoteView]] = defaultdict(list)
    for views in notes.values():
        for n in views:
            on_file[n.path].append(n)
    outlined = {e.slug: e.title for ph in track.phases for e in ph.entries if e.slug}
    titles = {**outlined, **{a.slug: a.title for a in articles}}
    world = world_key(corpus, labs, titles)
    lab_refs = _lab_refs(index, labs, cache, world)
    docs = Docs(index, corpus, files, on_file, labs, lab_refs)
    prose = Prose(source_resolver(index, docs), titles, {lab.name: lab.heading for lab in labs},
                  lambda: {f.name: f.value for f in load_facts(corpus, index)},
                  Figures(FigureInputs(corpus, lambda: prose.load_facts()), cache, world))
    return _Site(corpus, cache, index, docs, prose, world, {a.slug: a for a in articles}, notes,
                 {lab.name: lab for lab in labs}, lab_refs, artifacts,
                 IrPages(corpus, index, docs.files, {lab.name: lab for lab in labs}, artifacts.results))


def _assemble(site: _Site, track: Track, files: list[SourceFile], pages: list[Page],
              pages_cache: PageCache) -> Generated:
    """The rendered pages with the outline's pages, the nav, the labs' images, the warnings and
    the failures (the labs that raised: each page says so, and the build fails unless told not to)."""
    ready = site.artifacts.results()
    assets = [a for name in site.labs for a in lab_assets(name, ready.get(name, LabArtifacts()))]
    assets += site.figures.assets(site.figures_cited(site.articles.values()))
    assets += [a for p in pages for a in p.assets]  # the source pages' hover-card data
    failures = tuple(e for name, r in ready.items()
                     if name in site.labs and (e := lab_failure(site.labs[name], r)))
    warnings = [f"{p} links nowhere yet" for p in sorted(set(site.prose.unresolved))]
    warnings += canonical_failure(ready)
    warnings += [f"figure {name} could not be made: {why}"
                 for name, why in sorted(site.figures.failures.items())]
    # A `kind: lab` page is the walkthrough of its lab: the lab's page links it, the nav does not.
    articles, labs = site.articles.values(), site.labs.values()
    written = [Written("article", a.slug, a.title, a.phase, a.order, a.summary) for a in articles
               if not (a.kind == "lab" and a.kernels and set(a.kernels) <= set(site.labs))]
    written += [Written("lab", lab.name, lab.heading, lab.phase) for lab in labs]
    on_file = site.docs.on_file
    infos = [FileInfo(f.pin, f.path, len(split_lines(f.text)), len(on_file.get(f.path, ())))
             for f in files]
    shown = {p.src_uri for p in pages}
    changes = [move_page(stem, record, shown) for stem, record in load_moves(site.corpus.project.root)]
    out = assemble(track, site.corpus, pages, written, infos, {"Lowering rules": RULES}, assets,
                   warnings, changes)
    counts = tuple((kind, pages_cache.rendered[kind], pages_cache.cached[kind])
                   for kind in ("source", "article"))
    return replace(out, counts=counts, failures=failures, coverage=tuple(site.ir.coverage()))


@dataclass(frozen=True)
class _Site:
    """What the pages are rendered from, and the rendering of one page by kind and name."""

    corpus: Corpus
    cache: Cache | None
    index: Index
    docs: Docs
    prose: Prose
    world: str
    """`pagecache.world_key`: what any page may show besides its own inputs."""
    articles: Mapping[str, Article]
    notes: Mapping[str, Sequence[NoteView]]
    labs: Mapping[str, LabInfo]
    lab_refs: Mapping[str, Sequence[Reference]]
    artifacts: ArtifactRun
    ir: IrPages
    """The lowered views (labs', canonical kernels'), the rules behind their ops, their coverage."""

    def jobs(self, files: Sequence[SourceFile]) -> list[Job]:
        """Every source page, article and the rules page (the labs': `lab_jobs`), keyed by what
        each shows (see `pagecache`)."""
        on_file, world = self.docs.on_file, self.world
        # The kernels' lowered pages are known now unless the labs' run is still going.
        views = (lambda path: ()) if self.artifacts.running else self.ir.source_inputs
        out = [Job("source", f.path, page_key(world, "source", f.path, tuple(on_file.get(f.path, ())),
                                              *views(f.path)))
               for f in files if f.path not in self.ir.deferred]
        out += [self._article_job(a) for a in self.articles.values() if not self.ir.reads_kernel(a)]
        out.append(Job("rules", "", page_key(world, "rules")))
        return out

    def _article_job(self, a: Article, *views: object) -> Job:
        on_file = self.docs.on_file
        shown = sorted({r.path for r in a.reads} | {n.path for n in self.notes[a.slug]})
        return Job("article", a.slug, page_key(
            self.world, "article", a, self.notes[a.slug], self._commit(a),
            [(path, tuple(on_file.get(path, ()))) for path in shown], *views))

    def lab_jobs(self) -> list[Job]:
        ready = self.artifacts.results()
        on_file, world = self.docs.on_file, self.world
        # The files holding lowering rules or canonical kernels: their pages name the lowered views
        # their rules fed, or their kernels' lowered pages.
        deferred = [Job("source", path, page_key(world, "source", path, tuple(on_file.get(path, ())),
                                                   self.ir.source_inputs(path)))
                      for path in sorted(self.ir.deferred) if path in self.docs]
        return [Job("lab", name, page_key(self.world, "lab", name, self._readers(name),
                                          _digest(ready.get(name)))) for name in self.labs
                ] + deferred + [self._article_job(a, self.ir.article_inputs(a)) for a in self.articles.values()
                                 if self.ir.reads_kernel(a)] + self.ir.jobs(lambda *inputs: page_key(world, *inputs))

    def _readers(self, lab: str) -> tuple[tuple[str, str], ...]:
        return tuple((article_page(a.slug), a.title) for a in self.articles.values()
                     if lab in a.kernels)

    def _commit(self, a: Article) -> str:
        pin = self.corpus.pin_of(a.reads[0].path) if a.reads else None
        return self.corpus.pins[pin].commit if pin else ""

    def render(self, kind: str, name: str) -> Page:
        if kind == "source":
            src = self.docs[name]
            if name in self.ir.deferred or not self.artifacts.running:
                src = self.ir.doc(src)
            return _source_page(src, self.corpus, self.cache, self.prose)
        if kind == "ir":
            return self.ir.render(name, self.cache)
        if kind == "rules":
            index = self.index
            return rules_page(load_rules(self.corpus, index), lambda m, v: target_of(index, m, v))
        if kind == "lab":
            lab = self.labs[name]
            lab_doc = _lab_doc(lab, self.index, self.lab_refs[name], self.prose.source,
                               self.artifacts.results(), self._readers(name))
            return render_lab(lab_doc, self.cache, self.prose, self.ir.site)[0]
        a = self.articles[name]
        links = {n: (lab_page(n), lab.heading) for n, lab in self.labs.items()}
        docs = self.ir.kernel_docs(self.docs) if self.ir.reads_kernel(a) else self.docs
        doc = article_doc(a, self.notes[name], docs, self.index, links, self._commit(a),
                          label(self.corpus.pins))
        return render_article(doc, self.cache, self.prose)

    @property
    def figures(self) -> Figures:
        assert isinstance(self.prose.figures, Figures)
        return self.prose.figures

    def figures_cited(self, articles: Iterable[Article]) -> list[str]:
        """The names of the figures the articles' prose and notes cite, once each."""
        return _figures_in(text for a in articles for text, _ in a.prose())

    def prepare(self, todo: Sequence[Job]) -> None:
        """Before the workers fork: compute once what they would each compute again."""
        self.docs.prepare()
        texts = [text for job in todo for text in self._texts(job)]
        if any("{{fact:" in text for text in texts):
            self.prose.load_facts()
        for name in _figures_in(texts):
            self.figures(name)

    def _texts(self, job: Job) -> list[str]:
        if job.kind == "source":
            return [n.body for n in self.docs.on_file.get(job.name, ())]
        if job.kind == "article":
            return [text for text, _ in self.articles[job.name].prose()]
        return [self.labs[job.name].docstring] if job.kind == "lab" else []


class Docs(Mapping[str, SourceDoc]):
    """Every pinned file's `SourceDoc` by path, each built when first asked for (a page read
    back from the cache needs none)."""

    def __init__(self, index: Index, corpus: Corpus, files: Sequence[SourceFile],
                 on_file: Mapping[str, Sequence[NoteView]], labs: Sequence[LabInfo],
                 lab_refs: Mapping[str, Sequence[Reference]]):
        self.index, self.corpus, self.on_file = index, corpus, on_file
        self.files = {f.path: f for f in files}
        self.lab_uses = uses_from({(lab.path, lab_page(lab.name)): lab_refs[lab.name] for lab in labs})
        self.used_by = _labs_by_file(index, labs, lab_refs)
        self._built: dict[str, SourceDoc] = {}

    def __getitem__(self, path: str) -> SourceDoc:
        doc = self._built.get(path)
        if doc is None:
            f = self.files[path]
            doc = replace(source_doc(self.index, f, self.corpus.permalink(f.pin, f.path), self.lab_uses),
                          notes=tuple(self.on_file.get(path, ())), labs=self.used_by.get(path, ()))
            self._built[path] = doc
        return doc

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, path: object) -> bool:
        return path in self.files

    def prepare(self) -> None:
        """Compute what every doc shares (the corpus's where-used lists) once."""
        self.index.where_used("", "")


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
        key = page_key(world, "lab-refs", lab.name)
        found = cache.get_object(LAB_REFS_KIND, key) if cache is not None else None
        if not isinstance(found, list):
            found = index.references_in(lab.text, lab.path)
            if cache is not None:
                cache.put_object(LAB_REFS_KIND, key, found)
        out[lab.name] = found
    return out


def _digest(artifacts: LabArtifacts | None) -> str:
    """What a lab page shows of its artifacts, as a hash (the images are large)."""
    h = hashlib.sha1()
    for a in artifacts.files if artifacts is not None else ():
        h.update(a.name.encode() + b"\0" + hashlib.sha1(a.data).digest())
    h.update((artifacts.error if artifacts is not None else "-").encode())
    return h.hexdigest()


def _share_symbols(index: Index, corpus: Corpus, paths: set[str]) -> PinnedSymbols:
    """The notes' files' symbols, from the index's scans when they are in memory already."""
    symbols = PinnedSymbols(corpus)
    for path in paths:
        pin, module = corpus.pin_of(path), module_of(path)
        summary = index.loaded_summary(module)
        if pin and corpus.has(pin, path) and index.files.get(module) == (pin, path) and summary:
            symbols.share(pin, path, summary.symbols)
    return symbols


def _blob(text: str) -> str:
    return blob_sha(text.encode())


def _labs_by_file(index: Index, labs: Sequence[LabInfo],
                  refs: Mapping[str, Sequence[Reference]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Pinned path -> (lab page, title) of every lab that references it or exercises it."""
    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for lab in labs:
        link = (lab_page(lab.name), lab.heading)
        for r in refs[lab.name]:
            found = index.definition_of(r.target_module, r.target_qualname)
            if found is not None:
                out[found.path].add(link)
        for path, _ in lab.exercises:
            out[path].add(link)
    return {path: tuple(sorted(links)) for path, links in out.items()}


def _lab_doc(lab: LabInfo, index: Index, refs: Sequence[Reference], resolver: SourceResolver,
             ready: Mapping[str, LabArtifacts], readers: tuple[tuple[str, str], ...]) -> LabDoc:
    symbols = tuple(symbols_of(lab.text))
    doc = SourceDoc("", lab.path, _blob(lab.text), lab.text, lab_page(lab.name),
                    definitions=tuple(DefinitionView(s) for s in symbols),
                    refs=linked_refs(index, refs))
    exercises = tuple((path, symbol, resolver(path, symbol)) for path, symbol in lab.exercises)
    return LabDoc(lab, doc, exercises, ready.get(lab.name, LabArtifacts()), readers)


def source_doc(index: Index, f: SourceFile, permalink: str,
               extra_uses: dict[tuple[str, str], list[UseView]]) -> SourceDoc:
    """A pinned file with its definitions, their uses, and its references resolved to pages."""
    module = module_of(f.path)
    summary = index.summaries.get(module)
    symbols = summary.symbols if summary is not None else ()
    heads = summary.heads if summary is not None else ()
    return SourceDoc(f.pin, f.path, f.blob, f.text, source_uri(f.path), permalink,
                     definitions=definitions(index, module, symbols, extra_uses, heads),
                     refs=linked_refs(index, index.references(f.pin, f.path)) if summary else (),
                     docstring=summary.doc if summary is not None else "")


def source_resolver(index: Index, docs: Mapping[str, SourceDoc]) -> SourceResolver:
    """`[[path::symbol]]` -> the definition's line on its source page (the page for `[[path]]`)."""

    def resolve_source(path: str, qualname: str) -> PageLink | None:
        if path not in docs:
            return None
        if not qualname:
            return PageLink(source_uri(path))
        return target_of(index, module_of(path), qualname)
    return resolve_source


def _source_page(doc: SourceDoc, corpus: Corpus, cache: Cache | None, prose: Prose) -> Page:
    pin = corpus.pins[doc.pin]
    return source_page(doc, cache, prose, commit=pin.commit, release=pin.release,
                       commit_url=f"{pin.repo.removesuffix('.git')}/tree/{pin.commit}")
