"""Source pages: one per pinned file, every line, with the notes on it from any article."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from reader.render.kind import Site, World
from reader.render.model import NoteView, Page
from reader.render.pages import source_page


@dataclass(frozen=True)
class SourceInputs:
    path: str
    notes: tuple[NoteView, ...]
    """Every article's notes on the file."""
    emitted: tuple[tuple[str, str], ...] = ()
    """(page, title) of the lowered views holding ops the file's rules emitted."""
    lowered: tuple[tuple[str, str], ...] = ()
    """(page, title) of the canonical kernels' pages whose kernel the file holds."""


class SourceKind:
    name = "source"

    def pages(self, site: Site, artifacts: bool) -> Iterable[str]:
        """The files holding lowering rules or canonical kernels wait for the artifacts: their
        pages name the lowered views their rules fed, or their kernels' pages."""
        ir, docs = site.world.ir, site.world.docs
        if artifacts:
            return sorted(path for path in ir.deferred if path in docs)
        return [path for path in docs if path not in ir.deferred]

    def inputs(self, site: Site, name: str) -> SourceInputs:
        ir = site.world.ir
        views = ir.source_inputs(name) if name in ir.deferred else ((), ())
        return SourceInputs(name, tuple(site.on_file.get(name, ())), *views)

    def render(self, world: World, inputs: SourceInputs) -> Page:
        doc = replace(world.docs[inputs.path], notes=inputs.notes, emitted=inputs.emitted,
                      lowered=inputs.lowered)
        pin = world.corpus.pins[doc.pin]
        return source_page(doc, world.cache, world.prose, commit=pin.commit, release=pin.release,
                           commit_url=f"{pin.repo.removesuffix('.git')}/tree/{pin.commit}")

    def prose(self, world: World, inputs: SourceInputs) -> Iterable[str]:
        return [n.body for n in inputs.notes]


SOURCE = SourceKind()
