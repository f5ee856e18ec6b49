"""`reader pin`, on the fetch side: move one pin to another commit, fetch its files, rewrite pins.toml and the lock."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import tomlkit

from reader import gitio
from reader.atomic import atomic_write_all
from reader.cache import Cache
from reader.errors import FetchError, GitError, InputError, Location, VerificationError
from reader.fetch import (
    ArchiveSource,
    Download,
    FetchReport,
    GitSource,
    Source,
    fetch_pin,
    git_url,
    pip_download_sdist,
)
from reader.lockfile import (
    RecordedCommit,
    git_date,
    lock_from_archive,
    lock_from_git,
    recorded_commit,
)
from reader.pins import (
    RELEASE_RE,
    SHA_RE,
    LockEntry,
    Pin,
    dump_lock,
    load_lock,
    load_pins,
    parse_lock,
    parse_pins,
)
from reader.progress import say


def _recorded_if_any(archive: Path, release: str, sha: str) -> RecordedCommit | None:
    """The commit `release` records when it records one, which must be `sha` (`--to`): a release
    names the files of one commit, and a pin must never pair one commit with another's files."""
    try:
        recorded = recorded_commit(archive, release)
    except FetchError as e:
        say(f"{release}: {e.message}; the commit is not checked against it")
        return None
    if recorded.sha != sha:
        raise InputError(f"--to {sha} is not the commit {release} was built from: it records "
                         f"{recorded}", Location(f"{archive.name}:{recorded.where}"),
                         f"pass --to {recorded.sha} (or leave --to out), or name the release "
                         f"built from {sha[:12]}")
    return recorded


@dataclass(frozen=True)
class PinMove:
    """What `reader pin` did: the pin before and after, its new lock entry and how it was served."""

    old: Pin
    new: Pin
    lock: LockEntry
    fetched: FetchReport
    via: str
    """`git <url>` or `archive <release>`: where the new blob shas came from."""
    remarks: tuple[str, ...] = ()
    recorded: RecordedCommit | None = None
    """The commit as the release records it (with `--to`, when the release records one)."""


class Target(NamedTuple):
    """What `--to` names: a full commit sha, and its tag's label ('' for none)."""

    sha: str
    tag: str


def resolve_target(pin: Pin, target: str) -> Target:
    """`--to`'s commit: a full sha as is, else a tag or branch via git."""
    if SHA_RE.match(target.lower()):
        return Target(target.lower(), "")
    url = git_url(pin)
    try:
        sha, ref = gitio.remote_ref(url, target)
    except GitError as e:
        raise InputError(f"--to {target!r} is not a full 40-hex commit sha, and resolving it as a "
                         f"tag or branch at {url} failed: {e.message}", Location("pins.toml"),
                         "pass the full sha (and --release SPEC when git is unreachable)") from None
    return Target(sha, ref.removeprefix("refs/tags/") if ref.startswith("refs/tags/") else "")


def rewrite_pins(text: str, new: Pin) -> str:
    """`text` of pins.toml with pin `new.name` moved, keeping every comment and the layout."""
    doc = tomlkit.parse(text)
    table = doc["pins"][new.name]
    table["commit"] = new.commit
    for key, value in (("tag", new.tag), ("release", new.release), ("date", new.date)):
        if value:
            table[key] = value
        elif key in table:
            del table[key]
    if new.history:
        table["history"] = list(new.history)
    return tomlkit.dumps(doc)


def extended_history(old: Pin, release: str) -> tuple[str, ...]:
    """The pin's history once it moves to `release`: the release it leaves joins it."""
    kept = [r for r in old.history if r != release]
    if old.release and old.release != release and old.release not in kept:
        kept.append(old.release)
    return tuple(kept)


