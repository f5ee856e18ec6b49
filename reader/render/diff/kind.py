"""Diff pages: one per pinned file that changed since the previous edition (`render/diff/page.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from reader.editions import ChangedFile, FileDiff
from reader.render.common.links import linked_refs
from reader.render.common.model import NoteView, Page, SourceDoc
from reader.render.common.notes import note_views
from reader.render.common.urls import diff_page, move_uri
from reader.render.diff.page import diff_page_of
from reader.render.recipe.kind import World


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
    files: tuple[ChangedFile, ...] = ()
    """Every changed file (the page's list of them)."""
    changes: str = ""
    """The last move's page (`changes/<stem>.md`), which lists them too."""
    blocks: tuple[tuple[str, tuple[tuple[int, int, int, int], ...]], ...] = ()
    """Each changed file's changes (`FileDiff.blocks`), on the first diff page only: it brings their
    script (`LINES_SCRIPT`)."""


@dataclass(frozen=True)
class DiffPlan:
    """What the diff pages are planned from besides the world: the previous edition's notes."""

    world: World
    was_on_file: Mapping[str, tuple[NoteView, ...]]
    """Pinned path -> the previous edition's notes on it, at its pins, for the files that changed."""


class DiffKind:
    name = "diff"

    def collect(self, world: World) -> DiffPlan:
        previous = world.past.previous
        if previous is None:
            return DiffPlan(world, {})
        return DiffPlan(world, {path: tuple(v for old in notes for v in note_views(old.article, [old.resolved],
                                                                                    previous.corpus))
                                for path, notes in world.past.notes.items()})

    def pages(self, plan: DiffPlan, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else [path for path in plan.world.past.diffs if path in plan.world.docs]

    def inputs(self, plan: DiffPlan, name: str) -> DiffInputs:
        world = plan.world
        pin = world.docs.files[name].pin
        diffs = [(p, d) for p, d in sorted(world.past.diffs.items()) if p in world.docs]
        first = bool(diffs) and diffs[0][0] == name
        return DiffInputs(name, world.past.since.get(pin, pin), world.past.diffs[name],
                          tuple(world.content.on_file.get(name, ())), plan.was_on_file.get(name, ()),
                          tuple(ChangedFile(p, d.added, d.removed) for p, d in diffs),
                          move_uri(world.past.moves[-1].stem) if world.past.moves else "",
                          tuple((p, d.blocks()) for p, d in diffs) if first else ())

    def render(self, world: World, inputs: DiffInputs) -> Page:
        previous = world.past.previous
        assert previous is not None, "diff pages exist only with a previous edition"
        doc = replace(world.docs[inputs.path], notes=inputs.notes, page=diff_page(inputs.path))
        old_text = previous.text(doc.pin, doc.path)
        refs = world.index.references_in(old_text, doc.path, inputs.diff.old_blob)
        old = SourceDoc(doc.pin, doc.path, inputs.diff.old_blob, old_text, doc.page,
                        refs=linked_refs(world.index, refs), notes=inputs.was)
        pin = world.corpus.pins[doc.pin]
        now = pin.release.replace("==", " ") or f"{doc.pin} {pin.commit[:7]}"
        # Its notes' facts as the previous edition computed them; one it did not: not computed.
        was_prose = replace(world.prose, facts=lambda: previous.facts, absent=lambda _name: "", unresolved=[])
        return diff_page_of(doc, old, inputs.diff, inputs.since, now,
                            world.cache, world.prose, was_prose, inputs.files, inputs.changes, inputs.blocks)

    def prose(self, world: World, inputs: DiffInputs) -> Iterable[str]:
        return [n.body for n in (*inputs.notes, *inputs.was)]


DIFF = DiffKind()
