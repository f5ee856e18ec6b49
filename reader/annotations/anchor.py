"""Anchoring: resolve a note to lines of a file's text, with a status (a pure function of both).

Symbol first: the note's `symbol` gives a span (narrowed by `lines`); a `quote` then confirms it
or, inside the symbol (or the whole file when there is no symbol), locates the exact lines. When
the symbol is gone, the quote alone may re-locate the code; the note then says so and never
silently follows. Matching is exact; nothing similar-looking is ever taken instead.

The fingerprint covers the anchored lines with trailing whitespace removed, common indentation
removed and blank lines at both ends dropped: re-indenting a block as a whole (moving a function
into a class) keeps the fingerprint, any other edit of the anchored lines changes it.
"""

from __future__ import annotations

import difflib
import hashlib
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from reader.annotations.model import Anchor, Note, Quote, Status
from reader.extract.symbols import symbols_of
from reader.model import Span, Symbol, split_lines

FINGERPRINT_LEN = 12


def fingerprint(lines: list[str], span: Span) -> str:
    """A short hash of lines `span` of `lines` (see the module docstring for what it ignores)."""
    block = "\n".join(line.rstrip() for line in lines[span.start - 1: span.end])
    normal = textwrap.dedent(block).strip("\n")
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:FINGERPRINT_LEN]


@lru_cache(maxsize=32)
def symbols_in(text: str) -> tuple[Symbol, ...]:
    """The symbols of a file's text (memoised: several notes read the same file)."""
    try:
        return tuple(symbols_of(text))
    except SyntaxError:
        return ()


@dataclass(frozen=True)
class _Place:
    """Where the note's anchor fields point, or why they point nowhere."""

    span: Span | None = None
    problem: str = ""
    """'' when found; 'ambiguous', 'gone' (code gone) or 'changed' (the symbol is there, the rest
    of the anchor does not fit it any more)."""
    message: str = ""
    hint: str = ""
    candidates: tuple[Span, ...] = ()
    context_ok: bool = True
    """False when a quote's prefix/suffix do not match around the only occurrence of its text."""
    symbol_gone: bool = False
    """Found by the quote alone although the note's symbol no longer exists."""


def resolve_text(note: Note, text: str, where: str = "the file",
                 symbols: Sequence[Symbol] | None = None) -> Anchor:
    """Resolve `note` against `text` (the file's content); `where` names the file in messages.

    `symbols` are `symbols_in(text)` when the caller has them already (from a cache).
    """
    text = _unix(text)
    lines = list(_lines_of(text))
    syms = tuple(symbols) if symbols is not None else symbols_in(text)
    return _judge(note, lines, _locate(note, text, lines, where, syms))


def _locate(note: Note, text: str, lines: list[str], where: str,
            symbols: tuple[Symbol, ...]) -> _Place:
    whole = Span(1, max(len(lines), 1))
    if not note.symbol:
        assert note.quote is not None  # the schema requires a symbol or a quote
        return _find_quote(note.quote, text, lines, whole, where)
    syms = [s for s in symbols if s.qualname == note.symbol]
    if not syms:
        return _without_symbol(note, text, lines, where, symbols)
    places = [_within_symbol(note, s, text, lines) for s in syms]
    if len(places) == 1:
        return places[0]
    found = [p for p in places if p.span is not None]
    if len(found) == 1:
        return found[0]
    spans = tuple(p.span or s.span for p, s in zip(places, syms, strict=True))
    defined = f"symbol {note.symbol!r} is defined {len(syms)} times in {where} (lines {_starts(spans)})"
    if note.quote is not None and not found:
        # The symbol is still there and the quote in none of its definitions: its code changed.
        return _Place(problem="changed", candidates=spans,
                      message=f"quote {_short(note.quote.exact)} is in none of the definitions of "
                              f"{note.symbol!r} in {where} (lines {_starts(spans)})",
                      hint="re-read the code, then fix the quote (or `lines`)")
    if note.quote is not None:
        return _Place(problem="ambiguous", candidates=spans, message=f"{defined}, and the quote is in "
                      f"{len(found)} of them", hint="lengthen the quote, or add `prefix`/`suffix`")
    return _Place(problem="ambiguous", candidates=spans, message=defined,
                  hint="add a `quote` that occurs in only one of them")


