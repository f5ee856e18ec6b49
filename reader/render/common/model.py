"""What the renderers take and give: resolved links, definitions with their uses, notes, pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from reader.model import Head, Symbol


class TitledPage(NamedTuple):
    """A page (its `src_uri`) and its title, as a link to it shows them."""

    page: str
    title: str


@dataclass(frozen=True)
class PageLink:
    """A place on the site: a page (its `src_uri`) and a fragment (`L12`), with a hover title."""

    page: str
    fragment: str = ""
    title: str = ""


@dataclass(frozen=True)
class LinkedRef:
    """An identifier at `line`, `col` (0-based), `length` characters, linking to its definition."""

    line: int
    col: int
    length: int
    target: PageLink


@dataclass(frozen=True)
class UseView:
    """One place that references a definition: a file, a line, and that file's page."""

    path: str
    line: int
    page: str
    text: str = ""
    """The line's code, for a use outside the pins (a lab's: its text is its page's input); a
    pinned file's lines are the world's."""


@dataclass(frozen=True)
class DefinitionView:
    """A symbol defined in a file and every place in the corpus (and the labs) that uses it."""

    symbol: Symbol
    uses: tuple[UseView, ...] = ()
    head: Head | None = None
    """Its header's end, body and docstring line (the hover card's); None for a lab's own file."""


@dataclass(frozen=True)
class NoteView:
    """A note as pages show it: where it sits at the pin, its status, its body as safe HTML."""

    id: str
    article: str
    """The slug of the article that holds the note."""
    article_title: str
    path: str
    start: int | None
    """First line at the pin; None when the note no longer anchors (orphaned, ambiguous)."""
    end: int | None
    status: str
    """ok | moved | stale | orphaned | ambiguous"""
    body: str
    """Markdown, with the track's placeholders; rendered per page (links are relative)."""
    permalink: str = ""
    """GitHub URL of the anchored lines at the pinned sha; '' when unanchored."""
    claim: str = ""
    """The note's runnable example (doctest's `>>>` form), or ''."""
    claim_setup: str = ""
    """The page's setup lines the example runs after."""
    checked: str = ""
    """The releases the claim is checked at: `jax 0.12.0.1 / tokamax 0.0.17`."""


@dataclass(frozen=True)
class SourceDoc:
    """One file as its pages show it: text, links out of it, what it defines and who uses that."""

    pin: str
    """The pin name, or '' for a lab's own file."""
    path: str
    blob: str
    text: str
    page: str
    """The `src_uri` of the file's own page."""
    permalink: str = ""
    definitions: tuple[DefinitionView, ...] = ()
    refs: tuple[LinkedRef, ...] = ()
    notes: tuple[NoteView, ...] = ()
    labs: tuple[TitledPage, ...] = ()
    """The labs that use this file."""
    emitted: tuple[TitledPage, ...] = ()
    """The lowered views (a lab's, a kernel's `ir/` page) holding ops that this file's lowering
    rules emitted (render/ir/view.py)."""
    lowered: tuple[TitledPage, ...] = ()
    """The `ir/` pages showing a kernel of this file lowered."""
    docstring: str = ""
    """The first line of the module's docstring (its page's search entry)."""


@dataclass(frozen=True)
class SearchEntry:
    """An entry of the site's search index for a place on a page: `#fragment` ('' is the page's
    own entry, whose text this replaces), a title and a short HTML text."""

    fragment: str
    title: str
    text: str


@dataclass(frozen=True)
class Page:
    """A generated page: Markdown for mkdocs (small, indexed by search) and HTML put in its slot."""

    src_uri: str
    title: str
    markdown: str
    html: str = ""
    assets: tuple[Asset, ...] = ()
    """Files that come with the page (a source page's hover-card data script)."""
    search: tuple[SearchEntry, ...] = ()
    """Search entries of the page's own places (a definition's line, a note), beside its own."""


SLOT = "<!-- reader:page-body -->"
"""Where a page's HTML goes in mkdocs' output; it is put there after search has indexed the page."""


class Slot(NamedTuple):
    """Where mkdocs wrote a page: its output file, its URL and the byte offset of its slot."""

    dest: str
    url: str
    offset: int


@dataclass(frozen=True)
class Asset:
    """A file the site serves as it is (a lab's artifact image, a figure's SVG or script)."""

    src_uri: str
    data: bytes
