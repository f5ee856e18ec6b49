"""The review's data: one screen per note a move flagged, the code on both sides, and the move.

`reader serve` gathers a `Review` after each build (`gather.py`) and hands it to its HTTP process
as JSON (`to_json`); the page renders it, and the actions (`act.py`) read it back (`from_json`)
to know what each screen showed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Side:
    """One side of a note's code: a file at a set of pins, a window of its lines."""

    label: str
    """`small v0`, `jax 0.10.2`: the pins, as a person names them."""
    path: str
    first: int
    """The number of the window's first line."""
    lines: tuple[str, ...]
    span: tuple[int, int] | None
    """The note's lines there (absolute), when it anchors on this side."""
    blob: str = ""
    """The file's git blob sha (its whole text, for re-anchoring, is read from the cache by it)."""
    pin: str = ""
    runs: tuple[tuple[str | int, ...], ...] = ()
    """Each line's highlighting, as the site's code view has it: (pygments class, UTF-16 units,
    ...) flat (`reader.render.code.highlight.Runs`)."""


@dataclass(frozen=True)
class Row:
    """A row of the side-by-side view: an old line, a new line, or both."""

    old: int | None
    new: int | None
    kind: str
    """`same`, `changed` (both lines, differing), `removed` (old only) or `added` (new only)."""
    old_marks: tuple[tuple[int, int], ...] = ()
    """Changed characters of a `changed` row's old line: [start, end) pairs, in UTF-16 units
    (as the page's script counts them)."""
    new_marks: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ClaimSide:
    """A claim's outcome at one side's releases, when one is known."""

    label: str
    outcome: str
    """`passes`, `fails`, `not run`, or `says` (the move ran it on both sides: the outputs differ)."""
    said: str = ""
    """What the first failing example printed (or the error), or the last example's output."""


@dataclass(frozen=True)
class Screen:
    """One flagged note, as the review shows it."""

    id: str
    file: str
    """Its annotation file, `annotations/x.yaml`."""
    index: int
    """Its position in that file's `notes` list."""
    line: int
    digest: str
    """The file's git blob sha when gathered: a write refuses a file changed since."""
    article: str
    title: str
    status: str
    confidence: float
    reason: str
    how: str
    body: str
    words: str
    """The note's body as its page renders it (HTML from the built site, links relative to it)."""
    old: Side | None
    new: Side | None
    rows: tuple[Row, ...]
    pick: tuple[int, int] | None
    """The lines a re-anchoring starts from: the note's lines at the new pins, or the nearest
    candidate."""
    acceptable: bool
    """Whether Accept can record the note where it anchors now."""
    advice: str = ""
    """What to do when it cannot (`reader check`'s hint)."""
    claim: tuple[ClaimSide, ...] = ()
    claim_text: str = ""


@dataclass(frozen=True)
class Review:
    """A move under review: why it is one, the two sides, and the flagged notes surest first."""

    active: bool
    why: str
    """Why a move is (or is not) in progress, one sentence."""
    old: str = ""
    new: str = ""
    move: str = ""
    """The pins that moved, `jax 0.12.0.1 → 0.11.2` (empty when only marks make the review)."""
    screens: tuple[Screen, ...] = ()
    notes: int = 0
    """Every note of the track (the counter's whole)."""
    problems: tuple[str, ...] = field(default_factory=tuple)
    """What stopped part of the gathering (an old side that cannot be read...), for the page."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def from_json(data: dict[str, Any]) -> Review:
    """The `Review` that `to_json` wrote."""
    def side(d: dict[str, Any] | None) -> Side | None:
        if d is None:
            return None
        span = tuple(d["span"]) if d.get("span") else None
        return Side(d["label"], d["path"], d["first"], tuple(d["lines"]), span,
                    d.get("blob", ""), d.get("pin", ""), tuple(map(tuple, d.get("runs", ()))))

    screens = []
    for s in data.get("screens", ()):
        rows = tuple(Row(r["old"], r["new"], r["kind"], tuple(map(tuple, r["old_marks"])),
                         tuple(map(tuple, r["new_marks"]))) for r in s["rows"])
        claim = tuple(ClaimSide(**c) for c in s.get("claim", ()))
        pick = tuple(s["pick"]) if s.get("pick") else None
        screens.append(Screen(**{**s, "old": side(s["old"]), "new": side(s["new"]), "rows": rows,
                                 "claim": claim, "pick": pick}))
    return Review(data["active"], data["why"], data.get("old", ""), data.get("new", ""),
                  data.get("move", ""), tuple(screens), data.get("notes", 0),
                  tuple(data.get("problems", ())))