def _within_symbol(note: Note, sym: Symbol, text: str, lines: list[str]) -> _Place:
    name = f"{sym.qualname!r}"
    if note.lines is None:
        if note.quote is None:
            return _Place(span=sym.span)
        place = _find_quote(note.quote, text, lines, sym.span, name)
        # The symbol is still there, so a missing quote means its code changed.
        return replace(place, problem="changed") if place.problem == "gone" else place
    a, b = note.lines
    if sym.span.start + b - 1 > sym.span.end:
        return _Place(problem="changed",
                      message=f"lines [{a}, {b}] run past the end of {name} ({len(sym.span)} lines)",
                      hint=f"keep `lines` within [1, {len(sym.span)}]")
    region = Span(sym.span.start + a - 1, sym.span.start + b - 1)
    if note.quote is None or _matches(note.quote, text, lines, region):
        return _Place(span=region)
    elsewhere = _matches(note.quote, text, lines, sym.span)
    now = ""
    if elsewhere:
        rel = [f"[{m.span.start - sym.span.start + 1}, {m.span.end - sym.span.start + 1}]"
               for m in elsewhere]
        now = f" (it is at relative lines {', '.join(rel)})"
    return _Place(problem="changed",
                  message=f"quote {_short(note.quote.exact)} is not within lines [{a}, {b}] of "
                          f"{name}{now}",
                  hint="fix `lines` or the quote")


def _without_symbol(note: Note, text: str, lines: list[str], where: str,
                    symbols: tuple[Symbol, ...]) -> _Place:
    names = [s.qualname for s in symbols]
    close = difflib.get_close_matches(note.symbol or "", names, n=1)
    dym = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
    missing = f"symbol {note.symbol!r} not found in {where}{dym}"
    if note.quote is not None:
        whole = Span(1, max(len(lines), 1))
        place = _find_quote(note.quote, text, lines, whole, where)
        if place.span is not None:
            inside = _innermost(symbols, place.span)
            holder = f" (in {inside.qualname!r})" if inside else ""
            return replace(place, symbol_gone=True,
                           message=f"{missing}; its quote is now at line {place.span.start}{holder}",
                           hint=f"set `symbol: {inside.qualname}`" if inside else "drop `symbol`")
        if place.problem == "ambiguous":
            return replace(place, message=f"{missing}; {place.message}")
        missing += f", and quote {_short(note.quote.exact)} is not in the file either"
    return _Place(problem="gone", message=missing, hint="fix the note's anchor")


@dataclass(frozen=True)
class _Match:
    span: Span
    score: int
    context_ok: bool


@lru_cache(maxsize=8)
def _unix(text: str) -> str:
    """`text` with CRLF line ends as LF, once per text while its notes are resolved one after
    another (the whole file searched for each note cost a warm `reader check` a fifth)."""
    return text.replace("\r\n", "\n")


@lru_cache(maxsize=8)
def _lines_of(text: str) -> tuple[str, ...]:
    """`split_lines(text)`, once per text while its notes are resolved one after another."""
    return tuple(split_lines(text))


@lru_cache(maxsize=8)
def _offsets(text: str) -> tuple[int, ...]:
    """Character offset of the start of each line of `text` (and one past the last line)."""
    out = [0]
    for line in _lines_of(text):
        out.append(out[-1] + len(line) + 1)
    return tuple(out)


def _matches(quote: Quote, text: str, lines: list[str], scope: Span) -> list[_Match]:
    """Every occurrence of the quote's exact text that starts and ends inside `scope`."""
    offsets = _offsets(text)
    lo, hi = offsets[scope.start - 1], min(offsets[scope.end], len(text))
    out = []
    i = text.find(quote.exact, lo, hi)
    while i >= 0:
        j = i + len(quote.exact)
        pre = bool(quote.prefix) and text[:i].endswith(quote.prefix)
        suf = bool(quote.suffix) and text.startswith(quote.suffix, j)
        ok = (pre or not quote.prefix) and (suf or not quote.suffix)
        span = Span(_line_at(offsets, i), _line_at(offsets, j - 1))
        out.append(_Match(span, int(pre) + int(suf), ok))
        i = text.find(quote.exact, i + 1, hi)
    return out


