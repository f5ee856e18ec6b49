"""The project a build opens once, as mkdocs' `load_config` gives one `config` to every stage: each
edition's pins, lock and verified files (the current one's and each older one's) with the cache they
are served from, the earlier releases' archives, the project's git history and the child processes
a build starts as sources. The command opens it (`reader.opening.open_project`); no stage after it
opens a project again."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from reader.cache import Cache
from reader.corpus import Corpus
from reader.editions.listing import Edition
from reader.extract.rulehistory import ReleaseSource
from reader.labs import LabChildren
from reader.labs.colab import ColabSource
from reader.pins import LockEntry, Pin


class ProjectHistory(Protocol):
    """The project's own git history, as the command opened it (`reader.opening.GitHistory`)."""

    def checkout(self, edition: Edition) -> Path:
        """The folder holding `edition`'s project as committed at its `rev`."""
        ...

    def side(self, spec: str) -> tuple[dict[str, Pin], dict[str, LockEntry]]:
        """The pins and lock `spec` names (`REV:pins.toml`, or a pins file)."""
        ...


@dataclass(frozen=True)
class OpenEdition:
    """One edition as a build reads it: where it lives in the site and its files."""

    edition: Edition
    corpus: Corpus


@dataclass(frozen=True)
class OpenedProject:
    """Every edition of the project (the current one first), and where what a build reads later
    comes from: `releases` (the rule history's earlier releases), `history` (the previous edition's
    pins and notes), `children` (the labs' child process); and what the project's git checkout says
    of itself (`colab`)."""

    editions: tuple[OpenEdition, ...]
    releases: ReleaseSource[Any]
    history: ProjectHistory
    colab: ColabSource
    """The repository and commit the lab pages' Colab links name (none known: empty, and why)."""
    children: LabChildren
    """Starts the labs' child process (`reader.children.Children`)."""

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
