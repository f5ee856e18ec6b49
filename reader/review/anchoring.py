"""What each review action writes into a note (pure functions of the note and the new code's
text): Accept records where it anchors now, Re-anchor points it at the lines a person picked."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reader.annotations import resolve_text
from reader.annotations.accept import DELETE
from reader.annotations.anchor import symbols_in
from reader.annotations.model import Note, Quote, Status, SymbolLines
from reader.model import split_lines


class Refusal(Exception):
    """Why an action cannot be done (a sentence the page shows)."""


def accepted(note: Note, text: str) -> tuple[str, int]:
    """The fingerprint and line `reader accept` records for `note` on `text`."""
    a = resolve_text(note, text)
    if a.span is None or a.fingerprint is None or not a.acceptable:
        raise Refusal(f"note {note.id!r} is {a.status.value}: {a.message}; re-anchor it "
                      "(pick its lines on the new code)")
    return a.fingerprint, a.span.start


def reanchored(note: Note, text: str, first: int, last: int) -> tuple[dict[str, Any], str, int]:
    """The anchor fields that place `note` on lines `first`-`last` of `text` (symbol, lines, quote:
    the innermost symbol holding them, the lines relative to it; at module level, the lines'
    text as the quote), with the fingerprint and line to record. The note keeps its quote
    when the quote lies inside the picked lines."""
    lines = split_lines(text.replace("\r\n", "\n"))
    if not 1 <= first <= last <= len(lines):
        raise Refusal(f"lines {first}-{last} are outside the file (1-{len(lines)})")
    holders = [s for s in symbols_in(text) if s.span.start <= first and last <= s.span.end]
    sym = min(holders, key=lambda s: len(s.span)) if holders else None
    fields: dict[str, Any] = {}
    if sym is not None:
        fields["symbol"] = sym.qualname
        whole = (first, last) == (sym.span.start, sym.span.end)
        fields["lines"] = DELETE if whole else [first - sym.span.start + 1, last - sym.span.start + 1]
        if note.quote is not None and not _quote_inside(note, text, first, last):
            fields["quote"] = DELETE
    else:
        exact = "\n".join(lines[first - 1:last]).strip()
        if not exact:
            raise Refusal("the picked lines are blank; pick the code the note is about")
        fields.update(symbol=DELETE, lines=DELETE, quote=exact)
    current = {"symbol": note.symbol, "lines": list(note.lines) if note.lines else None,
               "quote": note.quote.exact if note.quote else None}
    fields = {k: v for k, v in fields.items() if (None if v is DELETE else v) != current[k]}
    moved = _with(note, fields)
    a = resolve_text(moved, text)
    if a.status in (Status.AMBIGUOUS, Status.INVALID, Status.ORPHANED) or a.span is None \
            or a.fingerprint is None or not a.acceptable:
        raise Refusal(f"lines {first}-{last} do not anchor the note on their own: {a.message}; "
                      "pick more lines")
    if (a.span.start, a.span.end) != (first, last):
        raise Refusal(f"lines {first}-{last} anchor the note at {a.span.start}-{a.span.end}; "
                      "pick lines that begin and end with code")
    return fields, a.fingerprint, a.span.start


def _quote_inside(note: Note, text: str, first: int, last: int) -> bool:
    assert note.quote is not None
    probe = replace(note, symbol=None, lines=None)
    a = resolve_text(probe, text)
    return a.span is not None and first <= a.span.start and a.span.end <= last


def _with(note: Note, fields: dict[str, Any]) -> Note:
    """`note` with the anchor `fields` a YAML edit would give it."""
    def get(key: str, now: Any) -> Any:
        value = fields.get(key, now)
        return None if value is DELETE else value

    lines = get("lines", note.lines)
    quote = get("quote", note.quote)
    if isinstance(quote, str):
        quote = Quote(quote)
    elif isinstance(quote, dict):
        quote = Quote(**quote)
    return replace(note, symbol=get("symbol", note.symbol), quote=quote,
                   lines=SymbolLines(*lines) if lines else None)

