"""The content-addressed cache: blobs by git sha, pin manifests, derived results; atomic writes."""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs


def blob_sha(data: bytes) -> str:
    """The git blob sha of `data`: sha1 of `blob <len>\\0` + data."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Write `data` so that `path` never holds a partial file: temp file in the same folder, then rename.

    `durable` also flushes the data to the disk before the rename (what a crash of the machine
    needs); a result that can be computed again (a derived result) skips that: a killed process
    cannot leave it partial either way.
    """
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_TEMPS = itertools.count()


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new file beside `path` (its folders made when missing), open for writing: named by this
    process and a counter (a build writes thousands; `mkstemp`'s random names cost more), by
    `mkstemp` when that name is taken (a dead process's leftover)."""
    tmp = f"{path.parent}/.{path.name}.{os.getpid()}-{next(_TEMPS)}.tmp"
    for _ in range(2):
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            break
    path.parent.mkdir(parents=True, exist_ok=True)
    return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")


def atomic_write_all(files: dict[Path, bytes]) -> None:
    """Replace several files all or none: each is written in full beside its target first, then all
    are renamed into place; if a rename fails, the files already replaced get their old bytes back."""
    before = {p: p.read_bytes() if p.is_file() else None for p in files}
    temps: list[tuple[str, Path]] = []
    done: list[Path] = []
    try:
        for path, data in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            temps.append((tmp, path))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for tmp, path in temps:
            os.replace(tmp, path)
            done.append(path)
    except BaseException:
        for path in done:
            old = before[path]
            if old is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write(path, old)
        raise
    finally:
        for tmp, _path in temps:
            Path(tmp).unlink(missing_ok=True)


@functools.cache
def code_version() -> str:
    """A hash of reader's own source: derived results are keyed by the code that produced them."""
    package = Path(__file__).resolve().parent
    h = hashlib.sha1()
    for path in sorted(package.rglob("*")):
        if path.suffix in {".py", ".j2", ".json", ".css", ".js"} and path.is_file():
            h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def _json(data: bytes | None) -> Any | None:
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
        """Move every staged file to its place under `derived` (renames: no data is copied)."""
        made: set[str] = set()
        for folder, _dirs, names in os.walk(self.folder):
            rel = os.path.relpath(folder, self.folder)
            target = derived / rel
            if names and rel not in made:
                target.mkdir(parents=True, exist_ok=True)
                made.add(rel)
            for name in names:
                if not name.endswith(".tmp"):
                    os.replace(os.path.join(folder, name), target / name)
        shutil.rmtree(self.folder, ignore_errors=True)


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
    def _object_path(self, sha: str) -> Path:
        return self.root / "objects" / sha[:2] / sha[2:]

    def get_blob(self, sha: str) -> bytes | None:
        """The bytes stored under `sha`, or None when absent or corrupt (a corrupt copy is removed)."""
        path = self._object_path(sha)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        if blob_sha(data) != sha:
            path.unlink(missing_ok=True)
            return None
        return data

    def has_blob(self, sha: str) -> bool:
        return self._object_path(sha).is_file()

    def put_blob(self, data: bytes) -> str:
        sha = blob_sha(data)
        path = self._object_path(sha)
        if not path.is_file():
            atomic_write(path, data)
        return sha

    # pin manifests -----------------------------------------------------------
    def _manifest_path(self, name: str, commit: str) -> Path:
        return self.root / "pins" / f"{name}-{commit}.json"

    def read_manifest(self, name: str, commit: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._manifest_path(name, commit).read_text())
        except (FileNotFoundError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_manifest(self, name: str, commit: str, manifest: dict[str, Any]) -> None:
        text = json.dumps(manifest, indent=1, sort_keys=True)
        atomic_write(self._manifest_path(name, commit), text.encode())

    # derived results -----------------------------------------------------------
    def _derived_path(self, kind: str, key: str) -> str:
        """A derived result's path under `derived/` (a string: a build looks up thousands)."""
        return f"{code_version()}/{kind}/{key[:2]}/{key}"

    def _kept_path(self, kind: str, key: str) -> str:
        return f"{KEPT}/{kind}/{key[:2]}/{key}"

    def _places(self, rel: str) -> tuple[Path, ...]:
        """Where a derived result is read from: the build's staging folder first, then the cache."""
        own = Path(f"{self.root}/derived/{rel}")
        return (own,) if self._staging is None else (Path(f"{self._staging}/{rel}"), own)

    def _read(self, rel: str) -> bytes | None:
        for candidate in self._places(rel):
            try:
                return candidate.read_bytes()
            except FileNotFoundError:
                pass
        return None

    def _write(self, rel: str, data: bytes) -> None:
        atomic_write(self._places(rel)[0], data, durable=False)

    def get_json(self, kind: str, key: str) -> Any | None:
        return _json(self._read(self._derived_path(kind, key)))

    def put_json(self, kind: str, key: str, value: Any) -> None:
        self._write(self._derived_path(kind, key), json.dumps(value, separators=(",", ":")).encode())

    def has(self, kind: str, key: str) -> bool:
        return any(place.is_file() for place in self._places(self._derived_path(kind, key)))

    def get_object(self, kind: str, key: str) -> Any | None:
        """A pickled result of reader's own classes (the code version in the path keeps them current)."""
        data = self._read(self._derived_path(kind, key))
        if data is None:
            return None
        try:
            return pickle.loads(data)
        except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
            return None

    def put_object(self, kind: str, key: str, value: Any) -> None:
        self._write(self._derived_path(kind, key), pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def get_kept_json(self, kind: str, key: str) -> Any | None:
        """A result whose key names everything it depends on, reader's code included where it
        matters: it is kept when reader's code changes (the lab artifacts: a jax run each)."""
        return _json(self._read(self._kept_path(kind, key)))

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
    def locked(self, what: str = "fetch", on_wait=None) -> Iterator[None]:
        """Hold the cache's lock for `what`; `on_wait` is called once if another process holds it."""
        import filelock  # a fetch's import: a command that only reads the cache does without it

        self.root.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(str(self.root / f".{what}.lock"))
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
