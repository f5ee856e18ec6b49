"""The site's recipe: pinned files -> symbols and links -> source docs -> every page and the nav."""

from __future__ import annotations

import os
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence, TypeVar

from reader.cache import Cache
from reader.corpus import Corpus
from reader.extract.symbols import symbols_of
from reader.model import Span, Symbol
from reader.render.highlight import split_lines
from reader.render.model import Definition, Page, SourceDoc
from reader.render.overview import (
    EntryLink,
    FileInfo,
    home_page,
    labs_index,
    phase_overview,
    phase_title,
    placeholder_page,
    source_index,
)
from reader.render.pages import source_page
from reader.render.urls import (
    HOME,
    LABS_INDEX,
    SOURCE_INDEX,
    article_page,
    lab_page,
    phase_page,
    slugify,
    source_page as source_uri,
)
from reader.track import Entry, Track

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Generated:
    """Every page of the site and the navigation (mkdocs' `nav`), in the track's order."""

    pages: tuple[Page, ...]
    nav: tuple[Any, ...]


@dataclass(frozen=True)
class PinnedFile:
    pin: str
    path: str
    blob: str
    text: str


def _symbols_task(args: tuple[Cache | None, str, str]) -> list[Symbol]:
    cache, blob, text = args
    key = f"{blob}-site1"
    if cache is not None:
        hit = cache.get_json("site-symbols", key)
        if hit is not None:
            return [Symbol(q, k, Span(a, b), line, sig) for q, k, a, b, line, sig in hit]
    try:
        symbols = symbols_of(text)
    except SyntaxError:
        symbols = []
    if cache is not None:
        cache.put_json("site-symbols", key, [[s.qualname, s.kind, s.span.start, s.span.end, s.line,
                                              s.signature] for s in symbols])
    return symbols


def _source_page_task(args: tuple[SourceDoc, Cache | None, str, str, str]) -> Page:
    doc, cache, commit, release, commit_url = args
    return source_page(doc, cache, commit=commit, release=release, commit_url=commit_url)


def pmap(fn: Callable[[T], R], items: Sequence[T], pool: Executor | None) -> list[R]:
    """`map` over a process pool when there is one and enough work, in order."""
    if pool is None or len(items) < 4:
        return [fn(x) for x in items]
    return list(pool.map(fn, items, chunksize=max(1, len(items) // 32)))


def generate(corpus: Corpus, track: Track, cache: Cache | None, jobs: int | None = None) -> Generated:
    """Render every page: the pinned files, the track's outline and its overview pages."""
    files = [PinnedFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
             for pin, path in corpus.all_files()]
    workers = jobs or os.cpu_count() or 1
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    try:
        symbols = pmap(_symbols_task, [(cache, f.blob, f.text) for f in files], pool)
        docs = [SourceDoc(f.pin, f.path, f.blob, f.text, source_uri(f.path),
                          corpus.permalink(f.pin, f.path),
                          definitions=tuple(Definition(s) for s in syms))
                for f, syms in zip(files, symbols)]
        pins = corpus.pins
        tasks = [(d, cache, pins[d.pin].commit, pins[d.pin].release,
                  f"{pins[d.pin].repo.removesuffix('.git')}/tree/{pins[d.pin].commit}") for d in docs]
        source_pages = pmap(_source_page_task, tasks, pool)
    finally:
        if pool is not None:
            pool.shutdown()
    infos = [FileInfo(d.pin, d.path, len(split_lines(d.text)), len(d.notes)) for d in docs]
    return assemble(track, corpus, source_pages, infos)


def assemble(track: Track, corpus: Corpus, source_pages: Iterable[Page],
             infos: Sequence[FileInfo]) -> Generated:
    """The outline's pages and placeholders around the rendered pages, and the nav in track order."""
    pages: dict[str, Page] = {p.src_uri: p for p in source_pages}
    known_files = {i.path for i in infos}
    nav: list[Any] = [{"Home": HOME}]
    phase_pages = []
    for phase in track.phases:
        links = [_entry_link(e, known_files) for e in phase.entries]
        for entry, link in zip(phase.entries, links):
            if link.page not in pages:
                pages[link.page] = placeholder_page(link.page, link.title, link.summary,
                                                    link.missing or "This page is being written.", phase)
        phase_pages.append(phase_overview(phase, links))
        nav.append({phase_title(phase): [phase_page(phase.number)]
                    + [{link.title: link.page} for link in links]})
    for p in phase_pages:
        pages[p.src_uri] = p
    counts = {pin: len(corpus.files(pin)) for pin in corpus.pins}
    pages[HOME] = home_page(track, list(corpus.pins.values()), counts)
    pages[SOURCE_INDEX] = source_index(list(corpus.pins.values()), infos)
    lab_links = [_entry_link(e, known_files) for ph in track.phases for e in ph.entries if e.kind == "lab"]
    pages[LABS_INDEX] = labs_index(lab_links)
    nav.append({"Labs": LABS_INDEX})
    nav.append({"Source files": SOURCE_INDEX})
    return Generated(tuple(pages.values()), tuple(nav))


def _entry_link(entry: Entry, known_files: set[str]) -> EntryLink:
    if entry.kind == "source":
        missing = "" if entry.ref in known_files else f"{entry.ref} is not among the fetched pinned files."
        return EntryLink("source", entry.title, entry.summary, source_uri(entry.ref), missing)
    if entry.kind == "lab":
        return EntryLink("lab", entry.title, entry.summary, lab_page(entry.ref),
                         f"The lab kernels/{entry.ref}.py is not in the repository yet.")
    slug = entry.slug or slugify(entry.ref)
    return EntryLink("article", entry.title, entry.summary, article_page(slug),
                     "No annotation file in annotations/ carries this title yet.")


def nav_pages(nav: Iterable[Any]) -> set[str]:
    """Every page (`src_uri`) named in a mkdocs nav."""
    out: set[str] = set()
    for item in nav:
        if isinstance(item, str):
            out.add(item)
        elif isinstance(item, dict):
            for value in item.values():
                out |= nav_pages([value]) if isinstance(value, str) else nav_pages(value)
    return out
