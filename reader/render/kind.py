"""A page kind: the pages of one sort (the pinned files, the articles, the labs, ...), what it
gathers from the world and how each page renders. The registry is `recipe/registry.py`; the recipe
(`recipe/generate.py`) runs each kind's steps in turn, as mkdocs runs its plugins' events:

1. `collect(world)`: what the kind plans its pages from, gathered once the world is complete and
   before any page renders (its own derived data: the labs' uses of each file for the source pages,
   the previous edition's notes for the diff pages). A kind that needs nothing more gives the world.
2. `pages(collected, artifacts)`: its pages' names: those waiting for the labs' artifacts, or the others.
3. `inputs(collected, name)`: a frozen dataclass holding everything the page shows besides the
   `World`. The page cache's key is computed from the world key and the inputs (`pagecache.PAGE`).
4. `render(world, inputs)`: the page, from the world and those inputs alone (on a worker), so what a
   page is rendered from is what its key is computed from.
5. `prose(world, inputs)`: the authored Markdown the page shows (its facts and figures are
   computed before the workers fork).

To add a kind: a package under `render/` with a module holding an object of this shape, and one
line in `KINDS`. The world holds what the recipe opened and what every kind shares, never one
kind's data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from reader.annotations import Article
from reader.cache import Cache
from reader.corpus import Corpus
from reader.editions import LineHistory, Past
from reader.extract import Index
from reader.extract.rulehistory import RuleHistory
from reader.labs import ArtifactRun, LabInfo
from reader.labs.colab import ColabSource
from reader.model import Reference
from reader.render.common.docs import Docs
from reader.render.common.model import NoteView, Page
from reader.render.common.prose import Prose
from reader.render.ir.site import IrPages

C = TypeVar("C")  # what a kind collects
I = TypeVar("I")  # noqa: E741  (a kind's inputs)


@dataclass(frozen=True)
class Content:
    """The authored content at the pins: the articles and their notes."""

    articles: Mapping[str, Article]
    notes: Mapping[str, Sequence[NoteView]]
    """Article slug -> its notes at the pins."""
    on_file: Mapping[str, Sequence[NoteView]]
    """Pinned path -> the notes on it, from every article."""


@dataclass(frozen=True)
class Labs:
    """The labs the pages show (`reader.labs`): an older edition's are the current edition's, which
    it runs none of (`lab/build.py`)."""

    by_name: Mapping[str, LabInfo]
    artifacts: ArtifactRun
    """Their run: the artifacts from the cache and the child process for the rest."""
    colab: ColabSource
    """The project's repository and commit their Colab links name (none known: empty)."""
    refs: Mapping[str, Sequence[Reference]] = field(default_factory=dict)
    """Lab name -> its references into the corpus (a lab's page reads them), once the world is gathered."""


@dataclass(frozen=True)
class Editions:
    """What the pages show of the editions and releases before the pins (`reader.editions`)."""

    past: Past
    """The recorded pin moves and the edition before the last."""
    history: RuleHistory | None
    """The lowering rules across the releases of the rules' pin (`rulehistory`), or None."""
    blame: LineHistory | None = None
    """Each read file's lines across the releases read (`editions.blame`), or None."""


@dataclass(frozen=True)
class World:
    """What every kind may read: what the recipe opened and what the kinds share. A page's render
    reads of it only functions of what the world key hashes (`pagecache.world_key`: the pinned
    files with their pins, the labs' names, titles, phases and files, the pages' titles) and what
    its inputs name: the labs' text (`Labs.refs`: a lab's page), the labs' artifacts (by their
    digest), the notes, the previous edition's files (by their blobs)."""

    key: str
    corpus: Corpus
    cache: Cache | None
    index: Index
    docs: Docs
    """Every pinned file as pages show it, without notes."""
    prose: Prose
    ir: IrPages
    """The lowering rules behind the ops; the lowered views, from the artifacts."""
    content: Content
    labs: Labs
    editions: Editions


class PageKind(Protocol[C, I]):
    """One sort of page; see the module's doc."""

    @property
    def name(self) -> str:
        """The kind's name (`source`, `article`, ...): part of every key."""
        ...

    def collect(self, world: World) -> C:
        """What the kind plans its pages from, gathered once from the world."""
        ...

    def pages(self, collected: C, artifacts: bool) -> Iterable[str]:
        """The names of its pages whose inputs hold the labs' artifacts (`artifacts`), or of the
        others: the first are planned once the labs' run is done."""
        ...

    def inputs(self, collected: C, name: str) -> I:
        """Everything the page shows besides the world."""
        ...

    def render(self, world: World, inputs: I) -> Page:
        """The page, from the world and its inputs alone."""
        ...

    def prose(self, world: World, inputs: I) -> Iterable[str]:
        """The authored Markdown the page shows."""
        ...
