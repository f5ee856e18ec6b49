"""Finding a note's code at the new pins once its own anchor did not: the region that holds it
now (its definition by name, else the one holding most of its lines: renamed, split, moved to
another file), its lines there, and an anchor that resolves to exactly them."""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from reader.annotations.anchor import fingerprint, resolve_text
from reader.annotations.model import Note, Quote, SymbolLines
from reader.model import Span, Symbol
from reader.move.align import line_map, normal, similarity
from reader.move.proposal import SURE, Candidate, Proposal, Side

GONE = 0.35
"""A region holding less of the note's code than this is no place for it: the code is gone."""
CANDIDATES = 3
"""How many of the nearest places an orphan names."""
SHORTLIST = 6
"""Definitions of a file scored in full for a note, after a quick filter."""
REWRITE = 0.5
"""The least similarity of a quoted line's new version for the quote to be rewritten to it."""
DISTINCT = 12
"""A line this long (normalised) is distinctive enough to find the file holding it."""


@dataclass(frozen=True)
class Was:
    """A note's code at the old pins."""

    note: Note
    lines: list[str]
    span: Span
    fingerprint: str
    symbols: tuple[Symbol, ...]

    @cached_property
    def holder(self) -> Symbol | None:
        """The note's symbol there (the definition holding its lines), else the innermost
        definition holding them; None at module level."""
        holding = [s for s in self.symbols if s.span.start <= self.span.start
                   and self.span.end <= s.span.end]
        named = [s for s in holding if s.qualname == self.note.symbol]
        if named:
            return named[0]
        return min(holding, key=lambda s: len(s.span)) if holding else None

    @cached_property
    def region(self) -> Span:
        return self.holder.span if self.holder else Span(1, max(1, len(self.lines)))

    def text(self, span: Span) -> list[str]:
        return self.lines[span.start - 1: span.end]

    @cached_property
    def code(self) -> list[str]:
        return self.text(self.span)

    @cached_property
    def keys(self) -> frozenset[str]:
        """The note's normalised non-blank lines."""
        return frozenset(k for k in map(normal, self.code) if k)

    @cached_property
    def quote_line(self) -> int | None:
        """The first line of the note's quote at the old pins (inside its lines), if any."""
        quote = self.note.quote
        if quote is None:
            return None
        start = "\n".join(self.code).find(quote.exact)
        if start < 0:
            return None
        return self.span.start + "\n".join(self.code)[:start].count("\n")


@dataclass(frozen=True)
class _Region:
    """A candidate place for the note's code at the new pins: a definition, or a whole file."""

    path: str
    symbol: Symbol | None
    lines: list[str]
    span: Span
    score: float = 0.0
    code: float = 0.0
    """How much of the note's own lines it holds."""
    named: bool = False
    """Whether it is the note's own definition (its name, its file)."""

    def text(self) -> list[str]:
        return self.lines[self.span.start - 1: self.span.end]


