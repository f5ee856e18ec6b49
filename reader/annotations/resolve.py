"""Resolving notes at their pins: which verified pinned file a note reads, and its anchor there."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import NamedTuple, overload

from reader.annotations.anchor import resolve_text, symbols_in
from reader.annotations.model import Anchor, Article, Note, ResolvedNote, Status
from reader.corpus import Corpus
from reader.extract.parse import ParseError, located
from reader.model import Span, Symbol
from reader.providers import Blob, Provider, as_json, how, provide


@dataclass(frozen=True)
class Symbolled:
    """What a pinned file's symbols read: its text (by blob); `where` (`pin:path`) only names it
    in an error."""

    text: Blob
    where: str = how("")


def _symbols(inputs: Symbolled) -> tuple[Symbol, ...]:
    try:
        return symbols_in(inputs.text.text)
    except ParseError as e:  # no parser reads the file: say which, at its line
        raise e.at(inputs.where) from None


SYMBOLS: Provider[Symbolled, tuple[Symbol, ...]] = Provider(
    "symbols", Symbolled, _symbols, as_json(
        list, lambda found: [[s.qualname, s.kind, s.span.start, s.span.end, s.line] for s in found],
        lambda data: tuple(Symbol(q, k, Span(a, b), line) for q, k, a, b, line in data)))
"""A pinned file's symbols (`anchor.symbols_in`)."""


class PinnedSymbols:
    """The symbols of pinned files by blob, each found once per run (the disk cache holds them
    across runs); a stage that has found them already (the index's scans) hands them over."""

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        self._by_blob: dict[str, tuple[Symbol, ...]] = {}

    def share(self, pin: str, path: str, symbols: tuple[Symbol, ...]) -> None:
        """The symbols of the pinned file `path`, found by another stage running the same
        `symbols_of` (the index's scan), so that notes are placed without parsing it again."""
        self._by_blob.setdefault(self.corpus.blob(pin, path), symbols)

    def of(self, pin: str, path: str) -> tuple[Symbol, ...]:
        """`symbols_in` the pinned file's text; a ParseError names `pin:path`."""
        blob = self.corpus.blob(pin, path)
        found = self._by_blob.get(blob)
        if found is not None:
            return found
        corpus = self.corpus
        found = provide(SYMBOLS, Symbolled(Blob(blob, lambda: corpus.read_text(pin, path)), located(pin, path)),
                        corpus.cache)
        self._by_blob[blob] = found
        return found


class FileProblem(NamedTuple):
    """Why a path is not a verified file of a pin, and what to do."""

    message: str
    hint: str


def file_problem(path: str, corpus: Corpus) -> FileProblem | None:
    """What is wrong when `path` is not a verified file of a pin; None when it is."""
    p = PurePosixPath(path)
    pin = None if p.is_absolute() or ".." in p.parts else corpus.pin_of(path)
    if pin is None:
        covered = "; ".join(f"{name}: {', '.join(pin_.paths)}"
                            for name, pin_ in sorted(corpus.project.pins.items()))
        return FileProblem(f"path {path!r} is outside the pins ({covered})",
                "use a file under a pinned path, or add its folder to a pin in pins.toml")
    if corpus.has(pin, path):
        return None
    if path in corpus.project.locks[pin].files:
        return FileProblem(f"{path!r} is locked in pin {pin!r} but no source served it",
                f"run 'reader fetch {pin}' with a git source, or read another file")
    close = difflib.get_close_matches(path, corpus.files(pin), n=1, cutoff=0.7)
    dym = f" (did you mean {close[0]!r}?)" if close else ""
    return FileProblem(f"no file {path!r} in pin {pin!r}{dym}", "use a path listed in pins.lock")


def where(corpus: Corpus, pin: str, path: str) -> str:
    """How messages name a pinned file: `path@shortsha`."""
    return f"{path}@{corpus.project.pins[pin].short}"


@overload
def resolve(item: Note, corpus: Corpus, symbols: PinnedSymbols | None = None) -> ResolvedNote: ...
@overload
def resolve(item: Article, corpus: Corpus,
            symbols: PinnedSymbols | None = None) -> tuple[ResolvedNote, ...]: ...


def resolve(item: Note | Article, corpus: Corpus,
            symbols: PinnedSymbols | None = None) -> ResolvedNote | tuple[ResolvedNote, ...]:
    """A note placed at its pin (or every note of an article, in order); `symbols`: the pinned
    files' symbols found so far in this run (default: none)."""
    if symbols is None:
        symbols = PinnedSymbols(corpus)
    if isinstance(item, Article):
        return tuple(resolve(n, corpus, symbols) for n in item.notes)
    note = item
    problem = file_problem(note.path, corpus)
    pin = corpus.pin_of(note.path) or ""
    if problem:
        return ResolvedNote(note, pin, note.path,
                            Anchor(Status.INVALID, None, None, problem[0], problem[1],
                                   acceptable=False))
    try:
        found = symbols.of(pin, note.path)
    except ParseError as e:
        return ResolvedNote(note, pin, note.path,
                            Anchor(Status.INVALID, None, None, f"cannot be placed: {e.location}: "
                                   f"{e.message}", e.hint, acceptable=False))
    text = corpus.read_text(pin, note.path)
    return ResolvedNote(note, pin, note.path, resolve_text(note, text, where(corpus, pin, note.path),
                                                           found))
