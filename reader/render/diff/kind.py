"""Diff pages: one per pinned file that changed since the previous edition (`render/diff/page.py`)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from reader.editions import ChangedFile, FileDiff
from reader.extract import Index
from reader.extract.index import SCAN
from reader.model import Reference
from reader.providers import Blob, Provider, how, pickled, provide
from reader.render.common.links import linked_refs
from reader.render.common.model import NoteView, Page, SourceDoc
from reader.render.common.notes import note_views
from reader.render.common.urls import diff_page, move_uri
from reader.render.diff.page import diff_page_of
from reader.render.kind import World


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
    files: tuple[ChangedFile, ...] = field(default=(), repr=False)
    """Every changed file (the page's list of them)."""
    changes: str = ""
    """The last move's page (`changes/<stem>.md`), which lists them too."""
    blocks: tuple[tuple[str, tuple[tuple[int, int, int, int], ...]], ...] = field(default=(), repr=False)
    """Each changed file's changes (`FileDiff.blocks`), on the first diff page only: it brings their
    script (`LINES_SCRIPT`)."""
    listed: str = ""
    """sha1 of `files` and `blocks`, which the page's key (its inputs' repr) names by it: written
    out, the list of every changed file in each of the 210 pages' keys cost O(pages²)."""


@dataclass(frozen=True)
class DiffPlan:
    """What the diff pages are planned from besides the world: the previous edition's notes."""

    world: World
    was_on_file: Mapping[str, tuple[NoteView, ...]]
    """Pinned path -> the previous edition's notes on it, at its pins, for the files that changed."""
    shown: tuple[tuple[str, FileDiff], ...] = ()
    """The changed files that have a page, by path."""
    files: tuple[ChangedFile, ...] = ()
    """Each of them with its counts."""
    blocks: tuple[tuple[str, tuple[tuple[int, int, int, int], ...]], ...] = ()
    """Each one's changes (`FileDiff.blocks`)."""
    listed: tuple[str, str] = ("", "")
    """`DiffInputs.listed` of the first page and of the others."""


class DiffKind:
    name = "diff"

    def collect(self, world: World) -> DiffPlan:
        past = world.editions.past
        previous = past.previous
        if previous is None:
            return DiffPlan(world, {})
        shown = tuple((p, d) for p, d in sorted(past.diffs.items()) if p in world.docs)
        files = tuple(ChangedFile(p, d.added, d.removed) for p, d in shown)
        blocks = tuple((p, d.blocks()) for p, d in shown)
        listed = repr(files)
        return DiffPlan(world, {path: tuple(v for old in notes for v in note_views(old.article, [old.resolved],
                                                                                    previous.corpus))
                                for path, notes in past.notes.items()},
                        shown, files, blocks, (_sha(f"{listed}\0{blocks!r}"), _sha(f"{listed}\0{()!r}")))

    def pages(self, plan: DiffPlan, artifacts: bool) -> Iterable[str]:
        return [] if artifacts else [path for path in plan.world.editions.past.diffs if path in plan.world.docs]

    def inputs(self, plan: DiffPlan, name: str) -> DiffInputs:
        world, past = plan.world, plan.world.editions.past
        pin = world.docs.files[name].pin
        first = bool(plan.shown) and plan.shown[0][0] == name
        return DiffInputs(name, past.since.get(pin, pin), past.diffs[name],
                          tuple(world.content.on_file.get(name, ())), plan.was_on_file.get(name, ()),
                          plan.files, move_uri(past.moves[-1].stem) if past.moves else "",
                          plan.blocks if first else (), plan.listed[0 if first else 1])

    def render(self, world: World, inputs: DiffInputs) -> Page:
        previous = world.editions.past.previous
        assert previous is not None, "diff pages exist only with a previous edition"
        doc = replace(world.docs[inputs.path], notes=inputs.notes, page=diff_page(inputs.path))
        old_text = previous.text(doc.pin, doc.path)
        # kept: resolving them reads the scans of every module the old file names (a note's edit
        # renders its file's diff page again)
        refs = provide(OLD_REFS, OldRefs(world.key, doc.path, Blob(inputs.diff.old_blob, lambda: old_text), world.index),
                       world.cache)
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


@dataclass(frozen=True)
class OldRefs:
    """What a changed file's old copy's references read: the world (the current pins), its path
    and its text (by blob); the producer's way to them: the corpus's index."""

    world: str
    path: str
    text: Blob
    index: Index | None = how()


def _old_refs(inputs: OldRefs) -> list[Reference]:
    assert inputs.index is not None
    return inputs.index.references_in(inputs.text.text, inputs.path, inputs.text.sha)


OLD_REFS: Provider[OldRefs, list[Reference]] = Provider("old-refs", OldRefs, _old_refs, pickled(list), (SCAN,))
"""The references of a changed file's old copy, resolved against the current pins."""


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


DIFF = DiffKind()
