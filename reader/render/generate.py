"""The site's recipe: pinned files -> index and links -> notes at the pins -> every page and the nav."""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from reader.annotations import load_articles, resolve
from reader.annotations.check import installed_facts
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.extract import Index, build_index
from reader.model import module_of
from reader.render.article import render_article
from reader.render.content import article_doc, note_views
from reader.render.highlight import highlight_all, split_lines
from reader.render.links import definitions, linked_refs, target_of
from reader.render.model import NoteView, Page, SourceDoc, Target, Use
from reader.render.navigation import Generated, Written, assemble
from reader.render.overview import FileInfo
from reader.render.pages import source_page
from reader.render.prose import Prose, SourceResolver
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
    """Render every page: the pinned files, the articles, the outline and its overview pages."""
    root = corpus.project.root
    files = [PinnedFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
             for pin, path in corpus.all_files()]
    workers = jobs or os.cpu_count() or 1
    index = build_index(corpus, cache, workers)
    highlight_all([(f.blob, f.text) for f in files], cache, workers)

    articles = load_articles(root)
    notes = {a.slug: note_views(a, resolve(a, corpus), corpus) for a in articles}
    on_file: dict[str, list[NoteView]] = defaultdict(list)
    for views in notes.values():
        for n in views:
            on_file[n.path].append(n)
    docs = {f.path: replace(source_doc(index, f, corpus.permalink(f.pin, f.path), {}),
                            notes=tuple(on_file.get(f.path, ()))) for f in files}

    prose = Prose(source_resolver(index, docs), {a.slug: a.title for a in articles}, {},
                  installed_facts(corpus))
    pages = [_source_page(d, corpus, cache, prose) for d in docs.values()]
    for a in articles:
        commit = corpus.pins[corpus.pin_of(a.reads[0].path) or next(iter(corpus.pins))].commit \
            if a.reads else ""
        pages.append(render_article(article_doc(a, notes[a.slug], docs, index, {}, commit), cache, prose))

    written = [Written("article", a.slug, a.title, a.phase, a.order, a.summary) for a in articles]
    infos = [FileInfo(d.pin, d.path, len(split_lines(d.text)), len(d.notes)) for d in docs.values()]
    return assemble(track, corpus, pages, written, infos)


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
