"""What the printers share: the order things are shown in, counts, summary lines, groupings."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import NamedTuple

from reader.move.changes import (
    Change,
    ClaimChange,
    DiffReport,
    FactChange,
    NoteChange,
    SymbolChange,
)

NOTE_ORDER = ("changed", "orphaned", "ambiguous", "moved", "unchanged")
STATUSES = ("added", "removed", "moved", "changed", "unknown")
FILE_STATUSES = ("added", "removed", "unknown")
SYMBOL_MARK = {"added": "+", "removed": "-", "signature": "~", "body": "~"}


def counts(changes: Iterable[Change], order: Iterable[str]) -> str:
    """`2 added, 1 removed`: how many changes have each status, in `order`."""
    seen = Counter(c.status for c in changes)
    return ", ".join(f"{seen[s]} {s}" for s in order if seen[s])


def summary(report: DiffReport) -> str:
    """`3 notes need a person`, and what the extractors could not compute (which needs one too)."""
    notes = sum(c.section == "notes" for c in report.needs_person)
    claims = sum(isinstance(c, ClaimChange) for c in report.needs_person)
    unknown = len(report.needs_person) - notes - claims
    parts = [f"{notes} note{'s' if notes != 1 else ''}"] if notes else []
    parts += [f"{claims} claim{'s' if claims != 1 else ''} whose behaviour changed"] if claims else []
    parts += [f"{unknown} result{'s' if unknown != 1 else ''} that cannot be computed"] if unknown else []
    around = sum(1 for c in report.of("notes") if isinstance(c, NoteChange) and c.context)
    advised = f"; {around} placed note{'s' if around != 1 else ''} in changed code (re-read advised)" \
        if around else ""
    if not parts:
        return "no note needs a person" + advised
    one = notes + claims + unknown == 1
    return f"{' and '.join(parts)} need{'s' if one else ''} a person{advised}"


def notes_in_order(report: DiffReport) -> list[NoteChange]:
    """The notes, those that need a person first, then by annotation file and line."""
    notes = [c for c in report.of("notes") if isinstance(c, NoteChange)]
    return sorted(notes, key=lambda c: (NOTE_ORDER.index(c.status), c.where))


def symbols_by_file(report: DiffReport) -> dict[str, list[SymbolChange]]:
    out: dict[str, list[SymbolChange]] = defaultdict(list)
    for c in report.of("symbols"):
        if isinstance(c, SymbolChange):
            out[c.path].append(c)
    return dict(out)


def symbol_line(c: SymbolChange) -> str:
    if c.status == "added":
        return f"{c.qualname} ({c.kind}, line {c.new_line})"
    if c.status == "removed":
        return f"{c.qualname} ({c.kind}, was line {c.old_line})"
    what = "signature" if c.status == "signature" else "annotated; body changed"
    return f"{c.qualname} ({what}, line {c.old_line} -> {c.new_line})"


class FactSplit(NamedTuple):
    """A report's fact changes: those some prose cites (to read again) and the others (context)."""

    cited: list[FactChange]
    other: list[FactChange]


def split_facts(report: DiffReport) -> FactSplit:
    """The facts some prose cites, and the others."""
    facts = [c for c in report.of("facts") if isinstance(c, FactChange)]
    return FactSplit([c for c in facts if c.cited_by], [c for c in facts if not c.cited_by])


def short(value: str, limit: int = 70) -> str:
    return value if len(value) <= limit else value[: limit - 3] + "..."
