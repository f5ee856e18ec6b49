"""Rendered pages, cached by everything they show: an unchanged page is read back, not rendered.

A page's key is the hash of the *world* (the pinned files with their pins, the labs, the titles
that links show: what any page may draw from) and of the page's own inputs (its kind's, see
`render/kind.py`: what its render is handed). The index, the facts, the rules, the where-used
lists and the highlighting are all functions of the pinned files and the labs, so they need no
key of their own; reader's code is in the cache's path (`derived/<code version>/`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields, replace
from functools import cached_property

from reader.cache import Cache
from reader.errors import BuildError, Location
from reader.providers import Form, Provider, keep, kept
from reader.render.common.model import Page


@dataclass(frozen=True)
class Shown:
    """What a page is rendered from: the world (`World.key`), its kind and its inputs (the kind's
    frozen dataclass: everything the page shows besides the world)."""

    world: str
    kind: str
    inputs: object


def _unrendered(inputs: Shown) -> CachedPage:
    raise BuildError(f"a {inputs.kind} page is rendered by the recipe (`parallel.render_cached`), which keeps it",
                     Location(__file__), "read it with `PageCache.get`")


PAGE: Provider[Shown, CachedPage] = Provider("page", Shown, _unrendered, Form(
    lambda found: found if isinstance(found, CachedPage) else None, None, frozen=True))
"""A rendered page (`CachedPage`), read back through memory (a long-lived `reader serve`)."""


@dataclass(frozen=True)
class CachedPage:
    """A rendered page and the placeholders its rendering could not link (build warnings)."""

    page: Page
    unresolved: tuple[str, ...] = ()


class StoredPage(Page):
    """A page as the page cache keeps it: its HTML as the UTF-8 it was stored in, decoded when first
    read. A warm build reads every page back (~1,200) and needs the HTML of the few it patches
    only; decoding it all, ~85 MB of non-ASCII text, took 0.14 s of CPU. Equal to the `Page` it
    stores."""

    @cached_property
    def html(self) -> str:
        return self.__dict__["_utf8"].decode()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Page):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(Page))

    __hash__ = Page.__hash__

    def __repr__(self) -> str:
        return repr(Page(**{f.name: getattr(self, f.name) for f in fields(Page)}))


def stored(page: Page) -> StoredPage:
    """`page` as the page cache keeps it (`StoredPage`)."""
    out = object.__new__(StoredPage)
    out.__dict__.update({f.name: getattr(page, f.name) for f in fields(Page) if f.name != "html"},
                        _utf8=page.html.encode())
    return out


class PageCache:
    """Rendered pages by key, counting per kind how many were rendered and how many read back."""

    def __init__(self, cache: Cache | None):
        self.cache = cache
        self.rendered: Counter[str] = Counter()
        self.cached: Counter[str] = Counter()

    def get(self, kind: str, shown: Shown) -> CachedPage | None:
        hit = kept(PAGE, shown, self.cache)
        if hit is not None:
            self.cached[kind] += 1
        return hit

    def put(self, kind: str, shown: Shown, page: CachedPage) -> None:
        self.rendered[kind] += 1
        self.store(shown, page)

    def store(self, shown: Shown, page: CachedPage) -> None:
        """Write a page without counting it (a worker process writes what it rendered)."""
        keep(PAGE, shown, replace(page, page=stored(page.page)), self.cache)
