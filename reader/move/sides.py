"""The two sides of `reader diff`: a pins file with its lock, from disk or from the project's git history."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from reader import gitio
from reader.errors import GitError, InputError, Location
from reader.pins import LockEntry, Pin, load_lock, load_pins, parse_lock, parse_pins


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


def load_side(root: Path, spec: str) -> Side:
    """A side from a pins file path (its lock beside it) or `REV:path` read through git at `root`."""
    if not is_rev_spec(spec):
        path = Path(spec)
        pins = load_pins(path)
        return Side(spec, pins, load_lock(Path(lock_path_of(path)), pins))
    rev, _, rel = spec.partition(":")
    lock_rel = lock_path_of(PurePosixPath(rel))
    pins = parse_pins(_show(root, rev, rel, spec), spec)
    lock_label = f"{rev}:{lock_rel}"
    return Side(spec, pins, parse_lock(_show(root, rev, str(lock_rel), lock_label), lock_label, pins))


def _show(root: Path, rev: str, rel: str, label: str) -> str:
    try:
        return gitio.show_at(root, rev, root / rel)
    except GitError as e:
        raise InputError(f"cannot read it from git: {e.message}", Location(label),
                         "name a pins file, or REV:pins.toml for a commit of this project that "
                         "has pins.toml and pins.lock") from None
