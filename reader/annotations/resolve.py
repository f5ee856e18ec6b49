"""Resolving notes at their pins: which verified pinned file a note reads, and its anchor there."""

from __future__ import annotations

import difflib
from pathlib import PurePosixPath
from typing import overload

from reader.annotations.anchor import resolve_text, symbols_in
from reader.annotations.model import Anchor, Article, Note, ResolvedNote, Status
from reader.corpus import Corpus
from reader.model import Span, Symbol

SYMBOLS_KIND = "symbols-v1"
_SYMBOLS: dict[str, tuple[Symbol, ...]] = {}
"""Symbols of pinned files by blob, for this process (the disk cache holds them across runs)."""


def remember_symbols(blob: str, symbols: tuple[Symbol, ...]) -> None:
    """Tell `file_symbols` the symbols of a blob that another stage has already found (the
    index's scan runs the same `symbols_of`), so that notes are resolved without parsing again."""
    _SYMBOLS.setdefault(blob, symbols)


def file_symbols(corpus: Corpus, pin: str, path: str) -> tuple[Symbol, ...]:
    """`symbols_in` the pinned file's text, cached by its blob."""
    blob = corpus.blob(pin, path)
    found = _SYMBOLS.get(blob)
    if found is not None:
        return found
    data = corpus.cache.get_json(SYMBOLS_KIND, blob)
    if isinstance(data, list):
        found = tuple(Symbol(q, k, Span(a, b), line, sig) for q, k, a, b, line, sig in data)
    else:
        found = symbols_in(corpus.read_text(pin, path))
        corpus.cache.put_json(SYMBOLS_KIND, blob, [[s.qualname, s.kind, s.span.start, s.span.end,
                                                    s.line, s.signature] for s in found])
    _SYMBOLS[blob] = found
    return found


def file_problem(path: str, corpus: Corpus) -> tuple[str, str] | None:
    """(message, what to do) when `path` is not a verified file of a pin; None when it is."""
    p = PurePosixPath(path)
    pin = None if p.is_absolute() or ".." in p.parts else corpus.pin_of(path)
    if pin is None:
        covered = "; ".join(f"{name}: {', '.join(pin_.paths)}"
                            for name, pin_ in sorted(corpus.project.pins.items()))
        return (f"path {path!r} is outside the pins ({covered})",
                "use a file under a pinned path, or add its folder to a pin in pins.toml")
    if corpus.has(pin, path):
        return None
    if path in corpus.project.locks[pin].files:
        return (f"{path!r} is locked in pin {pin!r} but no source served it",
                f"run 'reader fetch {pin}' with a git source, or read another file")
    close = difflib.get_close_matches(path, corpus.files(pin), n=1, cutoff=0.7)
    dym = f" (did you mean {close[0]!r}?)" if close else ""
    return (f"no file {path!r} in pin {pin!r}{dym}", "use a path listed in pins.lock")


def where(corpus: Corpus, pin: str, path: str) -> str:
    """How messages name a pinned file: `path@shortsha`."""
    return f"{path}@{corpus.project.pins[pin].short}"


@overload
def resolve(item: Note, corpus: Corpus) -> ResolvedNote: ...
@overload
def resolve(item: Article, corpus: Corpus) -> tuple[ResolvedNote, ...]: ...


def resolve(item: Note | Article, corpus: Corpus) -> ResolvedNote | tuple[ResolvedNote, ...]:
    """A note placed at its pin (or every note of an article, in order)."""
    if isinstance(item, Article):
        return tuple(resolve(n, corpus) for n in item.notes)
    note = item
    problem = file_problem(note.path, corpus)
    pin = corpus.pin_of(note.path) or ""
    if problem:
        return ResolvedNote(note, pin, note.path,
                            Anchor(Status.INVALID, None, None, problem[0], problem[1],
                                   acceptable=False))
    text = corpus.read_text(pin, note.path)
    return ResolvedNote(note, pin, note.path, resolve_text(note, text, where(corpus, pin, note.path),
                                                           file_symbols(corpus, pin, note.path)))