class Search:
    """Finding a note's code at the new pins once its own anchor did not."""

    def __init__(self, was: Was, old: Side, new: Side):
        self.was, self.old, self.new = was, old, new
        self.note = was.note

    def run(self) -> Proposal:
        regions = self._regions()
        if not regions or regions[0].score < GONE:
            return self._orphan(regions)
        best = regions[0]
        runner = regions[1].score if len(regions) > 1 else 0.0
        placed = self._place(best)
        if placed is None:
            where = f"{best.symbol.qualname!r}" if best.symbol else best.path
            return self._orphan(regions, f"its lines are gone: none of them is left in {where} "
                                         f"(which holds {best.score:.0%} of its code), nor "
                                         "anything in their place")
        span, quality, quote, how_quote = placed
        first = min(max(span.start, best.span.start), best.span.end)
        span = Span(first, min(max(span.end, first), best.span.end))
        return self._proposal(best, span, quality, quote, how_quote, runner, regions)

    # -- where: the region holding the code ------------------------------------------------
    def _regions(self) -> list[_Region]:
        same = self._in_file(self.note.path)
        if same and same[0].score >= SURE:
            return self._split(same)
        others = [r for path in self._other_files() for r in self._in_file(path)]
        return self._split(sorted([*same, *others], key=lambda r: -r.score))

    def _in_file(self, path: str) -> list[_Region]:
        lines = self.new.lines(path)
        if lines is None:
            return []
        holder = self.was.holder
        if holder is None:
            region = _Region(path, None, lines, Span(1, max(1, len(lines))))
            return [self._score(region, self.was.region)]
        symbols = [s for s in self.new.symbols(path) if s.kind == holder.kind
                   or {s.kind, holder.kind} <= {"function", "method"}]
        named = [s for s in symbols if s.qualname == holder.qualname]
        others = [s for s in symbols if s.qualname != holder.qualname]
        # A quick filter: the share of the note's lines each definition holds, exactly.
        quick = sorted(others, key=lambda s: -self._quick(lines, s.span))[:SHORTLIST]
        scored = [self._score(_Region(path, s, lines, s.span), holder.span)
                  for s in [*named, *quick]]
        return sorted(scored, key=lambda r: -r.score)

    def _quick(self, lines: list[str], span: Span) -> float:
        keys = self.was.keys
        if not keys:
            return 0.0
        found = keys & {normal(x) for x in lines[span.start - 1: span.end]}
        return len(found) / len(keys)

    def _score(self, region: _Region, old_region: Span) -> _Region:
        body = region.text()
        code = similarity(self.was.code, body)
        whole = similarity(self.was.text(old_region), body)
        holder = self.was.holder
        name = 0.0
        if holder is not None and region.symbol is not None:
            if region.symbol.qualname == holder.qualname:
                name = 1.0
            elif region.symbol.name == holder.name:
                name = 0.7
            else:
                name = difflib.SequenceMatcher(None, holder.name, region.symbol.name).ratio() / 2
        elif holder is None and region.symbol is None:
            name = 1.0
        if region.path != self.note.path:
            name *= 0.8
        score = 0.55 * code + 0.3 * whole + 0.15 * name
        if name == 1.0 and region.path == self.note.path:
            score = max(score, 0.5 + 0.5 * max(code, whole))  # its own name: only its code can say no
        return replace(region, score=min(1.0, score), code=code,
                       named=name == 1.0 and region.path == self.note.path)

    def _other_files(self) -> list[str]:
        """Files of the new side that may hold the code: the same file name elsewhere, and those
        holding at least half of the note's distinctive lines."""
        name = self.note.path.rsplit("/", 1)[-1]
        out = [p for p in self.new.paths() if p != self.note.path and p.rsplit("/", 1)[-1] == name]
        distinct = [k for k in self.was.keys if len(k) >= DISTINCT]
        hits = Counter(p for k in distinct for p in self.new.holding(k) if p != self.note.path)
        out += [p for p, n in hits.most_common(3) if p not in out and n * 2 >= len(distinct)]
        return out

    def _split(self, regions: list[_Region]) -> list[_Region]:
        """`regions`, best first, with a definition that now holds much more of the note's lines
        than the one of its name put before it (code split out of a definition that stays); not
        one that held as much of them before the move (a look-alike sibling, as `copy_in` is of
        `copy_out`)."""
        named = [r for r in regions if r.named]
        if not named:
            return regions
        rivals = [r for r in regions if not r.named and r.code >= 0.5
                  and r.code >= max(named[0].code, self._held_before(r)) + SPLIT]
        if not rivals:
            return regions
        best = max(rivals, key=lambda r: r.code)
        ahead = replace(best, score=max(best.score, min(1.0, named[0].score + 0.01)))
        return [ahead, *[r for r in regions if r is not best]]

    def _held_before(self, region: _Region) -> float:
        """How much of the note's lines the region's definition held at the old pins (0 when the
        old side has no definition of its name in its file)."""
        if region.symbol is None:
            return 0.0
        lines = self.old.lines(region.path) if region.path != self.note.path else self.was.lines
        symbols = self.old.symbols(region.path) if region.path != self.note.path else self.was.symbols
        there = [s for s in symbols if s.qualname == region.symbol.qualname]
        if lines is None or not there:
            return 0.0
        return similarity(self.was.code, lines[there[0].span.start - 1: there[0].span.end])

    # -- which lines: the note's lines inside the region -----------------------------------
    def _place(self, region: _Region) -> tuple[Span, float, Quote | None, str] | None:
        note, was = self.note, self.was
        old_region = was.region
        start = region.span.start
        if note.lines is None and note.quote is None:
            return region.span, region.code, None, ""
        lmap = line_map(was.text(old_region), region.text())
        a, b = was.span.start - old_region.start, was.span.end - old_region.start
        mapped = lmap.span(a, b)
        quote, quote_at, how = self._quote(region, lmap)
        quote_end = quote_at + quote.exact.count("\n") if quote and quote_at else None
        if note.lines is None and quote_at is not None and quote_end is not None:
            return Span(quote_at, quote_end), mapped[2] if mapped else 0.5, quote, how
        head, tail = lmap.get(a), lmap.get(b)
        if mapped is not None and head is not None:
            # The first line the note held, found again: the note starts there (as an author
            # re-anchors it); it ends where its last line went, its quote inside.
            first = start + head[0]
            last = start + (tail[0] if tail is not None and tail[0] >= head[0] else mapped[1])
            if quote_at is not None and quote_end is not None and not first <= quote_at <= last:
                if quote_at < first:
                    return self._recentred(region, quote, quote_at, quote_end, mapped, how)
                last = quote_end
            return Span(first, min(last, region.span.end)), mapped[2], quote, how
        if quote_at is not None and quote_end is not None:
            return self._recentred(region, quote, quote_at, quote_end, mapped, how)
        if mapped is None:
            return None
        first, last, quality = mapped
        return Span(start + first, start + last), quality, quote, how

    def _recentred(self, region: _Region, quote: Quote | None, quote_at: int, quote_end: int,
                   mapped: tuple[int, int, float] | None,
                   how: str) -> tuple[Span, float, Quote | None, str]:
        """The note's lines around its quote's new place, as they were around the old one."""
        was = self.was
        offset = (was.quote_line or was.span.start) - was.span.start
        length = len(was.span) if mapped is None else max(mapped[1] - mapped[0] + 1, 1)
        first = max(region.span.start, quote_at - offset)
        last = min(region.span.end, max(first + length - 1, quote_end))
        return Span(first, last), mapped[2] if mapped else 0.5, quote, how

    def _quote(self, region: _Region, lmap: Any) -> tuple[Quote | None, int | None, str]:
        """The note's quote in the region: (the quote to write, its first line, how): kept where
        it occurs once (or nearest its old place), rewritten to its line's new version when
        its text changed; (None, None, '') when the note has none or it cannot be followed."""
        quote, was = self.note.quote, self.was
        if quote is None or was.quote_line is None:
            return None, None, ""
        text = "\n".join(region.text())
        hits, at = [], text.find(quote.exact)
        while at >= 0:
            hits.append(region.span.start + text[:at].count("\n"))
            at = text.find(quote.exact, at + 1)
        old_rel = was.quote_line - was.region.start
        window = lmap.between(old_rel)
        if hits:
            if len(hits) == 1 or not window:
                return quote, hits[0], "kept"
            near = region.span.start + window.start
            return quote, min(hits, key=lambda h: abs(h - near)), "kept"
        # Its text changed: the line most like the quoted one where that line went.
        old_line = normal(was.lines[was.quote_line - 1])
        scored = [(difflib.SequenceMatcher(None, old_line, normal(region.text()[j])).ratio(), j)
                  for j in window if j < len(region.text()) and region.text()[j].strip()]
        if not scored or max(scored)[0] < REWRITE:
            return None, None, ""
        at = region.span.start + max(scored)[1]
        n = quote.exact.count("\n")
        exact = "\n".join(region.lines[at - 1: at + n]).strip()
        return (Quote(exact), at, "rewritten") if exact else (None, None, "")

    # -- the proposal ----------------------------------------------------------------------
    def _proposal(self, region: _Region, span: Span, quality: float, quote: Quote | None,
                  how_quote: str, runner: float, regions: list[_Region]) -> Proposal:
        note, was = self.note, self.was
        fp = fingerprint(region.lines, span)
        symbol = region.symbol.qualname if region.symbol is not None and (
            note.symbol is not None or quote is None) else None
        lines = None
        if note.lines is not None and region.symbol is not None:
            base = region.symbol.span.start
            lines = SymbolLines(span.start - base + 1, span.end - base + 1)
        anchor = _anchor(note, region, span, symbol, lines, quote)
        if anchor is None:
            return self._orphan(regions, f"no anchor resolves to lines {span.start}-{span.end}")
        symbol, lines, quote = anchor
        how, why = self._how(region, how_quote, span, quote)
        margin = region.score - runner
        confidence = min(1.0, 0.35 + 0.4 * region.score + 0.25 * quality)
        if margin < 0.15:
            confidence *= 0.8
        changed = fp != was.fingerprint
        if changed:
            why += f"; its code changed (fingerprint {was.fingerprint} -> {fp})"
        if margin < 0.15 and len(regions) > 1:
            why += f"; next best {_candidate(regions[1])}"
        if not changed and quality >= 0.99 and region.score >= SURE:
            confidence = max(confidence, SURE)
        return Proposal(note.id, note.path, was.span, region.path, span, symbol, lines, quote, fp,
                        round(confidence, 2), how, why, (), changed)

    def _how(self, region: _Region, how_quote: str, span: Span,
             quote: Quote | None) -> tuple[str, str]:
        note, holder = self.note, self.was.holder
        if region.path != note.path:
            what = f"moved from {note.path} to {region.path}"
            if holder is not None and region.symbol is not None and \
                    region.symbol.qualname != holder.qualname:
                what += f" as {region.symbol.qualname!r}"
            return "file-moved", what + f" ({region.score:.0%} of its code there)"
        if holder is not None and region.symbol is not None and \
                region.symbol.qualname != holder.qualname:
            old_there = any(s.qualname == holder.qualname for s in self.new.symbols(region.path))
            kind = "split" if old_there else "renamed"
            verb = "split out of" if old_there else "renamed from"
            return kind, (f"{region.symbol.qualname!r} {verb} {holder.qualname!r} "
                          f"({region.code:.0%} of the note's lines there)")
        was = self.was.span
        moved = f"lines {was.start}-{was.end} -> {span.start}-{span.end}"
        if how_quote == "rewritten" and quote is not None:
            return "realigned", (f"its quoted line changed: quote rewritten to "
                                 f"{_short(quote.exact)} ({moved})")
        if how_quote == "kept" and self.note.lines is None:
            return "moved", f"its quote now occurs elsewhere too: found where it was ({moved})"
        if how_quote == "kept":
            return "recentred", f"its quote left its lines: re-centred on it ({moved})"
        return "realigned", f"its lines followed the code they held ({moved}, {region.code:.0%} found)"

    def _orphan(self, regions: list[_Region], why: str = "") -> Proposal:
        note, was = self.note, self.was
        best = regions[0].score if regions else 0.0
        reason = why or (f"its code is gone: no definition at the new pins holds more than "
                         f"{best:.0%} of it")
        if note.path not in self.new.paths():
            reason += f" ({note.path} is not at the new pins)"
        return Proposal(note.id, note.path, was.span, note.path, None, reason=reason,
                        candidates=tuple(_candidate(r) for r in regions[:CANDIDATES]))


