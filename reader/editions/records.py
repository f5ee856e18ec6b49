"""The finished pin moves' records (`moves/*.json`, written by `reader diff --record`), read."""

from __future__ import annotations

import json
from pathlib import Path

from reader.errors import InputError, Location
from reader.inputs import read_input
from reader.move.record import MoveFile, MoveRecord

MOVES_DIR = "moves"


def load_moves(root: Path) -> list[MoveFile]:
    """Every `moves/*.json`, newest name last."""
    out = []
    for path in sorted((root / MOVES_DIR).glob("*.json")):
        display = path.relative_to(root).as_posix()
        try:
            data = json.loads(read_input(path, display, root))
        except json.JSONDecodeError as e:
            raise InputError(f"not JSON: {e.msg}", Location(display, e.lineno),
                             "write it again with 'reader diff OLD NEW --record FILE'") from None
        out.append(MoveFile(path.stem, MoveRecord.from_json(data, display)))
    return out
