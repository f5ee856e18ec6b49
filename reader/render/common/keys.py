"""The *world*'s key: what every page may show besides its own inputs, an input of the page
cache's (`recipe/pagecache.py`'s `PAGE`) and of the results the pages share."""

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

