"""Files written whole or not at all: one (`atomic_write`), or several in one folder, journaled so
that a killed process leaves them all old or all new (`atomic_write_all`, `finish_interrupted`)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reader.errors import InputError, Location


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


JOURNAL = ".reader-journal.json"
"""What `atomic_write_all` is about to write, kept in the files' folder until every file is written:
a process killed in between leaves it, and `finish_interrupted` completes the write."""


def atomic_write_all(files: dict[Path, bytes]) -> None:
    """Replace several files (in one folder) all or none, even if the process is killed.

    The new bytes go into a journal first (written atomically), then each file is replaced, then
    the journal is removed. SIGTERM, SIGINT and SIGHUP wait until the files are written; a SIGKILL
    in between leaves the journal, which the next `finish_interrupted` of the folder completes.
    If a write fails, the files already replaced get their old bytes back."""
    if not files:
        return
    folder = _one_folder(files)
    before = {p: p.read_bytes() if p.is_file() else None for p in files}
    journal = {"files": {p.name: {"old": _sha_or_empty(before[p]), "new": base64.b64encode(data).decode()}
                         for p, data in files.items()}}
    done: list[Path] = []
    with _signals_deferred():
        atomic_write(folder / JOURNAL, json.dumps(journal).encode())
        try:
            for path, data in files.items():
                atomic_write(path, data)
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
            (folder / JOURNAL).unlink(missing_ok=True)


def finish_interrupted(folder: Path) -> list[str]:
    """Complete the write a killed `atomic_write_all` left in `folder`; returns the files written.

    Each file must still hold its old or its new bytes (else a person changed it since: an error
    naming the journal)."""
    journal = folder / JOURNAL
    try:
        files = json.loads(journal.read_bytes())["files"]
        new = {name: base64.b64decode(entry["new"]) for name, entry in files.items()}
    except FileNotFoundError:
        return []
    except (ValueError, KeyError, TypeError):
        journal.unlink(missing_ok=True)  # cut short while written: nothing was replaced yet
        return []
    for name, entry in files.items():
        path = folder / name
        now = _sha_or_empty(path.read_bytes() if path.is_file() else None)
        if now not in (entry["old"], _sha_or_empty(new[name])):
            raise InputError(f"an interrupted write left {journal}, but {name} changed since",
                             Location(str(path)), f"check {', '.join(sorted(files))}, then delete "
                             f"{journal}")
    with _signals_deferred():
        for name, data in new.items():
            atomic_write(folder / name, data)
        journal.unlink()
    return sorted(new)


def _sha_or_empty(data: bytes | None) -> str:
    """A file's bytes as the journal names them: their git blob sha, as the cache names a blob ("" for
    no file)."""
    return "" if data is None else hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _one_folder(files: dict[Path, bytes]) -> Path:
    folders = {p.parent.resolve() for p in files}
    if len(folders) != 1:
        raise ValueError(f"atomic_write_all writes files of one folder, not {sorted(folders)}")
    return next(iter(folders))


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGTERM, SIGINT and SIGHUP received in the block take effect when it ends (the main
    thread only: elsewhere signals keep their handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    kinds = [signal.SIGTERM, signal.SIGINT] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    previous = {k: signal.signal(k, lambda number, _frame: caught.append(number)) for k in kinds}
    try:
        yield
    finally:
        for kind, handler in previous.items():
            signal.signal(kind, handler)
        for number in caught[:1]:
            signal.raise_signal(number)
