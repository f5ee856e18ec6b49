"""Compute a pin's lock entry: from its git tree, an upstream `ls-tree` listing or a release archive
(and the commit the archive records)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reader import gitio
from reader.cache import Cache, blob_sha
from reader.errors import FetchError, GitError, InputError, Location
from reader.fetch import archive_members, git_url
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
    repo = gitio.fetch_commit(cache.root / "git" / f"{pin.name}.git", git_url(pin), pin.commit)
    return LockEntry(pin.name, pin.commit, _pinned_py(pin, gitio.list_tree(repo, pin.commit, pin.all_paths)))


def lock_pin(pin: Pin, cache: Cache, archive: Callable[[], Path]) -> tuple[LockEntry, str]:
    """The pin's lock entry and where it came from (`git URL`, `archive jax==0.12.0.1`): from git,
    or, only when git cannot be reached, from the release archive `archive()` gives."""
    url = git_url(pin)
    try:
        return lock_from_git(pin, cache), f"git {url}"
    except GitError as e:
        if gitio.reachable(url):  # the archive never stands in for a commit git lacks
            raise FetchError(f"{url} does not serve commit {pin.commit}: {e.message}",
                             Location("pins.toml"), "check the sha") from None
        if not pin.release:
            raise FetchError(f"git source {url} failed ({e.message}) and the pin names no release "
                             "whose archive could stand in", Location("pins.toml"),
                             "add `release = NAME==VERSION` to the pin, or set READER_MIRROR_"
                             f"{pin.name.upper().replace('-', '_')} to a reachable clone") from None
    return lock_from_archive(pin, archive()), f"archive {pin.release}"


def git_date(pin: Pin, cache: Cache) -> str:
    """The commit date of `pin`, once `lock_from_git` has fetched its commit."""
    repo = gitio.fetch_commit(cache.root / "git" / f"{pin.name}.git", git_url(pin), pin.commit)
    return gitio.commit_date(repo, pin.commit)


def lock_from_archive(pin: Pin, archive: Path) -> LockEntry:
    """The blob shas of the pinned `.py` files that the release archive of `pin.release` carries.

    An archive is not the git tree: it may omit files git has (jax's sdist lacks six of the 113),
    so the entry records its source and a later `reader lock` with git access completes it.
    """
    blobs = {rel: blob_sha(data) for rel, data in
             archive_members(archive, lambda rel: rel.endswith(".py") and pin.covers(rel))}
    if not blobs:
        raise FetchError(f"the {pin.release} archive {archive.name} holds no .py file under "
                         f"{', '.join(pin.paths)}", Location(archive.name),
                         "check --release: it must name the package built from this commit")
    return LockEntry(pin.name, pin.commit, _pinned_py(pin, blobs), f"archive {pin.release}")


RECORDED_COMMIT_RE = re.compile(
    r"""^\s*(\w*(?:git|GIT)\w*)\s*(?::[^=]*)?=\s*['"]([0-9a-f]{40})['"]""", re.MULTILINE)
"""`_git_hash: str = '<sha>'` (jax/version.py), `TOKAMAX_GIT_REVISION: Final[str] = "<sha>"`."""


@dataclass(frozen=True)
class RecordedCommit:
    """The commit a release says it was built from, and where it says so."""

    sha: str
    where: Location
    name: str

    def __str__(self) -> str:
        return f"{self.sha} (recorded as {self.name} in {self.where})"


def recorded_commit(archive: Path, release: str) -> RecordedCommit:
    """The commit recorded in a release archive's `version.py` files; exactly one sha, or an error."""
    found: dict[str, RecordedCommit] = {}
    for rel, data in archive_members(archive, lambda rel: rel.endswith("version.py")):
        text = data.decode("utf-8", "replace")
        for m in RECORDED_COMMIT_RE.finditer(text):
            line = text.count("\n", 0, m.start(2)) + 1
            found.setdefault(m.group(2), RecordedCommit(m.group(2), Location(rel, line), m.group(1)))
    if len(found) != 1:
        what = "no commit" if not found else f"{len(found)} different commits"
        raise FetchError(f"the {release} archive {archive.name} records {what} in its version.py "
                         "files", Location(archive.name),
                         "pass the commit with --to (a full sha, or a tag where git is reachable)")
    return next(iter(found.values()))
