"""A source page's blame across the releases read (`editions.blame`): one script per file,
`assets/blame/<path>.js`, which blame.js loads when the reader turns the blame on."""

from __future__ import annotations

import json

from reader.editions import LineHistory
from reader.render.common.model import Asset

BLAME_DIR = "assets/blame"


def blame_src(path: str) -> str:
    """The site path of a file's blame script."""
    return f"{BLAME_DIR}/{path}.js"


def blame_assets(history: LineHistory | None) -> list[Asset]:
    """Each read file's script: `readerBlame.put(path, {r: versions oldest first, e: the previous
    edition's index (-1 none), l: [count, earliest, latest, ...] runs over its lines, c: the
    releases that carry the file})`."""
    if history is None:
        return []
    out = []
    for path, runs in sorted(history.now.items()):
        data = {"r": history.releases, "e": history.edition, "l": [x for run in runs for x in run],
                "c": history.carried.get(path, ())}
        body = json.dumps(data, separators=(",", ":"))
        out.append(Asset(blame_src(path), f"readerBlame.put({json.dumps(path)},{body});\n".encode()))
    return out
