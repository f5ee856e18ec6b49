"""Compute a pin's lock entry: from its git tree, or from an upstream `ls-tree` listing."""

from __future__ import annotations

import os
from pathlib import Path

from reader import gitio
from reader.cache import Cache
from reader.errors import InputError, Location
from reader.pins import LockEntry, Pin, read_listing


def _pinned_py(pin: Pin, blobs: dict[str, str]) -> dict[str, str]:
    return {p: s for p, s in sorted(blobs.items()) if p.endswith(".py") and pin.covers(p)}


def lock_from_listing(pin: Pin, tsv: Path) -> LockEntry:
    listing = read_listing(tsv)
    if listing.commit != pin.commit:
        raise InputError(f"listing is of commit {listing.commit[:12]}, pin {pin.name!r} is {pin.short}",
                         Location(str(tsv), 1), "pass the listing of the pinned commit")
    return LockEntry(pin.name, pin.commit, _pinned_py(pin, listing.blobs))


def lock_from_git(pin: Pin, cache: Cache) -> LockEntry:
    url = os.environ.get(f"READER_MIRROR_{pin.name.upper().replace('-', '_')}") or pin.repo
    repo = gitio.fetch_commit(cache.root / "git" / f"{pin.name}.git", url, pin.commit)
    return LockEntry(pin.name, pin.commit, _pinned_py(pin, gitio.list_tree(repo, pin.commit, pin.paths)))
