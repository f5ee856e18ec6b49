"""A page kind: the pages of one sort (the pinned files, the articles, the labs, ...), what each is
rendered from, and its rendering. The registry is `render/recipe/registry.py`; the recipe iterates it.

A kind names its pages and gives each page's *inputs*: a frozen dataclass holding everything the
page shows besides the `World`. The page cache's key is the world key and the inputs' repr
(`pagecache.page_key`), and `render` is handed the world and those inputs only, so what a page is
rendered from is what its key is computed from. To add a kind: a module in `render/kinds/` with
an object of this shape, and one line in `KINDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar

from reader.annotations import Article
from reader.cache import Cache
from reader.corpus import Corpus
from reader.extract import Index
from reader.extract.rulehistory import RuleHistory
from reader.extract.ruletable import RuleTable
from reader.labs import ArtifactRun, LabInfo
from reader.model import Reference
from reader.move.record import MoveFile
from reader.render.common.docs import Docs
from reader.render.common.model import NoteView, Page, TitledPage, UseView
from reader.render.common.prose import Prose
from reader.render.diff.page import FileDiff
from reader.render.previous import Previous

if TYPE_CHECKING:
    from reader.render.ir.site import IrPages

I = TypeVar("I")  # noqa: E741  (a kind's inputs)


@dataclass(frozen=True)
class World:
    """What any page may be rendered from besides its inputs: functions of what the world key
    hashes (`pagecache.world_key`: the pinned files with their pins, the labs' names, titles,
    phases and files, the pages' titles), and what a page reading it names in its inputs: the
    labs' text (`lab_refs`: a lab's page), the labs' artifacts (by their digest)."""

    key: str
    corpus: Corpus
    cache: Cache | None
    index: Index
    docs: Docs
    """Every pinned file as pages show it, without notes."""
    prose: Prose
    labs: Mapping[str, LabInfo]
    lab_refs: Mapping[str, Sequence[Reference]]
    artifacts: ArtifactRun
    ir: IrPages
    """The lowering rules behind the ops; the lowered views, from the artifacts."""
    previous: Previous | None = None
    """The edition before the last pin move, when a move is recorded."""


@dataclass(frozen=True)
class Site:
    """What the kinds draw their pages' inputs from: the world and the authored content."""

    world: World
    articles: Mapping[str, Article]
    notes: Mapping[str, Sequence[NoteView]]
    """Article slug -> its notes at the pins."""
    on_file: Mapping[str, Sequence[NoteView]]
    """Pinned path -> the notes on it, from every article."""
    moves: Sequence[MoveFile]
    """Each finished pin move (`moves/*.json`)."""
    lab_uses: Mapping[str, Mapping[str, tuple[UseView, ...]]]
    """Module -> qualname -> the labs' uses of the definition (`docs.lab_uses`)."""
    used_by: Mapping[str, tuple[TitledPage, ...]]
    """Pinned path -> the labs that use or exercise it."""
    diffs: Mapping[str, FileDiff] = field(default_factory=dict)
    """Pinned path -> its changes since the previous edition, for the files that changed."""
    since: Mapping[str, str] = field(default_factory=dict)
    """Pin -> its release in the previous edition (`jax 0.10.2`): what its files changed since."""
    was_on_file: Mapping[str, Sequence[NoteView]] = field(default_factory=dict)
    """Pinned path -> the previous edition's notes on it, at its pins, for the files that changed."""
    history: Callable[[Iterable[RuleTable]], RuleHistory | None] = lambda pinned: None
    """The rule history given the pins' tables (`rulehistory.start_history`: its releases read
    while the build went on), or None."""


class PageKind(Protocol[I]):
    """One sort of page; see the module's doc."""

    @property
    def name(self) -> str:
        """The kind's name (`source`, `article`, ...): part of every key."""
        ...

    def pages(self, site: Site, artifacts: bool) -> Iterable[str]:
        """The names of its pages whose inputs hold the labs' artifacts (`artifacts`), or of the
        others: the first are planned once the labs' run is done."""
        ...

    def inputs(self, site: Site, name: str) -> I:
        """Everything the page shows besides the world."""
        ...

    def render(self, world: World, inputs: I) -> Page:
        """The page, from the world and its inputs alone."""
        ...

    def prose(self, world: World, inputs: I) -> Iterable[str]:
        """The authored Markdown the page shows (its facts and figures are computed before the
        workers fork)."""
        ...
