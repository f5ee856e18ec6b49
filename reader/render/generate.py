"""The site's recipe: pinned files -> symbols and links -> source docs -> every page and the nav."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.extract import Index, build_index
from reader.model import module_of
from reader.render.highlight import cache_key, highlighted, split_lines
from reader.render.links import definitions, linked_refs
from reader.render.model import Page, SourceDoc, Use
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
)
from reader.render.urls import (
    source_page as source_uri,
)
from reader.track import Entry, Track, load_track


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


def generate_site(root: Path, track_file: str = "track.yaml", jobs: int | None = None) -> Generated:
    """Every page of the project at `root`: its pins, outline, annotations and labs."""
    corpus = Corpus.open(Project.load(root))
    return generate(corpus, load_track(root / track_file), corpus.cache, jobs)


def generate(corpus: Corpus, track: Track, cache: Cache | None, jobs: int | None = None) -> Generated:
    """Render every page: the pinned files, the track's outline and its overview pages."""
    files = [PinnedFile(pin, path, corpus.blob(pin, path), corpus.read_text(pin, path))
             for pin, path in corpus.all_files()]
    workers = jobs or os.cpu_count() or 1
    index = build_index(corpus, cache, workers)
    highlight_all(files, cache, workers)
    docs = [source_doc(index, f, corpus.permalink(f.pin, f.path), {}) for f in files]
    source_pages = [_source_page(d, corpus, cache) for d in docs]
    infos = [FileInfo(d.pin, d.path, len(split_lines(d.text)), len(d.notes)) for d in docs]
    return assemble(track, corpus, source_pages, infos)


def _highlight_task(args: tuple[Cache, str, str]) -> None:
    cache, blob, text = args
    highlighted(cache, blob, text)


def highlight_all(files: Sequence[PinnedFile], cache: Cache | None, workers: int) -> None:
    """Fill the highlight cache for the files no earlier build highlighted, on every core.

    Only text goes to the workers and nothing comes back but cache entries: pygments is the one
    step costly enough to be worth a process pool.
    """
    if cache is None:
        return
    todo = [(cache, f.blob, f.text) for f in files
            if cache.get_text("highlight", cache_key(f.blob)) is None]
    if workers < 2 or len(todo) < 4:
        for task in todo:
            _highlight_task(task)
        return
    with ProcessPoolExecutor(min(workers, len(todo))) as pool:
        list(pool.map(_highlight_task, todo, chunksize=max(1, len(todo) // (8 * workers))))


def source_doc(index: Index, f: PinnedFile, permalink: str,
               extra_uses: dict[tuple[str, str], list[Use]]) -> SourceDoc:
    """A pinned file with its definitions, their uses, and its references resolved to pages."""
    module = module_of(f.path)
    summary = index.summaries.get(module)
    symbols = summary.symbols if summary is not None else ()
    return SourceDoc(f.pin, f.path, f.blob, f.text, source_uri(f.path), permalink,
                     definitions=definitions(index, module, symbols, extra_uses),
                     refs=linked_refs(index, index.references(f.pin, f.path)) if summary else ())


def _source_page(doc: SourceDoc, corpus: Corpus, cache: Cache | None) -> Page:
    pin = corpus.pins[doc.pin]
    return source_page(doc, cache, commit=pin.commit, release=pin.release,
                       commit_url=f"{pin.repo.removesuffix('.git')}/tree/{pin.commit}")


def assemble(track: Track, corpus: Corpus, source_pages: Iterable[Page],
             infos: Sequence[FileInfo]) -> Generated:
    """The outline's pages and placeholders around the rendered pages, and the nav in track order."""
    pages: dict[str, Page] = {p.src_uri: p for p in source_pages}
    known_files = {i.path for i in infos}
    nav: list[Any] = [{"Home": HOME}]
    phase_pages = []
    for phase in track.phases:
        links = [_entry_link(e, known_files) for e in phase.entries]
        for link in links:
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
