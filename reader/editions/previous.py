"""The previous edition: the pins before the last recorded move (`moves/*.json`), read from the
project's git history (`REV:pins.toml` and its lock, the record's `old`), their verified files
(fetched like the pins': the cache, git, the installed release, its source archive), and its notes
(the annotations at the record's `old_rev`, placed at those pins).

Reading git and fetching is done once per record: the old pins and their file lists are kept in
the cache under the record, so a warm build opens no repository.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from reader.annotations import Article, ResolvedNote, load_articles, resolve
from reader.annotations.load import LOADED
from reader.annotations.resolve import SYMBOLS, PinnedSymbols
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.editions.listing import older_edition
from reader.editions.opened import ProjectHistory
from reader.move.record import MoveFile, MoveRecord
from reader.pins import LockEntry, Pin
from reader.progress import unsaid
from reader.providers import Provider, how, kept, key, pickled, provide, renew

PREVIOUS_VERSION = "1"


class OldNote(NamedTuple):
    """A note of the previous edition, placed at its pins: the article holding it and where it sits."""

    article: Article
    resolved: ResolvedNote


@dataclass(frozen=True)
class Kept:
    """What is kept of an edition: its pins, locks and verified file lists."""

    pins: dict[str, Pin]
    locks: dict[str, LockEntry]
    manifests: dict[str, dict[str, str]]


class Previous:
    """The edition before the last move: `releases` name it (`jax 0.10.2`, `tokamax 0.0.12`),
    `blob` and `text` give its files, `notes_on` its notes; `key` names it in the cache."""

    def __init__(self, root: Path, record: MoveRecord, kept: Kept, cache: Cache, key: str,
                 history: ProjectHistory):
        self.root, self.record, self._kept, self._cache, self._key = root, record, kept, cache, key
        self._history = history
        self.releases = {p.name: p.old_release.replace("==", " ") or f"{p.name} {p.old[:7]}"
                         for p in record.pins}
        """Pin -> its release in this edition (`jax 0.10.2`)."""

    @cached_property
    def corpus(self) -> Corpus:
        kept = self._kept
        return Corpus(Project(self.root, kept.pins, kept.locks), self._cache, kept.manifests)

    def blob(self, pin: str, path: str) -> str | None:
        return self._kept.manifests.get(pin, {}).get(path)

    def files(self, pin: str) -> Mapping[str, str]:
        """The verified files of `pin`: path -> blob."""
        return self._kept.manifests.get(pin, {})

    def locked(self, pin: str) -> Mapping[str, str]:
        """Every file its lock names (an archive may not serve them all)."""
        lock = self._kept.locks.get(pin)
        return lock.files if lock is not None else {}

    def text(self, pin: str, path: str) -> str:
        return self.corpus.read_text(pin, path)

    @cached_property
    def facts(self) -> dict[str, object]:
        """Its computed facts by name, what `{{fact:NAME}}` in its notes showed (computed once per
        set of pinned blobs, then read from the cache: `load_facts`)."""
        from reader.extract.providers import load_facts

        return {f.name: f.value for f in load_facts(self.corpus).facts}

    def notes_on(self, paths: Collection[str]) -> dict[str, list[OldNote]]:
        """Path -> this edition's notes on it, for `paths`, each placed at this edition's pins: its
        annotations as committed at the record's `old_rev` (read through git once, as its own
        edition's pages read them: `ProjectHistory.checkout`). Kept in the cache by the record and the
        paths: a commit's notes at fixed pins do not change."""
        return provide(NOTES, OldNotes(self._key, tuple(sorted(paths)), self), self._cache)

    def _place_notes(self, paths: Collection[str]) -> dict[str, list[OldNote]]:
        folder = self._history.checkout(older_edition(self.record))
        corpus, out = self.corpus, defaultdict(list)
        symbols = PinnedSymbols(corpus)
        for article in load_articles(folder, self._cache):
            for resolved in [resolve(n, corpus, symbols) for n in article.notes if n.path in paths]:
                out[resolved.path].append(OldNote(article, resolved))
        return dict(out)


@dataclass(frozen=True)
class OldNotes:
    """What the previous edition's notes on some paths read: the edition (`Edition`'s key: its
    record) and the paths; the producer's way to them: the edition (its git history, its files)."""

    edition: str
    paths: tuple[str, ...]
    previous: Previous | None = how()


def _old_notes(inputs: OldNotes) -> dict[str, list[OldNote]]:
    assert inputs.previous is not None
    return inputs.previous._place_notes(inputs.paths)


NOTES: Provider[OldNotes, dict[str, list[OldNote]]] = Provider(
    "previous-notes", OldNotes, _old_notes, pickled(dict), (LOADED, SYMBOLS))
"""The previous edition's notes on some paths, placed at its pins."""


@dataclass(frozen=True)
class Edition:
    """What the previous edition's pins, locks and file lists read: the record's old revision, its
    old pins and its pins' moves (a commit's pins never change); the producer's way to them: the
    project, its git history and the editions the build opened."""

    old_rev: str
    old: str
    pins: str
    version: str = PREVIOUS_VERSION
    root: Path | None = how()
    record: MoveRecord | None = how()
    cache: Cache | None = how()
    history: ProjectHistory | None = how()
    opened: Sequence[Corpus] = how(())


def _edition(inputs: Edition) -> Kept:
    assert inputs.root is not None and inputs.record is not None and inputs.cache is not None
    assert inputs.history is not None
    # its files fetched again: reading them later never fetches
    return _read(inputs.root, inputs.record, inputs.cache, inputs.history, inputs.opened)


PREVIOUS: Provider[Edition, Kept] = Provider("previous-edition", Edition, _edition, pickled(Kept))
"""The previous edition's pins, locks and file lists (`Kept`)."""


def load_previous(root: Path, moves: Sequence[MoveFile], cache: Cache, history: ProjectHistory,
                  opened: Sequence[Corpus] = ()) -> Previous | None:
    """The edition before the last move in `moves` (None without one), its pins and notes read
    from the project's `history`; its files those of the edition in `opened` with its pins and
    lock, when the build opened it."""
    if not moves:
        return None
    record = moves[-1].record
    edition = Edition(record.old_rev, record.old, repr(record.pins), PREVIOUS_VERSION, root, record, cache, history,
                      opened)
    found = kept(PREVIOUS, edition, cache)
    if found is None or not all(cache.has_blob(blob) for files in found.manifests.values() for blob in files.values()):
        found = renew(PREVIOUS, edition, cache)
    return Previous(root, record, found, cache, key(PREVIOUS, edition), history)


def _read(root: Path, record: MoveRecord, cache: Cache, history: ProjectHistory,
          opened: Sequence[Corpus]) -> Kept:
    """The old pins from git (`record.old`), their files those of the corpus in `opened` with those
    pins and lock, else fetched and verified."""
    pins, locks = history.side(record.old)
    corpus = next((c for c in opened if c.project.pins == pins and c.project.locks == locks), None)
    if corpus is None:
        with unsaid():
            corpus = Corpus.open(Project(root, pins, locks), cache)
    return Kept(pins, locks,
                {pin: {path: corpus.blob(pin, path) for path in corpus.files(pin)} for pin in corpus.pins})
