"""The site's editions: the current track at the site's root, and the track as it was before each
recorded pin move (`moves/*.json`) under a folder named for the release it read (`0.10.2/`), its
project read from git (`reader.opening.checkout`), and mike's `versions.json` listing them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reader.editions.records import load_moves
from reader.move.record import MoveRecord
from reader.pins import Pin, load_pins

VERSIONS_JSON = "versions.json"


@dataclass(frozen=True)
class Edition:
    """One edition of the track: its version (the first pin's release), its title and where it lives."""

    version: str
    title: str
    folder: str
    """"" for the current edition, else `<version>/` under the site's root."""
    rev: str = ""
    """The project commit an older edition is read from ("" for the current one)."""


def _title(pins: list[tuple[str, str, str]]) -> str:
    """'jax 0.10.2 · tokamax 0.0.12' from (name, release, commit) of each pin."""
    return " · ".join(release.replace("==", " ") if release else f"{name} {commit[:7]}"
                      for name, release, commit in pins)


def current_edition(pins: Mapping[str, Pin]) -> Edition:
    """The edition at the pins: named for the first pin's release, else its commit."""
    first = next(iter(pins.values()), None)
    version = (first.dist_version or first.short) if first is not None else "current"
    return Edition(version, _title([(n, p.release, p.commit) for n, p in pins.items()]), "")


def older_edition(record: MoveRecord) -> Edition:
    """The edition before a move: named for the first pin's old release (`jax==0.10.2` -> 0.10.2),
    else its old commit."""
    first = record.pins[0] if record.pins else None
    version = "" if first is None else (first.old_release.partition("==")[2] or first.old[:7])
    version = version or record.old_rev[:7]
    return Edition(version, _title([(p.name, p.old_release, p.old) for p in record.pins]),
                   f"{version}/", record.old_rev)


def editions(root: Path) -> tuple[Edition, ...]:
    """The current edition, then the older ones, newest move first (one per version)."""
    out = [current_edition(load_pins(root / "pins.toml"))]
    for _stem, record in reversed(load_moves(root)):
        older = older_edition(record)
        if all(e.version != older.version for e in out):
            out.append(older)
    return tuple(out)


def versions_json(all_editions: tuple[Edition, ...]) -> bytes:
    """mike's `versions.json`: [{"version", "title", "aliases"}], the current edition first."""
    rows = [{"version": e.version, "title": e.title, "aliases": [] if e.folder else ["latest"]}
            for e in all_editions]
    return json.dumps(rows, indent=1).encode()
