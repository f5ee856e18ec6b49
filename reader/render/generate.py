"""The site's recipe: pinned files -> index and links -> notes at the pins -> every page and the nav."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reader.annotations import load_articles, resolve
from reader.cache import Cache, blob_sha
from reader.corpus import Corpus, Project
from reader.extract import Index, build_index
from reader.extract.facts import load_facts
from reader.extract.rules import load_rules
from reader.extract.symbols import symbols_of
from reader.model import Reference, module_of
from reader.render.article import render_article
from reader.render.content import article_doc, note_views
from reader.render.highlight import highlight_all, split_lines
from reader.render.lab import Asset, LabDoc, render_lab
from reader.render.labs import ArtifactRun, LabArtifacts, LabInfo, load_labs
from reader.render.links import definitions, linked_refs, target_of, uses_from
from reader.render.model import Definition, NoteView, Page, SourceDoc, Target, Use
from reader.render.navigation import Generated, Written, assemble
from reader.render.overview import FileInfo
from reader.render.pages import source_page
from reader.render.prose import Prose, SourceResolver
from reader.render.rules import rules_page
from reader.render.urls import RULES, article_page, lab_page
from reader.render.urls import source_page as source_uri
from reader.track import Track, load_track


@dataclass(frozen=True)
class PinnedFile:
    pin: str
    path: str
    blob: str
    text: str


def generate_site(root: Path, track_file: str = "track.yaml", jobs: int | None = None) -> Generated:
    """Every page of the project at `root`: its pins, outline, annotations and labs."""
    corpus = Corpus.open(Project.load(root))
    return generate(corpus, load_track(root / track_file), corpus.cache, jobs)


def generate(corpus: Corpus, track: Track, cache: Cache | None, jobs: int | None = None) -> Generated:
    """Render every page: the pinned files, the articles, the labs, the outline and its overview pages."""
    root = corpus.project.root
    labs = load_labs(root)
    artifacts = ArtifactRun(root, labs, cache)  # a child process, running while the rest renders
    files = [PinnedFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
             for pin, path in corpus.all_files()]
    workers = jobs or os.cpu_count() or 1
    index = build_index(corpus, cache, workers)
    highlight_all([(f.blob, f.text) for f in files] + [(_blob(lab.text), lab.text) for lab in labs],
                  cache, workers)

    articles = load_articles(root)
    notes = {a.slug: note_views(a, resolve(a, corpus), corpus) for a in articles}
    on_file: dict[str, list[NoteView]] = defaultdict(list)
    for views in notes.values():
        for n in views:
            on_file[n.path].append(n)
    lab_refs = {lab.name: index.references_in(lab.text, lab.path) for lab in labs}
    lab_uses = uses_from({(lab.path, lab_page(lab.name)): lab_refs[lab.name] for lab in labs})
    used_by = _labs_by_file(index, labs, lab_refs)
    docs = {f.path: replace(source_doc(index, f, corpus.permalink(f.pin, f.path), lab_uses),
                            notes=tuple(on_file.get(f.path, ())), labs=used_by.get(f.path, ()))
            for f in files}

    resolver = source_resolver(index, docs)
    outlined = {e.slug: e.title for ph in track.phases for e in ph.entries if e.slug}
    prose = Prose(resolver, {**outlined, **{a.slug: a.title for a in articles}},
                  {lab.name: lab.heading for lab in labs},
                  lambda: {f.name: f.value for f in load_facts(corpus, index)})
    pages = [_source_page(d, corpus, cache, prose) for d in docs.values()]
    lab_links = {lab.name: (lab_page(lab.name), lab.heading) for lab in labs}
    for a in articles:
        pin = corpus.pin_of(a.reads[0].path) if a.reads else None
        commit = corpus.pins[pin].commit if pin else ""
        pages.append(render_article(article_doc(a, notes[a.slug], docs, index, lab_links, commit),
                                    cache, prose))
    tables = load_rules(corpus, index)
    pages.append(rules_page(tables, lambda module, var: target_of(index, module, var)))
    assets: list[Asset] = []
    ready = artifacts.results()
    for lab in labs:
        readers = tuple((article_page(a.slug), a.title) for a in articles if lab.name in a.kernels)
        page, files_out = render_lab(_lab_doc(lab, index, lab_refs[lab.name], resolver, ready, readers),
                                     cache, prose)
        pages.append(page)
        assets += files_out
    warnings = [f"lab {name}: {r.error}" for name, r in ready.items() if r.error]
    warnings += [f"{p} links nowhere yet" for p in sorted(set(prose.unresolved))]

    # A `kind: lab` page is the walkthrough of its lab: the lab's page links it, the nav does not.
    lab_names = {lab.name for lab in labs}
    written = [Written("article", a.slug, a.title, a.phase, a.order, a.summary) for a in articles
               if not (a.kind == "lab" and a.kernels and set(a.kernels) <= lab_names)]
    written += [Written("lab", lab.name, lab.heading, lab.phase) for lab in labs]
    infos = [FileInfo(d.pin, d.path, len(split_lines(d.text)), len(d.notes)) for d in docs.values()]
    return assemble(track, corpus, pages, written, infos, {"Lowering rules": RULES}, assets, warnings)


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
                    definitions=tuple(Definition(s) for s in symbols), refs=linked_refs(index, refs))
    exercises = tuple((path, symbol, resolver(path, symbol)) for path, symbol in lab.exercises)
    return LabDoc(lab, doc, exercises, ready.get(lab.name, LabArtifacts()), readers)


def source_doc(index: Index, f: PinnedFile, permalink: str,
               extra_uses: dict[tuple[str, str], list[Use]]) -> SourceDoc:
    """A pinned file with its definitions, their uses, and its references resolved to pages."""
    module = module_of(f.path)
    summary = index.summaries.get(module)
    symbols = summary.symbols if summary is not None else ()
    return SourceDoc(f.pin, f.path, f.blob, f.text, source_uri(f.path), permalink,
                     definitions=definitions(index, module, symbols, extra_uses),
                     refs=linked_refs(index, index.references(f.pin, f.path)) if summary else ())


def source_resolver(index: Index, docs: dict[str, SourceDoc]) -> SourceResolver:
    """`[[path::symbol]]` -> the definition's line on its source page (the page for `[[path]]`)."""

    def resolve_source(path: str, qualname: str) -> Target | None:
        if path not in docs:
            return None
        return target_of(index, module_of(path), qualname) if qualname else Target(source_uri(path))
    return resolve_source


def _source_page(doc: SourceDoc, corpus: Corpus, cache: Cache | None, prose: Prose) -> Page:
    pin = corpus.pins[doc.pin]
    return source_page(doc, cache, prose, commit=pin.commit, release=pin.release,
                       commit_url=f"{pin.repo.removesuffix('.git')}/tree/{pin.commit}")
