"""Make a pin's files available in the cache: cache, git, installed distribution, release archive,
release wheel (an archive may leave out files the wheel carries, and the other way round)."""

from __future__ import annotations

import bisect
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple, Protocol

from reader.cache import Cache, blob_sha
from reader.errors import FetchError, Location, ReaderError
from reader.pins import LockEntry, Pin, check_url
from reader.progress import counted, say

Download = Callable[[str, Path], Path]
"""(release `name==version`, folder) -> the path of its source archive, downloaded into the folder."""


@dataclass(frozen=True)
class Mismatch:
    path: str
    expected: str
    actual: str
    source: str

    def __str__(self) -> str:
        return (f"{self.path}: blob {self.actual} from {self.source} does not match the lock's "
                f"{self.expected}; the file was not used")


class SourceFailure(NamedTuple):
    """A source that served nothing, and why."""

    source: str
    why: str


@dataclass(frozen=True)
class FetchReport:
    """What one `reader fetch` did for one pin."""

    pin: str
    commit: str
    sources: tuple[str, ...]
    """The sources that served at least one file, in order."""
    served: int
    expected: int
    missing: tuple[str, ...]
    tried: tuple[SourceFailure, ...] = ()
    """Each source that failed."""
    mismatches: tuple[Mismatch, ...] = field(default=())
    files: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    """path -> blob sha of every verified file."""

    @property
    def verified(self) -> bool:
        return not self.mismatches


class FileData(NamedTuple):
    """A file's path below its pin's root (or an archive's top folder) and its bytes."""

    path: str
    data: bytes


class Source(Protocol):
    """One place pinned files can come from. `provide` yields a `FileData` for each file it has."""

    name: str

    def provide(self, pin: Pin, wanted: dict[str, str]) -> Iterator[FileData]: ...


class GitSource:
    def __init__(self, cache: Cache, url: str):
        self.cache = cache
        self.url = check_url(url)
        self.name = f"git {url}"

    def provide(self, pin, wanted):
        from reader import gitio  # GitPython loads slowly; a cache hit never needs it

        say(f"{pin.name}: fetching {pin.short} from {self.url} (depth 1, blob-less)")
        repo = gitio.fetch_commit(self.cache.root / "git" / f"{pin.name}.git", self.url, pin.commit)
        tree = gitio.list_tree(repo, pin.commit, pin.all_paths)
        shas = sorted({tree[p] for p in wanted if p in tree})
        say(f"{pin.name}: reading {len(shas)} blobs")
        blobs = gitio.read_blobs(repo, pin.commit, shas)
        for path in wanted:
            if path in tree:
                yield FileData(path, blobs[tree[path]])


class InstalledSource:
    name = "installed distribution"

    def provide(self, pin, wanted):
        if not pin.release:
            raise FetchError("the pin names no release")
        # imported here: 25-60 ms, which a build that fetches nothing never needs
        import importlib.metadata

        try:
            dist = importlib.metadata.distribution(pin.dist_name)
        except importlib.metadata.PackageNotFoundError:
            raise FetchError(f"{pin.dist_name} is not installed") from None
        if dist.version != pin.dist_version:
            raise FetchError(f"installed {pin.dist_name} is {dist.version}, the pin needs {pin.dist_version}")
        self.name = f"installed {pin.dist_name}=={dist.version}"
        say(f"{pin.name}: reading {self.name}")
        for path in wanted:
            file = Path(str(dist.locate_file(path)))
            if file.is_file():
                yield FileData(path, file.read_bytes())


class ArchiveSource:
    """The release's source archive: downloaded by `download`, or one already at hand (`archive`)."""

    name = "release archive"

    def __init__(self, download: Callable[[str, Path], Path] | None = None,
                 archive: Path | None = None):
        self.download = download or pip_download_sdist
        self.archive = archive

    def provide(self, pin, wanted):
        if not pin.release:
            raise FetchError("the pin names no release")
        self.name = f"source archive {pin.release}"
        if self.archive is not None:
            yield from read_archive(self.archive, wanted)
            return
        with tempfile.TemporaryDirectory(prefix="reader-sdist-") as tmp:
            say(f"{pin.name}: downloading the {pin.release} source archive")
            yield from read_archive(self.download(pin.release, Path(tmp)), wanted)


class WheelSource:
    """The release's wheel: its files sit at the archive's root (no top folder)."""

    name = "release wheel"

    def __init__(self, download: Callable[[str, Path], Path] | None = None):
        self.download = download or pip_download_wheel

    def provide(self, pin, wanted):
        if not pin.release:
            raise FetchError("the pin names no release")
        self.name = f"wheel {pin.release}"
        with tempfile.TemporaryDirectory(prefix="reader-wheel-") as tmp:
            say(f"{pin.name}: downloading the {pin.release} wheel")
            with zipfile.ZipFile(self.download(pin.release, Path(tmp))) as wheel:
                for info in wheel.infolist():
                    if info.filename in wanted and not info.is_dir():
                        yield FileData(info.filename, wheel.read(info))