SPLIT = 0.25
"""How much more of a note's lines another definition must hold than the one of its own name
for the note to follow its lines there (code split out of a definition that stays)."""


def _short(text: str, limit: int = 50) -> str:
    one = text.replace("\n", "\\n")
    return repr(one if len(one) <= limit else one[: limit - 3] + "...")


def _candidate(region: _Region) -> Candidate:
    return Candidate(region.path, region.symbol.qualname if region.symbol else None, region.span,
                     round(region.score, 2))


def _anchor(note: Note, region: _Region, span: Span, symbol: str | None,
            lines: SymbolLines | None, quote: Quote | None,
            ) -> tuple[str | None, SymbolLines | None, Quote | None] | None:
    """Anchor fields that resolve to exactly `span` in the region's file: as proposed, else with
    `lines` added (when there is a symbol), else without the quote."""
    text = "\n".join(region.lines) + "\n"
    tries: list[tuple[str | None, SymbolLines | None, Quote | None]] = [(symbol, lines, quote)]
    if region.symbol is not None:
        own = region.symbol
        narrowed = None if span == own.span else SymbolLines(span.start - own.span.start + 1,
                                                              span.end - own.span.start + 1)
        tries += [(own.qualname, None, quote), (own.qualname, narrowed, quote),
                  (own.qualname, narrowed, None)]
    for sym, rel, q in tries:
        if sym is None and q is None:
            continue
        trial = replace(note, path=region.path, symbol=sym, lines=rel, quote=q, fingerprint=None,
                        line=None)
        anchor = resolve_text(trial, text)
        if anchor.span == span:
            return sym, rel, q
    return None
