"""What a pin move does to each note: the annotation stage's pure anchoring run on the old and new text."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from reader.annotations import Anchor, Article, Note, Status, resolve_text
from reader.annotations.anchor import symbols_in
from reader.annotations.resolve import PinnedSymbols
from reader.corpus import Corpus
from reader.errors import Location
from reader.extract.parse import ParseError, located
from reader.model import Span, Symbol
from reader.move.changes import NoteChange
from reader.move.code import unified
from reader.move.place import Proposal, propose_all


class CorpusFiles:
    """A corpus as `place.Files`: its verified pinned files' texts and symbols (a file no parser
    reads has none)."""

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        self._symbols = PinnedSymbols(corpus)

    def paths(self) -> list[str]:
        return [p.path for p in self.corpus.all_files()]

    def text(self, path: str) -> str | None:
        served = _text(self.corpus, path)
        return served[1] if served else None

    def symbols(self, path: str) -> tuple[Symbol, ...]:
        pin = self.corpus.pin_of(path)
        if pin is None or not self.corpus.has(pin, path):
            return ()
        try:
            return self._symbols.of(pin, path)
        except ParseError:
            return ()


def propose_notes(notes: Iterable[Note], old: Corpus, new: Corpus) -> list[Proposal]:
    """A placement proposal for each note, from the `old` corpus to the `new` one."""
    return propose_all(list(notes), CorpusFiles(old), CorpusFiles(new))


def _text(corpus: Corpus, path: str) -> tuple[str, str] | None:
    """(pin, text) of `path` in `corpus`, or None when no pin there serves it."""
    pin = corpus.pin_of(path)
    if pin is None or not corpus.has(pin, path):
        return None
    return pin, corpus.read_text(pin, path)


def _absent(path: str, corpus: Corpus) -> str:
    """Why `corpus` has no text for `path`."""
    pin = corpus.pin_of(path)
    if pin is None:
        return "the file is outside the new pins"
    lock = corpus.project.locks[pin]
    if path in lock.files:
        return "the file is locked but no source served it"
    if lock.source.startswith("archive "):
        return (f"the new lock comes from the {lock.source.removeprefix('archive ')} archive, "
                "which lacks the file; run 'reader lock' where git is reachable")
    return "the file is gone from the new pins"


def _lines(text: str, span: Span) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")[span.start - 1 : span.end]


def _resolve(note: Note, served: tuple[str, str], side: str) -> Anchor:
    """`resolve_text` on one side's (pin, text); a file no parser reads is located there."""
    try:
        return resolve_text(note, served[1], f"{note.path}@{side}")
    except ParseError as e:
        raise ParseError(f"{e.message} (on the {side} side)", Location(located(served[0], note.path),
                                                                    e.line), e.col, e.hint) from None


def diff_note(note: Note, old: Corpus, new: Corpus) -> NoteChange:
    """The note's fate from `old` to `new`: unchanged, moved, changed, orphaned or ambiguous."""
    a, b = _text(old, note.path), _text(new, note.path)
    base: dict[str, Any] = dict(note=note.id, where=note.where, pin=(b or a or ("", ""))[0], path=note.path)
    if b is None:
        return NoteChange(status="orphaned", detail=_absent(note.path, new), **base)
    new_anchor = _resolve(note, b, "new")
    if a is None:
        return _judge_alone(note, new_anchor, base)
    if a[1] == b[1]:
        return NoteChange(status="unchanged", old=new_anchor.span, new=new_anchor.span, **base)
    old_anchor = _resolve(note, a, "old")
    if new_anchor.status is Status.AMBIGUOUS:
        return NoteChange(status="ambiguous", old=old_anchor.span, detail=new_anchor.message, **base)
    if new_anchor.span is None:
        status = "changed" if new_anchor.status is Status.STALE else "orphaned"
        return NoteChange(status=status, old=old_anchor.span, detail=new_anchor.message, **base)
    if old_anchor.span is None:
        return _judge_alone(note, new_anchor, base, f"it did not anchor before: {old_anchor.message}")
    return _compare(note, old_anchor, new_anchor, a[1], b[1], base)


