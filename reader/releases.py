"""A pin's earlier releases (its `history`) as corpora: each release's files from its source
archive into the cache, by blob sha, through the same sources and verification as a pin."""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from reader import fetch
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.fetch import ArchiveSource, Download, fetch_pin
from reader.pins import LockEntry, Pin

RELEASE_KIND = "release"
"""Kept cache kind: a release's recorded commit and the blob sha of each file its archive carries."""


@dataclass(frozen=True)
class Release:
    """One release of a pinned package, read as a pin at the commit it records."""

    spec: str
    """`jax==0.10.2`."""
    pin: Pin
    lock: LockEntry
    """The blob sha of every `.py` file under the pin's paths that the archive carries."""

    @property
    def version(self) -> str:
        return self.pin.dist_version


def release(pin: Pin, spec: str, cache: Cache, download: Download | None = None) -> Release:
    """Release `spec` of `pin`'s package, its files in the cache: the archive is downloaded once
    (`download`, default pip's), then every run reads the kept record and the blobs."""
    pin = replace(pin, context=())  # a release is read for the track's files, not their imports'
    key = hashlib.sha1(f"{pin.name}\0{spec}\0{','.join(pin.paths)}".encode()).hexdigest()
    kept = cache.get_kept_json(RELEASE_KIND, key)
    if kept is not None and all(cache.has_blob(s) for s in kept["files"].values()):
        at = replace(pin, commit=kept["commit"], release=spec, tag="", date="")
        return Release(spec, at, LockEntry(pin.name, at.commit, kept["files"], f"archive {spec}"))
    from reader.lockfile import lock_from_archive, recorded_commit  # GitPython: only on a miss

    with tempfile.TemporaryDirectory(prefix="reader-release-") as tmp:
        archive = (download or fetch.pip_download_sdist)(spec, Path(tmp))
        at = replace(pin, commit=recorded_commit(archive, spec).sha, release=spec, tag="", date="")
        lock = lock_from_archive(at, archive)
        fetch_pin(at, lock, cache, [ArchiveSource(lambda _spec, _dest: archive)])
    cache.put_kept_json(RELEASE_KIND, key, {"commit": at.commit, "files": lock.files})
    return Release(spec, at, lock)


def release_corpus(root: Path, rel: Release, cache: Cache) -> Corpus:
    """The release's files as a corpus of one pin (a cache hit: `release` fetched them)."""
    return Corpus.open(Project(root, {rel.pin.name: rel.pin}, {rel.pin.name: rel.lock}), cache)


@dataclass(frozen=True)
class Archives:
    """The releases of the project at `root` read from their archives (`release`, `release_corpus`):
    what the rule history is handed (`rulehistory.ReleaseSource`)."""

    root: Path
    cache: Cache

    def release(self, pin: Pin, spec: str) -> Release:
        return release(pin, spec, self.cache)

    def corpus(self, release: Release) -> Corpus:
        return release_corpus(self.root, release, self.cache)