def pip_download_sdist(release: str, dest: Path) -> Path:
    """The source archive of `release` from the package index, via `pip download`."""
    return _pip_download(release, dest, ["--no-binary", ":all:"], (".tar.gz", ".zip"),
                         "source archive")


def pip_download_wheel(release: str, dest: Path) -> Path:
    """A wheel of `release` from the package index (whatever Python it asks for), via `pip download`."""
    return _pip_download(release, dest, ["--only-binary", ":all:", "--ignore-requires-python"], (".whl",),
                         "wheel")


def _pip_download(release: str, dest: Path, kind: list[str], suffixes: tuple[str, ...],
                  what: str) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *kind,
           "--retries", "1", "--timeout", "20", "-d", str(dest), release]
    done = subprocess.run(cmd, capture_output=True, text=True)
    archives = sorted(p for p in dest.iterdir() if p.name.endswith(suffixes))
    if done.returncode != 0 or not archives:
        last = (done.stderr.strip().splitlines() or ["no archive"])[-1]
        versions = _listed(done.stderr)
        if versions:  # the index answered, with the versions it has: not this one
            raise FetchError(f"the package index has no {what} of {release} (the nearest it "
                             f"has: {', '.join(_nearest(release, versions))})", None,
                             "name a release the index has (`pip index versions NAME` lists them)")
        raise FetchError(f"pip download failed: {last[:300]}", None,
                         "check the name and version, and that the package index is reachable")
    return archives[0]


def _listed(said: str) -> list[str]:
    """The versions pip says the index has (`(from versions: A, B)`); none when it could not ask
    (offline, no such project: pip lists `none` for both)."""
    listed = re.search(r"\(from versions: ([^)]*)\)", said)
    versions = [v.strip() for v in listed.group(1).split(",")] if listed else []
    return [] if versions == ["none"] else versions


def _nearest(release: str, versions: list[str]) -> list[str]:
    """The versions (in pip's order) on either side of `release`'s: two below, one above."""
    at = bisect.bisect([_version_key(v) for v in versions], _version_key(release.partition("==")[2]))
    return versions[max(at - 2, 0):at + 1]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else -1 for p in version.split("."))


def read_archive(archive: Path, wanted: dict[str, str]) -> Iterator[FileData]:
    """Members of a .tar.gz or .zip sdist whose path below the top folder is wanted; nothing is extracted."""
    return archive_members(archive, wanted.__contains__)


def archive_members(archive: Path, keep: Callable[[str], bool]) -> Iterator[FileData]:
    """The path below the top folder and the bytes of each regular member whose path `keep` accepts."""
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                rel = info.filename.split("/", 1)[-1]
                if keep(rel) and not info.is_dir():
                    yield FileData(rel, z.read(info))
        return
    with tarfile.open(archive) as tar:
        for member in tar:
            rel = member.name.split("/", 1)[-1]
            if keep(rel) and member.isfile():
                f = tar.extractfile(member)
                if f is not None:
                    yield FileData(rel, f.read())


def mirror_variable(pin: Pin) -> str:
    """The environment variable that names a git mirror of `pin`."""
    return f"READER_MIRROR_{pin.name.upper().replace('-', '_')}"


def git_url(pin: Pin) -> str:
    """Where git fetches `pin` from: `READER_MIRROR_<NAME>` when set (checked), else the pin's repo."""
    mirror = os.environ.get(mirror_variable(pin))
    if mirror:
        return check_url(mirror, Location(mirror_variable(pin)))
    return pin.repo


def default_sources(pin: Pin, cache: Cache) -> list[Source]:
    return [GitSource(cache, git_url(pin)), InstalledSource(), ArchiveSource(), WheelSource()]


def fetch_pin(pin: Pin, lock: LockEntry, cache: Cache, sources: list[Source] | None = None,
              refresh: bool = False, verify: bool = False) -> FetchReport:
    """Serve every locked file of `pin` into the cache, verified; record its file list last.

    A cache hit takes no lock: the list is written last and every file atomically, so a list whose
    entries all agree with the lock and whose blobs are all there is a finished fetch. `verify`
    also reads and hashes each cached blob. An entry of the list that disagrees with the lock, or
    a blob whose bytes do not hash to its name, is refused (reported in `mismatches`), dropped and
    served again."""
    first = None if refresh else cached_list(pin, lock, cache, verify)
    if first and first.complete:
        return first.report(pin, lock)
    with cache.locked(on_wait=lambda: say("another reader fetch holds the cache; waiting")):
        listed = None if refresh else cached_list(pin, lock, cache, verify)
        if listed and listed.complete:
            return listed.report(pin, lock)
        # A corrupt copy the first look removed reads as absent now: keep what it found.
        refused = tuple(dict.fromkeys((first.refused if first else ()) +
                                      (listed.refused if listed else ())))
        for mismatch in refused:
            say(f"{pin.name}: {mismatch}; fetching it again")
        report = _fetch_locked(pin, lock, cache, sources or default_sources(pin, cache))
        return replace(report, mismatches=refused + report.mismatches)


