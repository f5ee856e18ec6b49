"""The outline matched against what exists: the nav, each phase's page, and placeholders for the rest."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from reader.corpus import Corpus
from reader.errors import ReaderError
from reader.render.common.model import Asset, Page, TitledPage
from reader.render.common.prose import md_escape
from reader.render.common.urls import (
    HOME,
    LABS_INDEX,
    RULES,
    SOURCE_INDEX,
    article_page,
    lab_page,
    phase_page,
    slugify,
    source_page,
)
from reader.render.track.overview import (
    EntryLink,
    FileInfo,
    home_page,
    labs_index,
    phase_overview,
    phase_title,
    placeholder_page,
    source_index,
)
from reader.track import Entry, Phase, Track


@dataclass(frozen=True)
class Written:
    """A page that exists (an article or a lab), as the outline is matched against it."""

    kind: str
    """article | lab"""
    key: str
    """The article's slug or the lab's module name."""
    title: str
    phase: int
    order: int = 0
    summary: str = ""


class PageCount(NamedTuple):
    """How many pages of a kind a build rendered and read back from the cache."""

    kind: str
    rendered: int
    cached: int


@dataclass(frozen=True)
class Generated:
    """Every page of the site and the navigation (mkdocs' `nav`), in the track's order."""

    pages: tuple[Page, ...]
    nav: tuple[Any, ...]
    assets: tuple[Asset, ...] = ()
    """Files served as they are (lab artifact images)."""
    warnings: tuple[str, ...] = ()
    """What the build should say without failing (a lab whose artifacts failed, a dead placeholder)."""
    counts: tuple[PageCount, ...] = ()
    """`source` and `article` pages."""
    failures: tuple[ReaderError, ...] = ()
    """What fails the build unless it is told to keep going (a lab that raised: `LabError`)."""
    coverage: tuple[str, ...] = ()
    """One line per lowered module: how many of its ops the IR view links (render/ir/site.py)."""
    renamed: tuple[tuple[str, str], ...] = ()
    """(the outline's page for an article, the page it is at) where they differ: an older edition's
    article whose file had another slug than the outline's (`articles/tpu-pipeline.md`,
    `articles/mosaic-pipeline.md`), so that the edition switcher lands on the same article."""
    missing: tuple[str, ...] = ()
    """The locked files that no source served, of every pin (`Corpus.missing`)."""
    keys: Mapping[str, str] = field(default_factory=dict, compare=False)
    """By `src_uri`, the page-cache key of each page read back or rendered by a kind: a page of
    the same key shows the same (`site_patch.plan` compares no more of it)."""
    later: Callable[[], tuple[Asset, ...]] | None = field(default=None, compare=False)
    """Assets still being made on a process of their own (the search index, beside mkdocs):
    `finished` waits for them."""

    def finished(self) -> Generated:
        """With every asset: those made `later` waited for."""
        return self if self.later is None else replace(self, assets=self.assets + self.later(), later=None)


def _norm(title: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", title.lower()))


def match(entry: Entry, written: Sequence[Written]) -> Written | None:
    """The article or lab an outline entry names: by slug or lab name, else by title."""
    kind = "lab" if entry.kind == "lab" else "article"
    key = entry.ref if entry.kind == "lab" else entry.slug
    for w in written:
        if w.kind == kind and key and w.key == key:
            return w
    if entry.kind == "article":
        for w in written:
            if w.kind == "article" and _norm(w.title) == _norm(entry.ref):
                return w
    return None


def entry_link(entry: Entry, written: Sequence[Written], files: set[str]) -> EntryLink:
    """Where an outline entry points, and why it is a placeholder when nothing is written yet."""
    if entry.kind == "source":
        missing = "" if entry.ref in files else f"{entry.ref} is not among the fetched pinned files."
        return EntryLink("source", entry.title, entry.summary, source_page(entry.ref), missing)
    found = match(entry, written)
    if entry.kind == "lab":  # named as kernels.LABS names it (`LAB·1.2 · Tiled matmul`)
        return EntryLink("lab", found.title if found else entry.title, entry.summary, lab_page(entry.ref),
                         "" if found else f"The lab kernels/{entry.ref}.py is not in the repository yet.")
    if found is not None:
        return EntryLink("article", found.title, entry.summary or found.summary, article_page(found.key))
    return EntryLink("article", entry.title, entry.summary, article_page(entry.slug or slugify(entry.ref)),
                     "No annotation file in annotations/ holds this article yet.")


def phase_links(phase: Phase, written: Sequence[Written], files: set[str]) -> list[EntryLink]:
    """The phase's outline entries in order, then what is written for the phase but not outlined."""
    links = [entry_link(e, written, files) for e in phase.entries]
    named = {link.page for link in links}
    extra = sorted((w for w in written if w.phase == phase.number), key=lambda w: (w.order, w.title))
    for w in extra:
        page = article_page(w.key) if w.kind == "article" else lab_page(w.key)
        if page not in named:
            links.append(EntryLink(w.kind, w.title, w.summary, page))
    return links


def assemble(track: Track, corpus: Corpus, rendered: Iterable[Page], written: Sequence[Written],
             infos: Sequence[FileInfo], extra_nav: Mapping[str, str] | None = None,
             assets: Sequence[Asset] = (), warnings: Sequence[str] = (),
             changes: Sequence[Page] = ()) -> Generated:
    """The rendered pages with the outline's phase pages, placeholders, home and indexes, and the nav;
    `changes` are the pin moves' pages, linked from home and the nav."""
    pages: dict[str, Page] = {p.src_uri: p for p in [*rendered, *changes]}
    files = {i.path for i in infos}
    nav: list[Any] = [{"Home": HOME}]
    all_labs: list[EntryLink] = []
    renamed: list[tuple[str, str]] = []
    for phase in track.phases:
        links = phase_links(phase, written, files)
        outlined = zip(phase.entries, links[:len(phase.entries)], strict=True)  # then the unoutlined
        renamed += [(article_page(e.slug), link.page) for e, link in outlined
                    if e.kind == "article" and e.slug and link.page != article_page(e.slug)]
        for link in links:
            if link.page not in pages:
                pages[link.page] = placeholder_page(link.page, link.title, link.summary,
                                                    link.missing or "This page is being written.", phase)
        all_labs += [link for link in links if link.kind == "lab"]
        overview = phase_overview(phase, links)
        pages[overview.src_uri] = overview
        nav.append({nav_title(phase_title(phase)): [phase_page(phase.number)]
                    + [{nav_title(link.title): link.page} for link in links]})
    counts = {pin: len(corpus.files(pin)) for pin in corpus.pins}
    pages[HOME] = untitled_home(home_page(track, list(corpus.pins.values()), counts,
                                          has_rules=RULES in pages,
                                          changes=[TitledPage(p.src_uri, p.title) for p in changes]))
    missing = {pin: corpus.missing(pin) for pin in corpus.pins}
    pages[SOURCE_INDEX] = source_index(list(corpus.pins.values()), infos, missing)
    pages[LABS_INDEX] = labs_index(all_labs)
    for title, page in (extra_nav or {}).items():
        nav.append({nav_title(title): page})
    nav += [{"Labs": LABS_INDEX}, {"Source files": SOURCE_INDEX}]
    nav += [{nav_title(p.title): p.src_uri} for p in changes]
    return Generated(tuple(pages.values()), tuple(nav), tuple(assets), tuple(warnings), renamed=tuple(renamed))


def untitled_home(page: Page) -> Page:
    """The home page with its title as its Markdown's `# heading` instead of its front matter's
    `title:`: the theme titles a page `<its title> - <site name>` only when the front matter
    names one, and the home page's title is the site's name (`Pallas, From the Inside`, once)."""
    head, sep, rest = page.markdown.partition("\n---\n")
    lines = [line for line in head.splitlines() if not line.startswith("title:")]
    if not sep or len(lines) == len(head.splitlines()):
        return page
    heading = f"# {md_escape(page.title)}\n\n"
    front = "\n".join(lines) + sep if len(lines) > 1 else ""  # `---` alone: no front matter left
    return replace(page, markdown=front + "\n" + heading + rest.lstrip("\n"))


def nav_title(title: str) -> str:
    """A title as mkdocs' nav needs it: the theme puts nav titles (and the page's `<h1>`) into
    the HTML as they are, so a title from track.yaml or an annotation is escaped here."""
    return html.escape(title, quote=False)


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
