"""The annotation model: articles, their notes and anchors, and a note resolved at a pin."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from reader.errors import Location
from reader.model import Span


class SymbolLines(NamedTuple):
    """A note's lines, 1-based and inclusive, counted from its symbol's first line (decorators
    included)."""

    first: int
    last: int


class KeyLine(NamedTuple):
    """A top-level key of an article's YAML and its line there."""

    key: str
    line: int


class ProseText(NamedTuple):
    """A Markdown text of an article and where it sits."""

    text: str
    where: Location


@dataclass(frozen=True)
class Quote:
    """Exact code text with optional context, as in the W3C TextQuoteSelector."""

    exact: str
    prefix: str = ""
    """Text that must immediately precede `exact` (disambiguates repeated quotes)."""
    suffix: str = ""
    """Text that must immediately follow `exact`."""


@dataclass(frozen=True)
class ReadSpec:
    """One pinned file a page shows, optionally restricted to some symbols' spans."""

    path: str
    symbols: tuple[str, ...]
    where: Location
    """The `reads` item in the YAML file."""


@dataclass(frozen=True)
class Claim:
    """A runnable example in doctest's `>>>` form whose output the text asserts at the pins
    (`reader check --run` runs it; the page shows it, ready to copy)."""

    text: str
    where: Location
    """The YAML line of the example's first line: an example's own line is `where.line + its
    line in the text`."""


@dataclass(frozen=True)
class Section:
    """A titled block of Markdown prose between a page's intro and its source."""

    title: str
    body: str
    where: Location
    claim: Claim | None = None


@dataclass(frozen=True)
class Was:
    """Where a note's code was before a pin move: enough to show the old text from the cache."""

    path: str
    lines: SymbolLines
    """Absolute lines of the old file, first and last."""
    blob: str
    """The old file's git blob sha (the cache is content-addressed by it)."""
    commit: str
    """The old pin's commit."""


@dataclass(frozen=True)
class ClaimShift:
    """A claim whose outcome differs between the old and the new pins' releases."""

    source: str
    """The first example whose outcome differs (its `>>>` source)."""
    old: str
    new: str


@dataclass(frozen=True)
class Review:
    """The re-read mark (`review:` in a note's YAML): a pin move placed the note, and a person must
    re-read it there because its code or claim changed or the placement is not certain.
    `reader check` reports it; `reader accept NOTE_ID` removes it."""

    reason: str
    """Why, in one line a person reads."""
    confidence: float
    """How sure the move is of the new place, 0..1 (`reader check` lists the surest first)."""
    was: Was
    claim: ClaimShift | None = None


@dataclass(frozen=True)
class Note:
    """A Markdown note anchored to pinned code by a symbol and/or a quote."""

    id: str
    path: str
    """The pinned file (defaults to the article's first `reads` path)."""
    body: str
    where: Location
    """The note's first line in its YAML file: where every problem with it is reported."""
    symbol: str | None = None
    lines: SymbolLines | None = None
    quote: Quote | None = None
    fingerprint: str | None = None
    """Hash of the anchored code when a person last accepted the note (`reader accept`)."""
    line: int | None = None
    """The anchored code's absolute first line when the note was last accepted."""
    index: int = 0
    """Position in the article's `notes` list."""
    claim: Claim | None = None
    review: Review | None = None
    """The re-read mark a pin move left (None when a person has read the note at these pins)."""


@dataclass(frozen=True)
class Article:
    """One annotation file: a page's metadata, prose, the files it reads and its notes."""

    title: str
    slug: str
    phase: int
    kind: str
    order: int
    where: Location
    """The YAML file itself (line 1)."""
    summary: str = ""
    reads: tuple[ReadSpec, ...] = ()
    kernels: tuple[str, ...] = ()
    intro: str = ""
    sections: tuple[Section, ...] = ()
    outro: str = ""
    notes: tuple[Note, ...] = ()
    claim_setup: Claim | None = None
    """Doctest lines every claim of the page runs first (its imports), shown with each claim."""
    key_lines: tuple[KeyLine, ...] = ()
    """To locate problems in the prose."""

    def line_of(self, key: str) -> int:
        return dict(self.key_lines).get(key, 1)

    def prose(self) -> list[ProseText]:
        """Every Markdown text of the page with where it sits, notes included."""
        out = [ProseText(text, Location(self.where.path, self.line_of(key)))
               for key, text in (("summary", self.summary), ("intro", self.intro),
                                 ("outro", self.outro)) if text]
        out += [ProseText(s.body, s.where) for s in self.sections]
        out += [ProseText(n.body, n.where) for n in self.notes]
        return out


class Status(StrEnum):
    """Where a note stands against the pinned code."""

    OK = "ok"
    """The anchored code is unchanged and at the recorded line."""
    MOVED = "moved"
    """The anchored code is unchanged but starts at another line than the recorded `line`."""
    STALE = "stale"
    """The anchored code changed since the note was accepted: a person must re-read it."""
    ORPHANED = "orphaned"
    """The symbol and the quote are both gone from the file."""
    AMBIGUOUS = "ambiguous"
    """Several equally good places match; reported, never guessed."""
    UNFINGERPRINTED = "unfingerprinted"
    """A new note that anchors fine but was never accepted (`reader accept` writes its fingerprint)."""
    INVALID = "invalid"
    """A new note that does not anchor at all: a mistake in the note (unknown symbol, no such quote)."""

    @property
    def is_finding(self) -> bool:
        """Findings make `reader check` exit 1 (INVALID is an input error: exit 2)."""
        return self in (Status.STALE, Status.ORPHANED, Status.AMBIGUOUS, Status.UNFINGERPRINTED)


@dataclass(frozen=True)
class Anchor:
    """What resolving one note against one file's text gives: a pure function of both."""

    status: Status
    span: Span | None
    """The anchored lines, absolute; None when orphaned, ambiguous or invalid."""
    fingerprint: str | None
    """The fingerprint of the code at `span` now."""
    message: str = ""
    """Why the status is not ok (one line, without the location)."""
    hint: str = ""
    """What to do about it."""
    candidates: tuple[Span, ...] = ()
    """For ambiguous notes: every equally good match."""
    acceptable: bool = True
    """Whether `reader accept` may record this anchor (False when a note field must change first)."""


@dataclass(frozen=True)
class ResolvedNote:
    """A note placed at its pin: which file, which lines, and in what state."""

    note: Note
    pin: str
    path: str
    anchor: Anchor

    @property
    def span(self) -> Span | None:
        return self.anchor.span

    @property
    def status(self) -> Status:
        return self.anchor.status


class Severity(StrEnum):
    """How a problem counts toward `reader check`'s exit code."""

    ERROR = "error"
    """An input error: bad YAML, schema, unknown pin/file/symbol/fact/kernel... (exit 2)."""
    FINDING = "finding"
    """The pinned code no longer supports a note, or a note was never accepted (exit 1)."""
    NOTICE = "notice"
    """Worth saying, changes nothing: a note whose unchanged code moved (exit 0)."""


@dataclass(frozen=True)
class Problem:
    """One located problem; `str()` is the `path:line: message; what to do` line."""

    where: Location
    message: str
    hint: str = ""
    severity: Severity = Severity.ERROR
    note: str = ""
    """The note's id, when the problem is about one note."""
    status: Status | None = None
    review: Review | None = None
    """The note's re-read mark, when the problem is that mark."""

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" + (f"; {self.hint}" if self.hint else "")
