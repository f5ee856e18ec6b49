"""Source pages: one per pinned file, every line, with the notes on it from any article, the labs'
uses of its definitions and, when it changed since the previous edition, its changed lines."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from reader.editions import FileDiff
from reader.extract import Index
from reader.extract.index import SCAN
from reader.labs import LabInfo
from reader.model import Reference, module_of
from reader.providers import Provider, how, pickled, provide
from reader.render.code.annotated import Since, source_page
from reader.render.code.uses import Cited, citations
from reader.render.common.links import ShownFile, uses_from
from reader.render.common.model import NoteView, Page, TitledPage, UseView
from reader.render.common.urls import diff_page, lab_page, rel_file
from reader.render.kind import World
from reader.render.source.blame import blame_src


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
    cited: tuple[Cited, ...] = ()
    """The notes, of any article, linking the file's definitions (their references lists')."""
    blamed: tuple[str, ...] = ()
    """The releases its blame reads (`editions.blame`; its script `source/blame.py`), none without."""


@dataclass(frozen=True)
class SourcePlan:
    """What the source pages are planned from besides the world: the labs' uses of each file."""

    world: World
    lab_uses: Mapping[str, Mapping[str, tuple[UseView, ...]]]
    """Module -> qualname -> the labs' uses of the definition."""
    used_by: Mapping[str, tuple[TitledPage, ...]]
    """Pinned path -> the labs that use or exercise it."""
    cited: Mapping[str, Sequence[Cited]]
    """Pinned path -> the notes linking its definitions (`uses.citations`)."""


class SourceKind:
    name = "source"

    def collect(self, world: World) -> SourcePlan:
        labs = list(world.labs.by_name.values())
        return SourcePlan(world, lab_uses(labs, world.labs.refs),
                          _labs_by_file(world.index, labs, world.labs.refs, world),
                          citations([n for views in world.content.notes.values() for n in views]))

    def pages(self, plan: SourcePlan, artifacts: bool) -> Iterable[str]:
        """The files holding lowering rules or canonical kernels wait for the artifacts: their
        pages name the lowered views their rules fed, or their kernels' pages."""
        ir, docs = plan.world.ir, plan.world.docs
        if artifacts:
            return sorted(path for path in ir.deferred if path in docs)
        return [path for path in docs if path not in ir.deferred]

    def inputs(self, plan: SourcePlan, name: str) -> SourceInputs:
        world = plan.world
        ir, past, blame = world.ir, world.editions.past, world.editions.blame
        emitted, lowered = ir.source_inputs(name) if name in ir.deferred else ((), ())
        uses = plan.lab_uses.get(module_of(name), {})
        diff = past.diffs.get(name)
        return SourceInputs(name, tuple(world.content.on_file.get(name, ())), emitted, lowered,
                            tuple(LabUses(*u) for u in sorted(uses.items())), plan.used_by.get(name, ()),
                            past.since.get(world.docs.files[name].pin, "") if diff else "", diff,
                            tuple(plan.cited.get(name, ())),
                            blame.releases if blame is not None and name in blame.now else ())

    def render(self, world: World, inputs: SourceInputs) -> Page:
        doc = world.docs[inputs.path]
        uses = dict(inputs.lab_uses)
        definitions = tuple(replace(d, uses=d.uses + uses[d.symbol.qualname]) if d.symbol.qualname in uses
                            else d for d in doc.definitions)
        doc = replace(doc, notes=inputs.notes, emitted=inputs.emitted, lowered=inputs.lowered,
                      definitions=definitions, labs=inputs.labs)
        pins = world.corpus.pins
        pin = pins[doc.pin]

        in_context: dict[str, bool] = {}  # path -> whether in its pin's context: a file's uses repeat paths

        def line_of(path: str, number: int) -> str:  # a use in a pin's context is a number only
            context = in_context.get(path)
            if context is None:
                pinned = world.docs.files[path].pin
                context = in_context[path] = pinned in pins and pins[pinned].in_context(path)
            return "" if context else world.docs.line(path, number)
        return source_page(doc, world.cache, world.prose, commit=pin.commit, release=pin.release,
                           commit_url=f"{pin.repo.removesuffix('.git')}/tree/{pin.commit}",
                           since=_since(inputs), line_of=line_of, cited=inputs.cited,
                           context=pin.in_context(doc.path),
                           blame=rel_file(doc.page, blame_src(doc.path)) if inputs.blamed else "")

    def prose(self, world: World, inputs: SourceInputs) -> Iterable[str]:
        return [n.body for n in (*inputs.notes, *(c.note for c in inputs.cited))]


def _since(inputs: SourceInputs) -> Since | None:
    if inputs.diff is None:
        return None
    d = inputs.diff
    return Since(inputs.since, diff_page(inputs.path), d.added, d.removed, d.changed_lines())


SOURCE = SourceKind()


def lab_uses(labs: Sequence[LabInfo], refs: Mapping[str, Sequence[Reference]]
             ) -> dict[str, dict[str, tuple[UseView, ...]]]:
    """Module -> qualname -> the labs' uses of that definition."""
    out: dict[str, dict[str, tuple[UseView, ...]]] = defaultdict(dict)
    found = uses_from({ShownFile(lab.path, lab_page(lab.name)): refs[lab.name] for lab in labs},
                      {lab.path: lab.text for lab in labs})
    for (module, qualname), uses in found.items():
        out[module][qualname] = tuple(uses)
    return out


def labs_by_file(index: Index, labs: Sequence[LabInfo],
                  refs: Mapping[str, Sequence[Reference]]) -> dict[str, tuple[TitledPage, ...]]:
    """Pinned path -> every lab that references it or exercises it."""
    out: dict[str, set[TitledPage]] = defaultdict(set)
    for lab in labs:
        link = TitledPage(lab_page(lab.name), lab.heading)
        for r in refs[lab.name]:
            found = index.defined_at(r.target_module, r.target_qualname)
            if found is not None:
                out[found.path].add(link)
        for path, _ in lab.exercises:
            out[path].add(link)
    return {path: tuple(sorted(links)) for path, links in out.items()}


@dataclass(frozen=True)
class LabsOfFiles:
    """What `labs_by_file` reads: the world (the pinned blobs) and the labs (their texts: their
    references); the producer's way to them: the labs' references resolved, the corpus's index."""

    world: str
    labs: tuple[LabInfo, ...]
    refs: Mapping[str, Sequence[Reference]] = how()
    index: Index | None = how()


def _labs_of_files(inputs: LabsOfFiles) -> dict[str, tuple[TitledPage, ...]]:
    assert inputs.index is not None
    return labs_by_file(inputs.index, inputs.labs, inputs.refs)


LABS_BY_FILE: Provider[LabsOfFiles, dict[str, tuple[TitledPage, ...]]] = Provider(
    "labs-by-file", LabsOfFiles, _labs_of_files, pickled(dict), (SCAN,))
"""Each pinned file's labs (`labs_by_file`)."""


def _labs_by_file(index: Index, labs: Sequence[LabInfo], refs: Mapping[str, Sequence[Reference]],
                  world: World) -> dict[str, tuple[TitledPage, ...]]:
    """`labs_by_file`, read back while the world and the labs are unchanged."""
    return provide(LABS_BY_FILE, LabsOfFiles(world.key, tuple(labs), refs, index), world.cache)
