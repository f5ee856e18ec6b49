"""The page cache's keys (`recipe/pagecache.py`): the *world*'s (what every page may show besides its
own inputs) and one page's (the world's and the page's own inputs')."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from reader.corpus import Corpus
from reader.labs import LabInfo


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
