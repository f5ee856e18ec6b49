"""Folded reports: a long page's closed `<details>` bodies as a part of the page (packed.py's
`part_text`, the IR panes' and long source files' format), which reader.js puts in a `<details>`
when the reader opens it or a link names an element inside. A report of thousands of rows (the
lowering rules' releases, a move's notes and symbols) stays under 15,000 DOM nodes at load."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from reader.packed import RUN_MARK, part_text
from reader.render.common.model import Asset

FOLDS_DIR = "assets/folds"
"""Where a page's folded bodies go: `assets/folds/<page>.js`."""
FOLDS_ID = "rd-folds"
"""The id of the (hidden, empty) element naming the part (`data-part`)."""
LEAST = 3000
"""Tags in a page's closed bodies below which they stay in its HTML."""
_CLOSED = re.compile(r"<details>(\s*<summary>.*?</summary>)(.*?)</details>", re.S)


@dataclass(frozen=True)
class Folded:
    html: str
    asset: Asset | None
    """The part holding the bodies; None when the page keeps them (byte for byte as given)."""


def fold_details(body: str, page: str, src: str) -> Folded:
    """`body` with each closed `<details>`' body left out (the element numbered, `data-i`) into a
    part at `FOLDS_DIR/<page>.js` (`src`: its URI relative to the page), when those bodies hold more
    than `LEAST` tags. A closed `<details>` holds no other (the reports' templates nest none)."""
    bodies: list[str] = []

    def cut(m: re.Match[str]) -> str:
        bodies.append(m[2])
        return f'<details data-i="{len(bodies) - 1}">{m[1]}</details>'

    folded = _CLOSED.sub(cut, body)
    if sum(b.count("<") for b in bodies) < LEAST:
        return Folded(body, None)
    marker = f'<div hidden id="{FOLDS_ID}" data-part="{html.escape(src)}"></div>'
    part = Asset(f"{FOLDS_DIR}/{page.removesuffix('.md')}.js",
                 part_text(FOLDS_ID, "".join(RUN_MARK + b for b in bodies)).encode())
    return Folded(folded + marker, part)
