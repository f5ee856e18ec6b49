"""The 'What changed' pages: one per pin move recorded in `moves/` (`reader diff --record`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reader.editions import Files, MoveRecord
from reader.render.changes.page import move_page
from reader.render.common.model import Page
from reader.render.common.urls import article_page, diff_page, source_page
from reader.render.kind import World


@dataclass(frozen=True)
class ChangesInputs:
    stem: str
    record: MoveRecord
    shown: tuple[str, ...]
    """The site's pages (`src_uri`) among those the record names: its links to them."""
    files: Files | None = None
    """The pinned files changed, added and removed by the move, for the last move's page."""
    current: tuple[str, ...] = ()
    """The pins still at the record's new commit: its lines there are the source pages' lines
    (after a later move, they are another commit's)."""


class ChangesKind:
    name = "changes"

    def collect(self, world: World) -> World:
        return world

    def pages(self, world: World, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else [stem for stem, _ in world.editions.past.moves]

    def inputs(self, world: World, name: str) -> ChangesInputs:
        past = world.editions.past
        record = dict(past.moves)[name]
        named = {article_page(f.article) for f in record.fates}
        named |= {source_page(c["path"]) for c in record.changes if c["section"] == "symbols"}
        pages = {article_page(slug) for slug in world.content.articles} | {source_page(p) for p in world.docs}
        files = None
        previous = past.previous
        if previous is not None and previous.record is record:
            files = past.files
            assert files is not None
            pages |= {diff_page(path) for path, _a, _r in files.changed if path in world.docs}
            named |= {diff_page(path) for path, _a, _r in files.changed}
            named |= {source_page(path) for path in files.added}
        pins = world.corpus.pins
        current = tuple(p.name for p in record.pins if p.name in pins and pins[p.name].commit == p.new)
        return ChangesInputs(name, record, tuple(sorted(named & pages)), files, current)

    def render(self, world: World, inputs: ChangesInputs) -> Page:
        return move_page(inputs.stem, inputs.record, set(inputs.shown), inputs.files, set(inputs.current))

    def prose(self, world: World, inputs: ChangesInputs) -> Iterable[str]:
        return ()


CHANGES = ChangesKind()
