"""A placement proposal for one note of a pin move, and the two sides it is computed from."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from reader.annotations.model import Quote, SymbolLines
from reader.model import Span, Symbol, split_lines
from reader.move.align import normal

SURE = 0.9
"""A proposal at least this sure, on code that did not change, needs no person."""


class Files(Protocol):
    """One side of a move: the pinned files' texts and symbols."""

    def paths(self) -> Collection[str]: ...

    def text(self, path: str) -> str | None: ...

    def symbols(self, path: str) -> Sequence[Symbol]: ...


@dataclass(frozen=True)
class Candidate:
    """A place a note's code might be, with how much of it is there (0..1)."""

    path: str
    symbol: str | None
    span: Span
    score: float

    def __str__(self) -> str:
        where = f"{self.path}:{self.span.start}-{self.span.end}"
        return f"{where} ({self.symbol}, {self.score:.0%})" if self.symbol else \
            f"{where} ({self.score:.0%})"


@dataclass(frozen=True)
class Proposal:
    """Where a note goes at the new pins (its new anchor), how sure that is, how it was found and
    why; an orphan has no `span` and names the nearest `candidates`."""

    note: str
    old_path: str
    was: Span | None
    """The note's lines at the old pins (None when it did not anchor there)."""
    path: str
    span: Span | None
    symbol: str | None = None
    lines: SymbolLines | None = None
    quote: Quote | None = None
    fingerprint: str | None = None
    confidence: float = 0.0
    how: str = "orphaned"
    """unchanged, moved, recentred, realigned, renamed, split, file-moved, anchored or orphaned."""
    reason: str = ""
    candidates: tuple[Candidate, ...] = ()
    changed: bool = False
    """The code under the note, or around it, changed: a person re-reads the note."""

    @property
    def line(self) -> int | None:
        return self.span.start if self.span else None

    @property
    def marked(self) -> bool:
        """Whether a person must re-read the note at its new place (a note whose file the move
        left as it was needs nothing from it)."""
        if self.how == "unchanged":
            return self.changed
        return self.span is None or self.changed or self.confidence < SURE


class Side:
    """One side of a move: its files, with what the search derives from them computed once (wrap
    each side once when placing many notes)."""

    def __init__(self, files: Files):
        self.files = files
        self._lines: dict[str, list[str] | None] = {}
        self._index: dict[str, set[str]] | None = None

    def paths(self) -> Collection[str]:
        return self.files.paths()

    def text(self, path: str) -> str | None:
        return self.files.text(path)

    def symbols(self, path: str) -> Sequence[Symbol]:
        return self.files.symbols(path)

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            text = self.files.text(path)
            self._lines[path] = split_lines(text) if text is not None else None
        return self._lines[path]

    def holding(self, line: str) -> set[str]:
        """The Python files holding a line (normalised) as one of theirs."""
        if self._index is None:
            self._index = {}
            for path in self.files.paths():
                if path.endswith(".py"):
                    for x in self.lines(path) or ():
                        self._index.setdefault(normal(x), set()).add(path)
        return self._index.get(line, set())
