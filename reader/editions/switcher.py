"""Every page's edition switcher (material's `md-version` markup) and, on an older edition, its
banner. The switcher is reader's own script, not material's: material's fetches `../versions.json`
from each edition's root and expects every edition in a sibling folder (mike's layout), while this
site keeps the current edition at its root."""

from __future__ import annotations

import html
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser

from reader.editions.listing import Edition


@dataclass(frozen=True)
class Switcher:
    """What the pages of one edition carry: the version switcher (material's `md-version` markup)
    opening the same page in each other edition (its home when it lacks the page) and, on an older
    edition, a banner saying so, with the same page in the current edition."""

    here: Edition
    editions: tuple[Edition, ...]
    pages: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Edition version -> the output paths (`articles/x.html`) of its pages."""
    renamed: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Edition version -> {the outline's path for an article: its path in that edition}, where an
    article's file was named otherwise than the outline's slug (`Generated.renamed`)."""

    def href(self, url: str, to: Edition) -> str:
        """From page `url` of this edition to the same page of `to` (or `to`'s home); an article
        renamed between them is the same page, found through the outline's name for it."""
        target = url if to == self.here else self._same(url, to)
        start = posixpath.dirname(self.here.folder + url) or "."
        return posixpath.relpath(to.folder + target, start)

    def _same(self, url: str, to: Edition) -> str:
        outline = {v: k for k, v in self.renamed.get(self.here.version, {}).items()}.get(url, url)
        target = self.renamed.get(to.version, {}).get(outline, outline)
        return target if target in self.pages.get(to.version, ()) else "index.html"

    def nearest(self, url: str, to: Edition) -> tuple[str, str]:
        """The page of `to` nearest to page `url`, which `to` lacks, and what it is: for a source page,
        the file at its old path where it moved (the one source page of `to` of the same name that
        this edition lacks, when this edition's pages are known), else the index of its nearest
        folder that `to` has, else `to`'s home."""
        theirs, mine = self.pages.get(to.version, frozenset()), self.pages.get(self.here.version)
        name = posixpath.basename(url)
        if url.startswith("source/") and mine:
            moved = [p for p in theirs if p.startswith("source/") and p not in mine and posixpath.basename(p) == name]
            if len(moved) == 1:
                return moved[0], f"the file at its old path, {moved[0].removeprefix('source/').removesuffix('.html')}"
        folder = posixpath.dirname(url)
        while folder:
            if f"{folder}/index.html" in theirs:
                return f"{folder}/index.html", f"its folder's index, {folder}/"
            folder = posixpath.dirname(folder)
        return "index.html", "its home"

    def selector(self, url: str) -> str:
        """The switcher: each edition's link to this page there (docs/assets/editions.js carries the
        line across: `data-page` is this page, `data-now` the way to the current edition's root;
        the current edition's link is `data-current`, the one its diffs compare with `data-diffed`);
        a link to an edition lacking the page links the nearest page there (`nearest`), and says so
        (`data-missing`: what it opens; editions.js says it on the page instead of opening it)."""
        items = "".join(self._item(url, i, e) for i, e in enumerate(self.editions))
        start = posixpath.dirname(self.here.folder + url) or "."
        now = posixpath.relpath(self.editions[0].folder or ".", start)
        return (f'<div class="md-version rd-editions" data-page="{html.escape(url)}" '
                f'data-now="{html.escape("" if now == "." else now + "/")}"><button class="md-version__current" '
                f'aria-label="Edition {html.escape(self.here.version)}: choose another" '
                f'title="{html.escape(self.here.title)}">'
                f'{html.escape(self.here.version)}</button>'
                f'<ul class="md-version__list">{items}</ul></div>')

    def _item(self, url: str, i: int, e: Edition) -> str:
        missing = e != self.here and url != "index.html" and self._same(url, e) == "index.html"
        href = self.href(url, e)
        what = ""
        if missing:
            near, what = self.nearest(url, e)
            start = posixpath.dirname(self.here.folder + url) or "."
            href = posixpath.relpath(e.folder + near, start)
        title = e.title + (f": this page is not in that edition; nearest there: {what}" if missing else "")
        return (f'<li class="md-version__item"><a href="{html.escape(href)}" '
                f'class="md-version__link{" rd-edition-here" if e == self.here else ""}" '
                f'data-edition="{html.escape(e.version)}"{" data-current" if i == 0 else ""}'
                f'{" data-diffed" if i == 1 else ""}'
                f'{f" data-missing=\"{html.escape(what)}\"" if missing else ""} '
                f'title="{html.escape(title)}">{html.escape(e.version)}'
                f'{" (current)" if not e.folder else ""}'
                f'{" (no such page)" if missing else ""}</a></li>')

    def banner(self, url: str) -> str:
        """The older edition's notice ("" on the current edition)."""
        if not self.here.folder:
            return ""
        now = self.editions[0]
        return (f'<aside class="md-banner rd-edition-banner"><div class="md-banner__inner md-grid '
                f'md-typeset">An older edition: the track as it read {html.escape(self.here.title)}, '
                f'before the move to {html.escape(now.title)}. '
                f'<a href="{html.escape(self.href(url, now))}">This page in the current edition</a>. '
                f'Its labs are the current edition\'s (this edition runs none of its own).'
                f'</div></aside>')

    def mark(self, output: str, url: str) -> str:
        """`output` (a page of this edition at `url`) with the switcher after the title box in its
        header and the banner above the header; the page's other bytes as they were."""
        places = _Header.find(output)
        if places.title_end is not None:
            output = output[:places.title_end] + self.selector(url) + output[places.title_end:]
        banner = self.banner(url)
        if banner and places.header is not None:
            output = output[:places.header] + banner + output[places.header:]
        return output


class _Header(HTMLParser):
    """Where material's header starts in a page and where its title box ends (the
    `md-header__title` div: the switcher goes after it, so that it stays when material swaps the
    site's name for the page's title as the page scrolls), as offsets into the page's text. A
    tokenizer that knows where each tag starts (the standard library's), so that the page is
    spliced, not parsed and written anew; it stops at the end of the title box."""

    header: int | None = None
    title_end: int | None = None

    def __init__(self, page: str):
        super().__init__(convert_charrefs=False)
        self._page = page
        self._state = "header"  # then "title", "box" (inside the title box)
        self._divs = 0

    @classmethod
    def find(cls, page: str) -> _Header:
        found = cls(page)
        try:
            found.feed(page)
        except _Done:
            pass
        return found

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if self._state == "header" and tag == "header" and "md-header" in classes:
            self.header, self._state = self._offset(), "title"
        elif self._state == "title" and tag == "div" and "md-header__title" in classes:
            self._state = "box"
        elif self._state == "box" and tag == "div":
            self._divs += 1

    def handle_endtag(self, tag: str) -> None:
        if self._state == "box" and tag == "div":
            if self._divs == 0:
                self.title_end = self._page.index(">", self._offset()) + 1
                raise _Done
            self._divs -= 1
        elif tag == "header":
            raise _Done

    def _offset(self) -> int:
        """The offset in the page of the tag being read (`getpos()` counts lines and columns)."""
        line, column = self.getpos()
        start = 0
        for _ in range(line - 1):
            start = self._page.index("\n", start) + 1
        return start + column


class _Done(Exception):
    """The header was read: nothing after it is needed."""