@dataclass(frozen=True)
class CachedList:
    """The cache's file list of one pin, each entry checked against the lock (never trusted by path)."""

    files: dict[str, str]
    """path -> the lock's blob sha, for each entry that agrees with the lock and whose blob is there."""
    missing: tuple[str, ...]
    sources: tuple[str, ...]
    refused: tuple[Mismatch, ...]
    complete: bool
    """Every locked file is listed and verified, or recorded as missing from every source."""

    def report(self, pin: Pin, lock: LockEntry) -> FetchReport:
        return FetchReport(pin.name, pin.commit, ("cache",), len(self.files), len(lock.files),
                           self.missing, files=self.files)


def cached_list(pin: Pin, lock: LockEntry, cache: Cache, verify: bool = False) -> CachedList:
    """The cache's file list of `pin` under `lock`, each entry against the lock's sha; `verify`
    reads and hashes each blob too (a corrupt copy is removed and refused)."""
    where = cache.manifest_path(pin.name, pin.commit, lock.files)
    manifest = cache.read_manifest(where)
    if manifest is None:
        return CachedList({}, (), (), (), False)
    files: dict[str, str] = {}
    refused: list[Mismatch] = []
    for path, sha in sorted(manifest["files"].items()):
        if lock.files.get(path) != sha:
            refused.append(Mismatch(path, lock.files.get(path, "(not locked)"), str(sha),
                                    f"the cache's file list {where}"))
        elif not verify:
            if cache.has_blob(sha):
                files[path] = sha
        elif (problem := cache.blob_problem(sha)) == "":
            files[path] = sha
        elif problem != "absent":
            refused.append(Mismatch(path, sha, problem, f"the cache's copy {cache.object_path(sha)}"))
    for path in manifest["missing"]:  # served since by another pin's fetch (the same blob)
        if path in lock.files and path not in files and cache.has_blob(lock.files[path]):
            files[path] = lock.files[path]
    missing = tuple(sorted(p for p in manifest["missing"] if p in lock.files and p not in files))
    complete = not refused and len(files) + len(missing) == len(lock.files)
    return CachedList(files, missing, tuple(manifest.get("sources", ())), tuple(refused), complete)


def _fetch_locked(pin, lock, cache, sources) -> FetchReport:
    have = {p: s for p, s in lock.files.items() if cache.has_blob(s)}
    used = ["cache"] if have else []
    tried: list[SourceFailure] = []
    mismatches: list[Mismatch] = []
    for source in sources:
        wanted = {p: s for p, s in lock.files.items() if p not in have}
        if not wanted:
            break
        got = 0
        try:
            provided = source.provide(pin, wanted)
            for path, data in counted(f"{pin.name}: fetching files", provided, len(wanted)):
                actual = blob_sha(data)
                if actual != wanted[path]:
                    mismatches.append(Mismatch(path, wanted[path], actual, source.name))
                    continue
                have[path] = cache.put_blob(data)
                got += 1
        except ReaderError as e:
            tried.append(SourceFailure(source.name, e.message))
            say(f"{pin.name}: {source.name}: {e.message}")
        if got:
            used.append(source.name)
            say(f"{pin.name}: {got} files from {source.name}")
        elif not any(name == source.name for name, _ in tried):
            tried.append(SourceFailure(source.name, "provided none of the missing files"))
    missing = tuple(sorted(set(lock.files) - set(have)))
    if not have:
        raise FetchError(f"no source could serve pin {pin.name!r} at {pin.short}: " +
                         "; ".join(f"{n}: {why}" for n, why in tried) +
                         "".join(f"; {m}" for m in mismatches), pin.where,
                         f"check the network, or point {mirror_variable(pin)} at a local clone")
    files = {p: have[p] for p in sorted(have)}
    cache.write_manifest(cache.manifest_path(pin.name, pin.commit, lock.files), {
        "commit": pin.commit, "files": files, "missing": list(missing), "sources": used})
    return FetchReport(pin.name, pin.commit, tuple(used), len(have), len(lock.files), missing,
                       tuple(tried), tuple(mismatches), files)


def verify_cached(pin: Pin, lock: LockEntry, cache: Cache) -> list[str]:
    """Problems with the cached copy of `pin`, each blob read and hashed: not fetched, entries of
    the file list the lock disagrees with, absent or corrupt blobs (a corrupt copy is removed)."""
    where = cache.manifest_path(pin.name, pin.commit, lock.files)
    if not where.is_file():
        return [f"{pin.name}: not fetched"]
    listed = cached_list(pin, lock, cache, verify=True)
    problems = [f"{pin.name}: {m}" for m in listed.refused]
    gone = set(lock.files) - set(listed.files) - set(listed.missing) - {m.path for m in listed.refused}
    return problems + [f"{pin.name}: {p}: blob {lock.files[p]} is not in the cache"
                       for p in sorted(gone)]
