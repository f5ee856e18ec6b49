"""The content-addressed cache: blobs by git sha, pin manifests, derived results (by the code version,
`reader.versions`), written atomically (`reader.atomic`)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs

from reader.atomic import atomic_write
from reader.versions import code_version


def blob_sha(data: bytes) -> str:
    """The git blob sha of `data`: sha1 of `blob <len>\\0` + data."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def json_data(data: bytes | None) -> Any | None:
    """The JSON value of a file's bytes (None: no file, or not JSON)."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


class Staging:
    """The folder of the derived results written inside `Cache.staged()`, not yet in place."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.discarded = False

    def discard(self) -> None:
        """Forget everything staged: the block's results never reach the cache."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.discarded = True

    def commit(self, derived: Path) -> None:
        """Move every staged file to its place under `derived` (renames: no data is copied); a
        folder `derived` lacks (a cold build's every kind: ~2,000 shard folders) moves in one
        rename, so that little is left to remove (removing the emptied folders took 5 s)."""
        made: set[str] = set()
        for folder, dirs, names in os.walk(self.folder):
            rel = os.path.relpath(folder, self.folder)
            target = derived / rel
            if rel != "." and _move_whole(Path(folder), target):
                dirs[:] = []
                continue
            if names and rel not in made:
                target.mkdir(parents=True, exist_ok=True)
                made.add(rel)
            for name in names:
                if not name.endswith(".tmp"):
                    os.replace(os.path.join(folder, name), target / name)
        shutil.rmtree(self.folder, ignore_errors=True)


def _move_whole(folder: Path, target: Path) -> bool:
    """Move `folder` to `target` in one rename when `target` does not exist (writes that never
    finished, `.tmp`, left out); False when it exists (another build made it meanwhile)."""
    if target.exists():
        return False
    for sub, _dirs, names in os.walk(folder):
        for name in names:
            if name.endswith(".tmp"):
                os.unlink(os.path.join(sub, name))
    try:
        os.rename(folder, target)
    except OSError:  # made meanwhile: moved file by file
        return False
    return True


STAGING = ".staging-"
"""The prefix of a staging folder in `derived/` (then the pid of the process that made it)."""


KEPT = "kept"
"""The `derived/` folder of results keyed by everything they depend on: never pruned by version."""


@contextmanager
def _version_lock(path: Path, exclusive: bool, wait: bool) -> Iterator[bool]:
    """An advisory lock on `path` (shared or exclusive); yields whether it is held."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here: never prune, never wait
        yield not exclusive
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        flags = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB)
        try:
            fcntl.flock(fd, flags)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _alive(staging: str) -> bool:
    """Whether the process that made a staging folder (named by its pid) still runs."""
    try:
        os.kill(int(staging.removeprefix(STAGING).split("-")[0]), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


FROZEN_MAX = 8192
"""Results `get_frozen` holds in memory at most (a site's pages: ~1,200 now, 1,500 with the older
edition's); past it, it starts again."""
_FROZEN: dict[str, tuple[tuple[int, int, int], Any]] = {}


def _unpickled(data: bytes | None) -> Any | None:
    if data is None:
        return None
    try:
        return pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None


def _read_file(path: str) -> bytes | None:
    """The file's bytes, or None when there is no such file."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def default_root() -> Path:
    env = os.environ.get("READER_CACHE")
    return Path(env) if env else Path(platformdirs.user_cache_dir("reader"))


class Cache:
    """Files under one root: `objects/ab/cdef…` (verified blobs), `pins/` manifests, and
    `derived/<code version>/…` (results of reader's stages, dropped whenever reader's code changes)."""

    def __init__(self, root: Path | None = None):
        self.root = (root or default_root()).expanduser()
        self._staging: Path | None = None

    # blobs -----------------------------------------------------------------
    def object_path(self, sha: str) -> Path:
        return Path(self._object_file(sha))

    def _object_file(self, sha: str) -> str:
        """`object_path` as a string (a build looks up thousands: no Path built for each)."""
        return f"{self.root}/objects/{sha[:2]}/{sha[2:]}"

    def get_blob(self, sha: str) -> bytes | None:
        """The bytes stored under `sha`, or None when absent or corrupt (a corrupt copy is removed)."""
        data = _read_file(self._object_file(sha))
        if data is None:
            return None
        if blob_sha(data) != sha:
            self.object_path(sha).unlink(missing_ok=True)
            return None
        return data

    def has_blob(self, sha: str) -> bool:
        return os.path.isfile(self._object_file(sha))

    def blob_problem(self, sha: str) -> str:
        """"" when the bytes stored under `sha` hash to it, else what is wrong ("absent", or
        the sha they hash to): a corrupt copy is removed, so that a fetch serves it again."""
        data = _read_file(self._object_file(sha))
        if data is None:
            return "absent"
        actual = blob_sha(data)
        if actual == sha:
            return ""
        self.object_path(sha).unlink(missing_ok=True)
        return actual

    def put_blob(self, data: bytes) -> str:
        sha = blob_sha(data)
        path = self.object_path(sha)
        if not path.is_file():
            atomic_write(path, data)
        return sha

    # pin manifests -----------------------------------------------------------
    def manifest_path(self, name: str, commit: str, files: dict[str, str]) -> Path:
        """Where the file list of pin `name` at `commit` under the lock's `files` is kept: keyed by
        the lock's content too, so two locks of one commit (an archive's, git's) never share one."""
        digest = hashlib.sha1(json.dumps(files, sort_keys=True).encode()).hexdigest()[:12]
        return self.root / "pins" / f"{name}-{commit}-{digest}.json"

    def read_manifest(self, path: Path) -> dict[str, Any] | None:
        """A file list as written, or None when absent or not a well-formed list (a truncated one)."""
        try:
            data = json.loads(path.read_text())
        except (FileNotFoundError, ValueError, UnicodeDecodeError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict) \
                or not isinstance(data.get("missing"), list):
            return None
        return data

    def write_manifest(self, path: Path, manifest: dict[str, Any]) -> None:
        atomic_write(path, json.dumps(manifest, indent=1, sort_keys=True).encode())

    # derived results -----------------------------------------------------------
    def _derived_path(self, kind: str, key: str) -> str:
        """A derived result's path under `derived/` (a string: a build looks up thousands)."""
        return f"{code_version()}/{kind}/{key[:2]}/{key}"

    def _kept_path(self, kind: str, key: str) -> str:
        return f"{KEPT}/{kind}/{key[:2]}/{key}"

    def _places(self, rel: str) -> tuple[str, ...]:
        """Where a derived result is read from: the build's staging folder first, then the cache."""
        own = f"{self.root}/derived/{rel}"
        return (own,) if self._staging is None else (f"{self._staging}/{rel}", own)

    def _read(self, rel: str) -> bytes | None:
        for candidate in self._places(rel):
            data = _read_file(candidate)
            if data is not None:
                return data
        return None

    def _write(self, rel: str, data: bytes) -> None:
        atomic_write(Path(self._places(rel)[0]), data, durable=False)

    def get_json(self, kind: str, key: str) -> Any | None:
        return json_data(self._read(self._derived_path(kind, key)))

    def put_json(self, kind: str, key: str, value: Any) -> None:
        self._write(self._derived_path(kind, key), json.dumps(value, separators=(",", ":")).encode())

    def has(self, kind: str, key: str) -> bool:
        return any(os.path.isfile(place) for place in self._places(self._derived_path(kind, key)))

    def get_object(self, kind: str, key: str) -> Any | None:
        """A pickled result of reader's own classes (the code version in the path keeps them current)."""
        return _unpickled(self._read(self._derived_path(kind, key)))

    def get_frozen(self, kind: str, key: str, read: Callable[[bytes | None], Any] | None = None,
                   lasting: bool = False) -> Any | None:
        """`get_object` for a result nothing changes once made (a rendered page), read back from
        this process's memory while its file is the one read then (the same inode, size and
        time): a long-lived process (`reader serve`) builds again and again, and unpickling every
        page again cost each of its builds 0.15-0.3 s. `read` makes the value of the file's bytes
        (default: unpickled; a JSON result's: its form's load); `lasting`: a result kept across code
        versions."""
        for place in self._places(self._kept_path(kind, key) if lasting else self._derived_path(kind, key)):
            try:
                st = os.stat(place)
            except FileNotFoundError:
                continue
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
            known = _FROZEN.get(place)
            if known is not None and known[0] == stamp:
                return known[1]
            value = (read or _unpickled)(_read_file(place))
            if value is not None:
                if len(_FROZEN) >= FROZEN_MAX:
                    _FROZEN.clear()
                _FROZEN[place] = (stamp, value)
            return value
        return None

    def put_object(self, kind: str, key: str, value: Any) -> None:
        self._write(self._derived_path(kind, key), pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def get_kept_json(self, kind: str, key: str) -> Any | None:
        """A result whose key names everything it depends on, reader's code included where it
        matters: it is kept when reader's code changes (the lab artifacts: a jax run each)."""
        return json_data(self._read(self._kept_path(kind, key)))

    def has_kept(self, kind: str, key: str) -> bool:
        return any(os.path.isfile(place) for place in self._places(self._kept_path(kind, key)))

    def put_kept_json(self, kind: str, key: str, value: Any) -> None:
        self._write(self._kept_path(kind, key), json.dumps(value, separators=(",", ":")).encode())

    @contextmanager
    def staged(self) -> Iterator[Staging]:
        """Derived results written in the block (by this process or by workers it starts) go to
        a staging folder, and are moved into place when the block ends without an exception
        (unless `discard()` was called): a command that fails on bad input leaves the cache as
        it was. Blobs and manifests are written at once, as always."""
        if self._staging is not None:  # already staging: one transaction
            yield Staging(self._staging)
            return
        folder = self.root / "derived" / f"{STAGING}{os.getpid()}-{os.urandom(4).hex()}"
        self._staging = folder
        staging = Staging(folder)
        try:
            yield staging
        except BaseException:
            staging.discard()
            raise
        finally:
            self._staging = None
        if not staging.discarded:
            staging.commit(self.root / "derived")

    # pruning -------------------------------------------------------------------
    @contextmanager
    def in_use(self) -> Iterator[None]:
        """Mark this code version's derived results as in use (a shared lock) while the block runs."""
        with _version_lock(self.root / "derived" / f".{code_version()}.lock", exclusive=False,
                           wait=True) as held:
            assert held
            yield

    def prune(self) -> list[str]:
        """Remove the derived results of other code versions that no process is using now.

        Returns the versions removed. A version in use (another checkout building) is kept.
        """
        base = self.root / "derived"
        current = code_version()
        removed = []
        for folder in sorted(base.iterdir()) if base.is_dir() else []:
            name = folder.name
            if name.startswith(".trash-") or (name.startswith(STAGING) and not _alive(name)):
                shutil.rmtree(folder, ignore_errors=True)  # left by a killed prune or build
                continue
            if not folder.is_dir() or name in (current, KEPT) or name.startswith("."):
                continue
            with _version_lock(base / f".{name}.lock", exclusive=True, wait=False) as held:
                if not held:
                    continue
                trash = base / f".trash-{name}-{os.getpid()}"
                try:
                    os.replace(folder, trash)
                except OSError:
                    continue
                (base / f".{name}.lock").unlink(missing_ok=True)
                removed.append(name)
            shutil.rmtree(trash, ignore_errors=True)
        return removed

    # locking -------------------------------------------------------------------
    @contextmanager
    def locked(self, what: str = "fetch", on_wait: Callable[[], None] | None = None) -> Iterator[None]:
        """Hold the cache's lock for `what`; `on_wait` is called once if another process holds it."""
        self.root.mkdir(parents=True, exist_ok=True)
        with held(self.root / f".{what}.lock", on_wait):
            yield


@contextmanager
def held(path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the file lock at `path` while the block runs; when another process holds it, call
    `on_wait` once (it may raise instead of waiting), then wait for it."""
    import filelock  # a fetch's import: a command that only reads the cache does without it

    lock = filelock.FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        if on_wait:
            on_wait()
        lock.acquire()
    try:
        yield
    finally:
        lock.release()