@lru_cache(maxsize=32)
def _symbol_code(text: str) -> dict[str, str]:
    """Qualified name -> its code, dedented (the first definition of a name)."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: dict[str, str] = {}
    for sym in symbols_in(text):
        out.setdefault(sym.qualname, textwrap.dedent("\n".join(lines[sym.span.start - 1 : sym.span.end])))
    return out


def changed_context(note: Note, old_text: str, new_text: str) -> str:
    """The innermost symbol around `note` whose code changed, when its own lines did not: the
    note's words may rest on code beside them (empty when there is none or nothing changed)."""
    parts = (note.symbol or "").split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        before, after = _symbol_code(old_text).get(name), _symbol_code(new_text).get(name)
        if before is not None and after is not None and before != after:
            return name
    return ""


AROUND = 5
"""Lines each side of a module-level quote that count as the code around it."""


def quote_context(old_span: Span, new_span: Span, old_text: str, new_text: str) -> str:
    """For a note anchored by its quote alone: the innermost symbol around the quote whose code
    changed, or, at module level, `lines a-b` when the lines around the quote changed."""
    around = sorted((s for s in symbols_in(old_text)
                     if s.span.start <= old_span.start and old_span.end <= s.span.end),
                    key=lambda s: s.span.end - s.span.start)
    for sym in around:
        if _symbol_code(old_text).get(sym.qualname) != _symbol_code(new_text).get(sym.qualname):
            return sym.qualname
    if around:
        return ""
    a = max(1, old_span.start - AROUND), old_span.end + AROUND
    b = max(1, new_span.start - AROUND), new_span.end + AROUND
    before = _lines(old_text, Span(a[0], a[1]))
    after = _lines(new_text, Span(b[0], b[1]))
    return "" if before == after else f"lines {b[0]}-{b[1]}"


def _compare(note: Note, a: Anchor, b: Anchor, old_text: str, new_text: str,
             base: dict[str, Any]) -> NoteChange:
    assert a.span is not None and b.span is not None
    detail = b.message if not b.acceptable else ""
    if a.fingerprint == b.fingerprint and b.acceptable:
        status = "unchanged" if a.span == b.span else "moved"
        context = (changed_context(note, old_text, new_text) if note.symbol
                   else quote_context(a.span, b.span, old_text, new_text))
        return NoteChange(status=status, old=a.span, new=b.span, context=context, **base)
    diff = unified(_lines(old_text, a.span), _lines(new_text, b.span), a.span.start, b.span.start,
                   base["path"])
    return NoteChange(status="changed", old=a.span, new=b.span, diff=diff, detail=detail, **base)


def _judge_alone(note: Note, b: Anchor, base: dict[str, Any], why: str = "") -> NoteChange:
    """No old code to compare with: judge the new anchor against what the note recorded."""
    if b.status is Status.AMBIGUOUS:
        return NoteChange(status="ambiguous", detail=b.message, **base)
    if b.span is None:
        return NoteChange(status="orphaned", detail=b.message, **base)
    if b.status in (Status.OK, Status.MOVED):
        return NoteChange(status="unchanged" if b.status is Status.OK else "moved", new=b.span, **base)
    return NoteChange(status="changed", new=b.span, detail=why or b.message, **base)


def diff_notes(articles: list[Article], old: Corpus, new: Corpus) -> list[NoteChange]:
    """Each note's fate, with where it goes at the new pins."""
    notes = [n for a in articles for n in a.notes]
    proposals = propose_notes(notes, old, new)
    return [replace(diff_note(n, old, new), proposal=p) for n, p in zip(notes, proposals, strict=True)]


def annotated_symbols(articles: list[Article]) -> dict[str, frozenset[str]]:
    """Path -> the symbols that notes anchor to or that pages show (`reads: symbols:`)."""
    out: dict[str, set[str]] = {}
    for article in articles:
        for note in article.notes:
            if note.symbol:
                out.setdefault(note.path, set()).add(note.symbol)
        for read in article.reads:
            out.setdefault(read.path, set()).update(read.symbols)
    return {path: frozenset(names) for path, names in out.items()}