def _new_lock(new: Pin, cache: Cache, archive: Callable[[], Path]) -> tuple[LockEntry, str, Source, str]:
    """(lock entry, commit date, the source to fetch from, `via`): git first, else the archive."""
    url = git_url(new)
    try:
        say(f"{new.name}: reading the tree of {new.short} from {url}")
        lock = lock_from_git(new, cache)
        if not lock.files:
            raise FetchError(f"commit {new.short} has no .py file under {', '.join(new.paths)}",
                             Location("pins.toml"), "check the commit and the pin's paths")
        return lock, git_date(new, cache), GitSource(cache, url), f"git {url}"
    except GitError as e:
        if gitio.reachable(url):
            # The archive stands in for git only when git cannot be asked, never for a commit
            # that the repository does not have.
            raise FetchError(f"{url} does not serve commit {new.commit}: {e.message}",
                             Location("pins.toml"), "check the sha (or the tag it came from)") from None
        if not new.release:
            raise FetchError(f"git source {url} failed ({e.message}) and no --release names an "
                             f"archive to take {new.short}'s files from", Location("pins.toml"),
                             "pass --release NAME==VERSION, or set READER_MIRROR_"
                             f"{new.name.upper().replace('-', '_')} to a reachable clone") from None
        say(f"{new.name}: git unreachable ({e.message[:80]}); using the {new.release} archive")
    path = archive()
    lock = lock_from_archive(new, path)
    return lock, "", ArchiveSource(archive=path), f"archive {new.release}"


def move_pin(root: Path, name: str, target: str, release: str = "", cache: Cache | None = None,
             download: Download = pip_download_sdist) -> PinMove:
    """Move pin `name` to `target`, fetch and verify its files, then rewrite pins.toml and pins.lock.

    Without `target`, the commit is the one the `release` archive records in its version.py.
    Nothing is written unless every step succeeded; both files are replaced together.
    """
    cache = cache or Cache()
    pins_path, lock_path = root / "pins.toml", root / "pins.lock"
    pins = load_pins(pins_path)
    text = pins_path.read_text(encoding="utf-8")
    locks = load_lock(lock_path, pins)
    if name not in pins:
        raise InputError(f"unknown pin {name!r}", Location(str(pins_path)),
                         f"known pins: {', '.join(sorted(pins))}")
    if release and not RELEASE_RE.match(release):
        raise InputError(f"--release {release!r} is not NAME==VERSION", None, "e.g. jax==0.10.1")
    if not target and not release:
        raise InputError("nothing to move to", None, "pass --to COMMIT, --release NAME==VERSION, or both")
    old = pins[name]
    with tempfile.TemporaryDirectory(prefix="reader-pin-") as tmp:
        downloaded: list[Path] = []

        def archive() -> Path:
            if not downloaded:
                say(f"{name}: downloading the {release} source archive")
                try:
                    downloaded.append(download(release, Path(tmp)))
                except FetchError as e:  # named by the argument: nothing is written yet
                    raise FetchError(f"--release {release}: {e.message}", e.location,
                                     e.hint) from None
            return downloaded[0]

        recorded = None if target else recorded_commit(archive(), release)
        if recorded:
            say(f"{name}: {release} records commit {recorded}")
            sha, tag = recorded.sha, ""
        else:
            sha, tag = resolve_target(old, target)
        new = replace(old, commit=sha, tag=tag, release=release, date="",
                      history=extended_history(old, release))
        lock, date, source, via = _new_lock(new, cache, archive)
        if target and release:
            recorded = _recorded_if_any(archive(), release, sha)
        new = replace(new, date=date)
        report = fetch_pin(new, lock, cache, [source], refresh=True)
    remarks = []
    if old.tag and not tag:
        remarks.append(f"dropped tag {old.tag!r}: it labels the old commit")
    if old.release and not release:
        remarks.append(f"dropped release {old.release!r}: it is the old commit's; pass --release "
                       "to keep a release archive as a fallback source")
    if report.mismatches:
        raise VerificationError("; ".join(str(m) for m in report.mismatches), Location(str(lock_path)))
    new_text = rewrite_pins(text, new)
    locks = {**locks, name: lock}
    lock_text = dump_lock(locks)
    parse_lock(lock_text, str(lock_path), parse_pins(new_text, str(pins_path)))
    atomic_write_all({lock_path: lock_text.encode(), pins_path: new_text.encode()})
    return PinMove(old, new, lock, report, via, tuple(remarks), recorded)
