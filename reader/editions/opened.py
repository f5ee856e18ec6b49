"""The project a build opens once, as mkdocs' `load_config` gives one `config` to every stage: each
edition's pins, lock and verified files (the current one's and each older one's, read from git by
`checkout`) with the cache they are served from. No stage after it opens a project again."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.editions.listing import Edition, checkout, editions
from reader.progress import unsaid


@dataclass(frozen=True)
class OpenEdition:
    """One edition as a build reads it: where it lives in the site and its files."""

    edition: Edition
    corpus: Corpus


@dataclass(frozen=True)
class OpenedProject:
    """Every edition of the project at `root`, opened (`open_project`): the current one first."""

    editions: tuple[OpenEdition, ...]

    @property
    def current(self) -> Corpus:
        """The current edition's files (its `project`: the root, pins and lock; its `cache`)."""
        return self.editions[0].corpus

    @property
    def root(self) -> Path:
        return self.current.project.root

    @property
    def cache(self) -> Cache:
        return self.current.cache

    @property
    def older(self) -> tuple[OpenEdition, ...]:
        """The older editions, newest move first."""
        return self.editions[1:]

    def older_corpora(self) -> list[Corpus]:
        """The older editions' files (a release one of them pins is read from them, not fetched)."""
        return [e.corpus for e in self.older]


def open_project(root: Path, cache: Cache) -> OpenedProject:
    """Open every edition of the project at `root` once: its pins and lock read, its files fetched
    where the cache lacks them and each cached blob verified; quietly (a file an edition's sources
    lack is named by the build's report)."""
    listed = editions(root)
    folders = [root, *(checkout(root, e, cache) for e in listed[1:])]
    with unsaid():
        return OpenedProject(tuple(OpenEdition(edition, Corpus.open(Project.load(folder), cache, verify=True))
                                   for edition, folder in zip(listed, folders, strict=True)))