def _line_at(offsets: tuple[int, ...], index: int) -> int:
    lo, hi = 0, len(offsets) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if offsets[mid] <= index:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


def _find_quote(quote: Quote, text: str, lines: list[str], scope: Span, name: str) -> _Place:
    found = _matches(quote, text, lines, scope)
    if not found:
        return _Place(problem="gone", message=f"quote {_short(quote.exact)} not found in {name}",
                      hint="copy the quote exactly from the pinned code")
    best = max(m.score for m in found)
    top = [m for m in found if m.score == best]
    if len(top) > 1:
        spans = tuple(m.span for m in top)
        return _Place(problem="ambiguous", candidates=spans,
                      message=f"quote {_short(quote.exact)} matches {len(top)} places in {name} "
                              f"(lines {_starts(spans)})",
                      hint="quote more of the code, or add a `prefix`/`suffix` or a `symbol`")
    return _Place(span=top[0].span, context_ok=top[0].context_ok)


def _innermost(symbols: tuple[Symbol, ...], span: Span) -> Symbol | None:
    holders = [s for s in symbols if s.span.start <= span.start and span.end <= s.span.end]
    return min(holders, key=lambda s: len(s.span)) if holders else None


def _judge(note: Note, lines: list[str], place: _Place) -> Anchor:
    if place.problem == "ambiguous":
        return Anchor(Status.AMBIGUOUS, None, None, place.message, place.hint, place.candidates,
                      acceptable=False)
    if place.span is None:
        if note.fingerprint is None:
            return Anchor(Status.INVALID, None, None, place.message, place.hint, acceptable=False)
        status = Status.ORPHANED if place.problem == "gone" else Status.STALE
        return Anchor(status, None, None, place.message,
                      "re-read the code, then re-anchor the note (or delete it) and run "
                      f"'reader accept {note.id}'", acceptable=False)
    span, fp = place.span, fingerprint(lines, place.span)
    where = f"line {span.start}" if len(span) == 1 else f"lines {span.start}-{span.end}"
    if place.symbol_gone:
        if note.fingerprint is None:
            return Anchor(Status.INVALID, span, fp, place.message, place.hint, acceptable=False)
        status = Status.MOVED if fp == note.fingerprint else Status.STALE
        return Anchor(status, span, fp, place.message,
                      f"{place.hint}, then run 'reader accept {note.id}'", acceptable=False)
    if note.fingerprint is None:
        if not place.context_ok:
            return Anchor(Status.INVALID, span, fp,
                          f"the quote's prefix/suffix do not match the text around it at {where}",
                          "fix or drop `prefix`/`suffix`", acceptable=False)
        return Anchor(Status.UNFINGERPRINTED, span, fp, f"has no fingerprint yet ({where})",
                      f"read it against {where}, then run 'reader accept {note.id}'")
    if fp != note.fingerprint:
        return Anchor(Status.STALE, span, fp,
                      f"the code at {where} changed since the note was accepted "
                      f"(fingerprint {note.fingerprint} -> {fp})",
                      f"re-read the note against the code, fix it, then run 'reader accept {note.id}'")
    if note.line != span.start:
        was = f"line {note.line}" if note.line else "an unrecorded line"
        return Anchor(Status.MOVED, span, fp, f"the unchanged code moved from {was} to {where}",
                      "run 'reader accept --moved'")
    return Anchor(Status.OK, span, fp)


def _short(text: str, limit: int = 60) -> str:
    one = text.replace("\n", "\\n")
    return repr(one if len(one) <= limit else one[: limit - 3] + "...")


def _starts(spans: tuple[Span, ...]) -> str:
    return ", ".join(str(s.start) for s in spans)
