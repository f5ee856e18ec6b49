"""The two sides of `reader diff`: a pins file with its lock, from disk or from the project's git history."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from reader.pins import LockEntry, Pin


@dataclass(frozen=True)
class Side:
    """One set of pins and the lock beside it, named as the user named it."""

    label: str
    pins: dict[str, Pin]
    locks: dict[str, LockEntry]


def lock_path_of(pins_path: PurePosixPath | Path) -> PurePosixPath | Path:
    """The lock beside a pins file: `pins.toml` -> `pins.lock`, `old.toml` -> `old.lock`."""
    return pins_path.with_suffix(".lock")


def is_rev_spec(spec: str) -> bool:
    """`REV:path` names a file in git history, unless a file by that very name exists."""
    rev, sep, rel = spec.partition(":")
    return bool(sep and rev and rel) and not Path(spec).exists()


