"""A pin's earlier releases (its `history`) as corpora: each release's files from its source
archive into the cache, by blob sha, through the same sources and verification as a pin."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from reader import fetch
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.fetch import ArchiveSource, Download, fetch_pin
from reader.pins import LockEntry, Pin
from reader.providers import Provider, as_json, how, kept, renew, running_cache


@dataclass(frozen=True)
class Released:
    """What a release's record reads: the package's pin name, the release and the pin's paths (an
    archive never changes); the producer's way to it: the pin and the download."""

    name: str
    spec: str
    paths: tuple[str, ...]
    pin: Pin | None = how()
    download: Download | None = how()


def _record(inputs: Released) -> dict[str, Any]:
    from reader.lockfile import lock_from_archive, recorded_commit  # GitPython: only on a miss

    cache, pin = running_cache(), inputs.pin
    assert cache is not None and pin is not None
    with tempfile.TemporaryDirectory(prefix="reader-release-") as tmp:
        archive = (inputs.download or fetch.pip_download_sdist)(inputs.spec, Path(tmp))
        at = replace(pin, commit=recorded_commit(archive, inputs.spec).sha, release=inputs.spec, tag="", date="")
        lock = lock_from_archive(at, archive)
        fetch_pin(at, lock, cache, [ArchiveSource(lambda _spec, _dest: archive)])
    return {"commit": at.commit, "files": lock.files}


RELEASE: Provider[Released, dict[str, Any]] = Provider("release", Released, _record, as_json(dict), lasting=True)
"""A release's recorded commit and the blob sha of each file its archive carries (its files are
fetched into the cache beside it)."""


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
    released = Released(pin.name, spec, tuple(pin.paths), pin, download)
    record = kept(RELEASE, released, cache)
    if record is None or not all(cache.has_blob(s) for s in record["files"].values()):
        record = renew(RELEASE, released, cache)
    at = replace(pin, commit=record["commit"], release=spec, tag="", date="")
    return Release(spec, at, LockEntry(pin.name, at.commit, record["files"], f"archive {spec}"))


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
