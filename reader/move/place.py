"""Placement proposals for a pin move: where each note's code is at the new pins, how sure, and why.

A pure function of the two sides' texts (`Files`: path -> text and symbols). For each note: its
code at the old pins (its own anchor there), then, in order,
1. its own anchor at the new pins finding the same code (unchanged, or moved);
2. the region that holds the code now: the note's symbol by name when it is still there, else
   the definition whose body holds most of the note's lines and of the old symbol's (renamed,
   moved, split), in the same file or, when that file is gone or holds nothing like it, in the
   file holding most of the note's lines (a file renamed, moved or split);
3. the note's lines inside that region: its quote where it now is, with the note's lines around
   it as they were (re-centred), else the old lines aligned to the new (`align.LineMap`);
4. the new anchor (path, symbol, lines, quote) written so that it resolves to exactly that place.
Code found nowhere is orphaned with its reason and the nearest candidates, never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from reader.annotations.anchor import resolve_text
from reader.annotations.model import Note
from reader.errors import Location
from reader.model import Span, split_lines
from reader.move.align import normal
from reader.move.proposal import SURE, Candidate, Files, Proposal, Side
from reader.move.search import DISTINCT, Search, Was

__all__ = ["SURE", "Candidate", "Files", "Proposal", "Side", "follow", "follow_file", "propose",
           "propose_all"]

AROUND = 5
"""Lines each side of a note whose change makes it worth re-reading although its own did not."""


def propose(note: Note, old: Files, new: Files) -> Proposal:
    """Where `note`, anchored at the `old` side, goes at the `new` side."""
    before = old if isinstance(old, Side) else Side(old)
    after = new if isinstance(new, Side) else Side(new)
    return _propose(note, before, after)


def _propose(note: Note, old: Side, new: Side) -> Proposal:
    old_text = old.text(note.path)
    if old_text is None:
        return _alone(note, new, f"{note.path} is not served at the old pins")
    before = resolve_text(note, old_text, symbols=old.symbols(note.path))
    if old_text == new.text(note.path):
        # The move leaves the note's file as it was: whatever holds for the note holds as before.
        return Proposal(note.id, note.path, before.span, note.path, before.span, note.symbol,
                        note.lines, note.quote, before.fingerprint, 1.0, "unchanged",
                        "its file is unchanged")
    if before.span is None or before.fingerprint is None:
        return _alone(note, new, f"it did not anchor at the old pins ({before.message})")
    was = Was(note, split_lines(old_text), before.span, before.fingerprint,
               tuple(old.symbols(note.path)))
    new_text = new.text(note.path)
    if new_text is not None:
        after = resolve_text(note, new_text, symbols=new.symbols(note.path))
        if after.span is not None and after.fingerprint == before.fingerprint and after.acceptable:
            return _same(was, new_text, after.span, new)
    return Search(was, old, new).run()


def _alone(note: Note, new: Side, why: str) -> Proposal:
    """No old code to follow: the note's own anchor at the new pins, if it has one, to be re-read."""
    text = new.text(note.path)
    anchor = resolve_text(note, text, symbols=new.symbols(note.path)) if text is not None else None
    if anchor is None or anchor.span is None:
        detail = anchor.message if anchor is not None else f"{note.path} is not at the new pins"
        return Proposal(note.id, note.path, None, note.path, None,
                        reason=f"{why}, and {detail}")
    return Proposal(note.id, note.path, None, note.path, anchor.span, note.symbol, note.lines,
                    note.quote, anchor.fingerprint, 0.5, "anchored",
                    f"{why}: placed by its own anchor at the new pins", changed=True)


def _same(was: Was, new_text: str, span: Span, new: Side) -> Proposal:
    """The note's own anchor found the same code: certain; re-read only when the code around it
    changed."""
    note = was.note
    how = "unchanged" if span == was.span else "moved"
    around = _around(was, split_lines(new_text), span, new)
    reason = "its code is unchanged" + (f" at lines {span.start}-{span.end}" if how == "moved" else "")
    if around:
        reason += f"; the code around it in {around} changed"
    return Proposal(note.id, note.path, was.span, note.path, span, note.symbol, note.lines,
                    note.quote, was.fingerprint, 1.0, how, reason, (), bool(around))


def _around(was: Was, new_lines: list[str], span: Span, new: Side) -> str:
    """Where the code beside the note changed when its own did not (the AROUND lines each side,
    within its definition): the definition's name, or `lines a-b` at module level; '' if none."""
    holder = was.holder
    if holder is not None and holder.span == was.span:
        return ""
    after = [s for s in new.symbols(was.note.path) if holder is not None
             and s.qualname == holder.qualname and s.span.start <= span.start
             and span.end <= s.span.end]
    if holder is not None and not after:
        return holder.qualname
    old_in = holder.span if holder else Span(1, len(was.lines))
    new_in = after[0].span if after else Span(1, len(new_lines))
    before = _beside(was.lines, was.span, old_in)
    now = _beside(new_lines, span, new_in)
    if before == now:
        return ""
    return holder.qualname if holder else f"lines {max(1, span.start - AROUND)}-{span.end + AROUND}"


def _beside(lines: list[str], span: Span, within: Span) -> list[str]:
    """The normalised non-blank lines AROUND each side of `span`, inside `within`."""
    first, last = max(within.start, span.start - AROUND), min(within.end, span.end + AROUND)
    return [k for k in (normal(x) for x in lines[first - 1: span.start - 1] + ["|"]
                        + lines[span.end: last]) if k]


def follow(path: str, qualname: str, old: Files, new: Files) -> Proposal:
    """Where the definition `qualname` of `path` at the old side went (a `reads` symbol, a link)."""
    return propose(Note(f"{path}::{qualname}", path, "", Location(path), qualname), old, new)


def follow_file(path: str, old: Files, new: Files) -> str | None:
    """Where the file `path` went: itself when the new side has it, else the file of the same
    name, else the file holding most of its distinctive lines (at least a third), else None."""
    if new.text(path) is not None:
        return path
    after = new if isinstance(new, Side) else Side(new)
    name = path.rsplit("/", 1)[-1]
    same = [p for p in after.paths() if p.rsplit("/", 1)[-1] == name]
    if len(same) == 1:
        return same[0]
    lines = {k for k in map(normal, split_lines(old.text(path) or "")) if len(k) >= DISTINCT}
    hits = Counter(p for k in lines for p in after.holding(k))
    best = hits.most_common(1)
    return best[0][0] if best and best[0][1] * 3 >= len(lines) else None


def propose_all(notes: Sequence[Note], old: Files, new: Files) -> list[Proposal]:
    """A proposal for each note (what the search derives from either side is shared)."""
    before = old if isinstance(old, Side) else Side(old)
    after = new if isinstance(new, Side) else Side(new)
    return [_propose(n, before, after) for n in notes]
