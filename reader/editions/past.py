"""What the site shows of the track's past, loaded once at a build's start (`load_past`): the
recorded moves, the edition before the last one, the pinned files that move changed (their hunks)
and the previous edition's notes on them. Every git read and fetch the previous edition needs
happens here; the page kinds render from what it holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reader.cache import Cache
from reader.corpus import Corpus
from reader.editions.filediffs import FileDiff, Files, changed_files, files_changed
from reader.editions.opened import ProjectHistory
from reader.editions.previous import OldNote, Previous, load_previous
from reader.editions.records import load_moves
from reader.model import SourceFile
from reader.move.record import MoveFile


@dataclass(frozen=True)
class Past:
    """The track's recorded moves and, when there is one, the edition before the last."""

    moves: tuple[MoveFile, ...] = ()
    """Each finished pin move (`moves/*.json`), newest name last."""
    previous: Previous | None = None
    """The edition before the last move."""
    diffs: Mapping[str, FileDiff] = field(default_factory=dict)
    """Pinned path -> its changes since the previous edition, for the files that changed."""
    notes: Mapping[str, Sequence[OldNote]] = field(default_factory=dict)
    """Pinned path -> the previous edition's notes on it, at its pins, for the files that changed."""
    files: Files | None = None
    """The pinned files the last move changed, added and removed."""

    @property
    def since(self) -> Mapping[str, str]:
        """Pin -> its release in the previous edition (`jax 0.10.2`): what its files changed since."""
        return self.previous.releases if self.previous is not None else {}


def load_past(corpus: Corpus, files: Sequence[SourceFile], cache: Cache | None, history: ProjectHistory,
              opened: Sequence[Corpus] = ()) -> Past:
    """The project's recorded moves and the edition before the last (read from the project's
    `history`; its files those of `opened`, the editions the build opened, when one has its pins),
    its changed files' hunks against `files` (the pinned files now) and its notes on them."""
    root = corpus.project.root
    moves = tuple(load_moves(root))
    previous = load_previous(root, moves, corpus.cache, history, opened) if moves else None
    if previous is None:
        return Past(moves)
    diffs = changed_files(previous, files, cache)
    return Past(moves, previous, diffs, previous.notes_on(set(diffs)), files_changed(previous, corpus, diffs))
