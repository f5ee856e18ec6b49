"""The 'What changed' pages: one per pin move recorded in `moves/` (`reader diff --record`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from reader.move.record import MoveRecord
from reader.render.changes.page import move_page
from reader.render.common.model import Page
from reader.render.common.urls import article_page, source_page
from reader.render.diff.page import Files, diff_page, files_changed
from reader.render.recipe.kind import Site, World


@dataclass(frozen=True)
class ChangesInputs:
    stem: str
    record: MoveRecord
    shown: tuple[str, ...]
    """The site's pages (`src_uri`) among those the record names: its links to them."""
    files: Files | None = None
    """The pinned files changed, added and removed by the move, for the last move's page."""


class ChangesKind:
    name = "changes"

    def pages(self, site: Site, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else [stem for stem, _ in site.moves]

    def inputs(self, site: Site, name: str) -> ChangesInputs:
        record = dict(site.moves)[name]
        named = {article_page(f.article) for f in record.fates}
        named |= {source_page(c["path"]) for c in record.changes if c["section"] == "symbols"}
        pages = {article_page(slug) for slug in site.articles} | {source_page(p) for p in site.world.docs}
        files = None
        previous = site.world.previous
        if previous is not None and previous.record is record:
            files = files_changed(previous, site.world.corpus, site.diffs)
            pages |= {diff_page(path) for path, _a, _r in files.changed if path in site.world.docs}
            named |= {diff_page(path) for path, _a, _r in files.changed}
            named |= {source_page(path) for path in files.added}
        return ChangesInputs(name, record, tuple(sorted(named & pages)), files)

    def render(self, world: World, inputs: ChangesInputs) -> Page:
        return move_page(inputs.stem, inputs.record, set(inputs.shown), inputs.files)

    def prose(self, world: World, inputs: ChangesInputs) -> Iterable[str]:
        return ()


CHANGES = ChangesKind()
