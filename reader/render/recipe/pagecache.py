"""Rendered pages, cached by everything they show: an unchanged page is read back, not rendered.

A page's key is the hash of the *world* (the pinned files with their pins, the labs, the titles
that links show: what any page may draw from) and of the page's own inputs (its kind's, see
`render/recipe/kind.py`: what its render is handed). The index, the facts, the rules, the where-used
lists and the highlighting are all functions of the pinned files and the labs, so they need no
key of their own; reader's code is in the cache's path (`derived/<code version>/`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reader.cache import Cache
from reader.corpus import Corpus
from reader.labs import LabInfo
from reader.render.common.model import Page

PAGE_KIND = "page"


@dataclass(frozen=True)
class CachedPage:
    """A rendered page and the placeholders its rendering could not link (build warnings)."""

    page: Page
    unresolved: tuple[str, ...] = ()


def world_key(corpus: Corpus, labs: Sequence[LabInfo], titles: Mapping[str, str]) -> str:
    """The hash of what every page may show besides its own inputs."""
    h = hashlib.sha1(b"world\0")
    for _name, pinned in sorted(corpus.pins.items()):
        h.update(repr(pinned).encode() + b"\n")
    for pin, path in corpus.all_files():
        h.update(f"{pin}\0{path}\0{corpus.blob(pin, path)}\n".encode())
    for lab in labs:  # what other pages show of a lab: its text is its own page's input
        h.update(repr((lab.name, lab.heading, lab.phase, lab.path)).encode() + b"\n")
    h.update(repr(sorted(titles.items())).encode())
    return h.hexdigest()


def page_key(world: str, kind: str, *inputs: object) -> str:
    """The key of one page: the world and the page's own inputs (frozen dataclasses: their repr)."""
    return hashlib.sha1(f"{world}\0{kind}\0{inputs!r}".encode()).hexdigest()


class PageCache:
    """Rendered pages by key, counting per kind how many were rendered and how many read back."""

    def __init__(self, cache: Cache | None):
        self.cache = cache
        self.rendered: Counter[str] = Counter()
        self.cached: Counter[str] = Counter()

    def get(self, kind: str, key: str) -> CachedPage | None:
        hit = self.cache.get_frozen(PAGE_KIND, key) if self.cache is not None else None
        if isinstance(hit, CachedPage):
            self.cached[kind] += 1
            return hit
        return None

    def put(self, kind: str, key: str, page: CachedPage) -> None:
        self.rendered[kind] += 1
        self.store(key, page)

    def store(self, key: str, page: CachedPage) -> None:
        """Write a page without counting it (a worker process writes what it rendered)."""
        if self.cache is not None:
            self.cache.put_object(PAGE_KIND, key, page)
