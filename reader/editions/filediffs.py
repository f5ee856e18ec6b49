"""The files the last move changed: each one's line changes between the previous edition's pins and
the current ones (difflib's hunks, kept in the cache by the two blobs), and which pinned files it
changed, added and removed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

try:  # difflib's algorithm compiled (the `fast` extra): the same opcodes, ten times sooner
    from cydifflib import SequenceMatcher
except ImportError:
    from difflib import SequenceMatcher

from reader.cache import Cache
from reader.corpus import Corpus
from reader.editions.previous import Previous
from reader.model import SourceFile, split_lines
from reader.providers import Blob, Provider, as_json, is_kept, provide

DIFF_VERSION = "1"
CONTEXT = 3
"""Unchanged lines shown around each change."""

Op = tuple[str, int, int, int, int]
"""difflib's opcode: tag, old start, old end, new start, new end (0-based, end exclusive)."""


@dataclass(frozen=True)
class FileDiff:
    """What changed in one file: its hunks (difflib's grouped opcodes, `CONTEXT` lines around each
    change) and the counts."""

    old_blob: str
    new_blob: str
    hunks: tuple[tuple[Op, ...], ...]
    added: int
    removed: int

    def blocks(self) -> tuple[tuple[int, int, int, int], ...]:
        """Each change as old lines [a, b) and new lines [c, d), 0-based: what maps a line of one
        file to the other (an unchanged line shifts by the blocks before it)."""
        return tuple((a, b, c, d) for hunk in self.hunks for tag, a, b, c, d in hunk if tag != "equal")

    def changed_lines(self) -> tuple[int, ...]:
        """The new file's lines (1-based) added or changed."""
        return tuple(n + 1 for hunk in self.hunks for tag, _a, _b, c, d in hunk
                     if tag in ("insert", "replace") for n in range(c, d))


@dataclass(frozen=True)
class Diffed:
    """What a file's diff reads: the two texts (by blob) and the lines of context."""

    old: Blob
    new: Blob
    context: int = CONTEXT
    version: str = DIFF_VERSION


def _diffed(old_blob: str, old_text: str, new_blob: str, new_text: str) -> Diffed:
    return Diffed(Blob(old_blob, lambda: old_text), Blob(new_blob, lambda: new_text))


def _hunks(inputs: Diffed) -> tuple[tuple[Op, ...], ...]:
    matcher = SequenceMatcher(None, split_lines(inputs.old.text), split_lines(inputs.new.text), autojunk=False)
    return tuple(tuple(h) for h in matcher.get_grouped_opcodes(inputs.context))


DIFF: Provider[Diffed, tuple[tuple[Op, ...], ...]] = Provider(
    "file-diff", Diffed, _hunks, as_json(list, lambda hunks: [list(map(list, h)) for h in hunks], lambda found: tuple(
        tuple((str(t), int(a), int(b), int(c), int(d)) for t, a, b, c, d in h) for h in found)))
"""A file's diff's hunks (difflib's grouped opcodes)."""


def file_diff(cache: Cache | None, old_blob: str, old_text: str, new_blob: str, new_text: str) -> FileDiff:
    """The diff of two texts, kept in the cache by their blobs."""
    # Two equal blobs: what difflib groups for two equal texts, no hunk, without a matcher.
    hunks = () if old_blob == new_blob else provide(DIFF, _diffed(old_blob, old_text, new_blob, new_text), cache)
    added = sum(d - c for h in hunks for t, _a, _b, c, d in h if t in ("insert", "replace"))
    removed = sum(b - a for h in hunks for t, a, b, _c, _d in h if t in ("delete", "replace"))
    return FileDiff(old_blob, new_blob, hunks, added, removed)


def changed_files(previous: Previous, files: Sequence[SourceFile], cache: Cache | None) -> dict[str, FileDiff]:
    """Path -> its diff, for every pinned file whose blob differs from the previous edition's."""
    out = {}
    for f in files:
        old = previous.blob(f.pin, f.path)
        if old is not None and old != f.blob:
            found = file_diff(cache, old, previous.text(f.pin, f.path) if not _kept(cache, old, f.blob) else "",
                              f.blob, f.text)
            if found.hunks:
                out[f.path] = found
    return out


def _kept(cache: Cache | None, old_blob: str, new_blob: str) -> bool:
    return cache is not None and is_kept(DIFF, _diffed(old_blob, "", new_blob, ""), cache)


class ChangedFile(NamedTuple):
    """A pinned file a move changed, and how many lines it added and removed."""

    path: str
    added: int
    removed: int


@dataclass(frozen=True)
class Files:
    """The pinned files a move changed, added and removed (by the
    locks), and those locked on both sides whose old copy no source served (not compared)."""

    changed: tuple[ChangedFile, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    unread: tuple[str, ...] = ()


def files_changed(previous: Previous, corpus: Corpus, diffs: Mapping[str, FileDiff]) -> Files:
    now = {(pin, path) for pin, path in corpus.all_files() if not corpus.pins[pin].in_context(path)}
    before = {(pin, path) for pin in corpus.pins for path in previous.locked(pin)}
    unread = {(pin, path) for pin, path in now & before if previous.blob(pin, path) is None}
    return Files(tuple(ChangedFile(path, d.added, d.removed) for path, d in sorted(diffs.items())),
                 tuple(sorted(path for _pin, path in now - before)),
                 tuple(sorted(path for _pin, path in before - now)),
                 tuple(sorted(path for _pin, path in unread)))
