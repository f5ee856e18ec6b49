"""Diff pages: one per pinned file that changed since the previous edition (`render/diff/page.py`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from reader.render.common.links import linked_refs
from reader.render.common.model import NoteView, Page, SourceDoc
from reader.render.diff.page import FileDiff, diff_page, diff_page_of
from reader.render.recipe.kind import Site, World


@dataclass(frozen=True)
class DiffInputs:
    path: str
    since: str
    """The file's pin's release in the previous edition (`jax 0.10.2`)."""
    diff: FileDiff
    """Its two blobs and hunks."""
    notes: tuple[NoteView, ...]
    """This edition's notes on the file."""
    was: tuple[NoteView, ...] = ()
    """The previous edition's notes on it, at its lines then."""


class DiffKind:
    name = "diff"

    def pages(self, site: Site, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else [path for path in site.diffs if path in site.world.docs]

    def inputs(self, site: Site, name: str) -> DiffInputs:
        pin = site.world.docs.files[name].pin
        return DiffInputs(name, site.since.get(pin, pin), site.diffs[name], tuple(site.on_file.get(name, ())),
                          tuple(site.was_on_file.get(name, ())))

    def render(self, world: World, inputs: DiffInputs) -> Page:
        previous = world.previous
        assert previous is not None, "diff pages exist only with a previous edition"
        doc = replace(world.docs[inputs.path], notes=inputs.notes, page=diff_page(inputs.path))
        old_text = previous.text(doc.pin, doc.path)
        refs = world.index.references_in(old_text, doc.path)
        old = SourceDoc(doc.pin, doc.path, inputs.diff.old_blob, old_text, doc.page,
                        refs=linked_refs(world.index, refs), notes=inputs.was)
        pin = world.corpus.pins[doc.pin]
        now = pin.release.replace("==", " ") or f"{doc.pin} {pin.commit[:7]}"
        # Its notes' facts as the previous edition computed them; one it did not: not computed.
        was_prose = replace(world.prose, facts=lambda: previous.facts, absent=lambda _name: "", unresolved=[])
        return diff_page_of(doc, old, inputs.diff, inputs.since, now,
                            world.cache, world.prose, was_prose)

    def prose(self, world: World, inputs: DiffInputs) -> Iterable[str]:
        return [n.body for n in (*inputs.notes, *inputs.was)]


DIFF = DiffKind()
