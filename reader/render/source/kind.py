"""Source pages: one per pinned file, every line, with the notes on it from any article."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple

from reader.model import module_of
from reader.render.code.annotated import Since, source_page
from reader.render.common.model import NoteView, Page, TitledPage, UseView
from reader.render.diff.page import FileDiff, diff_page
from reader.render.recipe.kind import Site, World


class LabUses(NamedTuple):
    """A definition (its qualname) and the labs' uses of it."""

    qualname: str
    uses: tuple[UseView, ...]


@dataclass(frozen=True)
class SourceInputs:
    path: str
    notes: tuple[NoteView, ...]
    """Every article's notes on the file."""
    emitted: tuple[TitledPage, ...] = ()
    """The lowered views holding ops the file's rules emitted."""
    lowered: tuple[TitledPage, ...] = ()
    """The canonical kernels' pages whose kernel the file holds."""
    lab_uses: tuple[LabUses, ...] = ()
    """The file's definitions that labs use."""
    labs: tuple[TitledPage, ...] = ()
    """The labs that use or exercise the file."""
    since: str = ""
    """The file's pin's release in the previous edition (`jax 0.10.2`), when the file changed since."""
    diff: FileDiff | None = None
    """Its changes since then."""


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
        emitted, lowered = ir.source_inputs(name) if name in ir.deferred else ((), ())
        uses = site.lab_uses.get(module_of(name), {})
        diff = site.diffs.get(name)
        return SourceInputs(name, tuple(site.on_file.get(name, ())), emitted, lowered,
                            tuple(LabUses(*u) for u in sorted(uses.items())), site.used_by.get(name, ()),
                            site.since.get(site.world.docs.files[name].pin, "") if diff else "", diff)

    def render(self, world: World, inputs: SourceInputs) -> Page:
        doc = world.docs[inputs.path]
        uses = dict(inputs.lab_uses)
        definitions = tuple(replace(d, uses=d.uses + uses[d.symbol.qualname]) if d.symbol.qualname in uses
                            else d for d in doc.definitions)
        doc = replace(doc, notes=inputs.notes, emitted=inputs.emitted, lowered=inputs.lowered,
                      definitions=definitions, labs=inputs.labs)
        pin = world.corpus.pins[doc.pin]
        return source_page(doc, world.cache, world.prose, commit=pin.commit, release=pin.release,
                           commit_url=f"{pin.repo.removesuffix('.git')}/tree/{pin.commit}",
                           since=_since(inputs))

    def prose(self, world: World, inputs: SourceInputs) -> Iterable[str]:
        return [n.body for n in inputs.notes]


def _since(inputs: SourceInputs) -> Since | None:
    if inputs.diff is None:
        return None
    d = inputs.diff
    return Since(inputs.since, diff_page(inputs.path), d.added, d.removed, d.changed_lines())


SOURCE = SourceKind()
