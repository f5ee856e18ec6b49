"""Lab pages: what a lab teaches, the pinned code it exercises, its artifacts, its source linked."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reader.cache import blob_sha
from reader.extract import Index
from reader.extract.symbols import symbols_of
from reader.labs import LabArtifacts, LabInfo
from reader.labs.colab import NO_LINK, Colab, colab_link
from reader.model import Reference
from reader.render.common.links import linked_refs
from reader.render.common.model import DefinitionView, Page, SourceDoc, TitledPage
from reader.render.common.prose import SourceResolver
from reader.render.common.urls import article_page, lab_page
from reader.render.kind import World
from reader.render.lab.page import Exercise, LabDoc, render_lab


@dataclass(frozen=True)
class LabInputs:
    lab: LabInfo
    """The lab: its file's text, docstring and exercises (the world holds its name and title)."""
    readers: tuple[TitledPage, ...]
    """The articles that link the lab."""
    artifacts: str
    """The digest of the lab's artifacts (`digest`): the page reads them from `Labs.artifacts`."""
    colab: Colab
    """Its notebook's "Open in Colab" link, or why there is none."""
    labs: str
    """The digest of the other labs' texts its lowered view shows (`IrPages.labs_digest`)."""


class LabKind:
    name = "lab"

    def collect(self, world: World) -> World:
        return world

    def pages(self, world: World, artifacts: bool) -> Iterable[str]:
        return list(world.labs.by_name) if artifacts else []

    def inputs(self, world: World, name: str) -> LabInputs:
        readers = tuple(TitledPage(article_page(a.slug), a.title) for a in world.content.articles.values()
                        if name in a.kernels)
        labs = world.labs
        return LabInputs(labs.by_name[name], readers, digest(labs.artifacts.results().get(name)),
                         colab_link(labs.colab, name),
                         world.ir.labs_digest(lab_page(name)))

    def render(self, world: World, inputs: LabInputs) -> Page:
        lab = inputs.lab
        doc = lab_doc(lab, world.index, world.labs.refs[lab.name], world.prose.source,
                      world.labs.artifacts.results(), inputs.readers, inputs.colab)
        return render_lab(doc, world.cache, world.prose, world.ir.site)[0]

    def prose(self, world: World, inputs: LabInputs) -> Iterable[str]:
        return [inputs.lab.docstring]


def lab_doc(lab: LabInfo, index: Index, refs: Sequence[Reference], resolver: SourceResolver,
            ready: Mapping[str, LabArtifacts], readers: tuple[TitledPage, ...], colab: Colab = NO_LINK) -> LabDoc:
    symbols = tuple(symbols_of(lab.text))
    doc = SourceDoc("", lab.path, blob_sha(lab.text.encode()), lab.text, lab_page(lab.name),
                    definitions=tuple(DefinitionView(s) for s in symbols),
                    refs=linked_refs(index, refs))
    exercises = tuple(Exercise(path, symbol, resolver(path, symbol)) for path, symbol in lab.exercises)
    return LabDoc(lab, doc, exercises, ready.get(lab.name, LabArtifacts()), readers, colab)


def digest(artifacts: LabArtifacts | None) -> str:
    """What a lab page shows of its artifacts, as a hash (the images are large)."""
    h = hashlib.sha1()
    for a in artifacts.files if artifacts is not None else ():
        h.update(a.name.encode() + b"\0" + hashlib.sha1(a.data).digest())
    h.update((artifacts.error if artifacts is not None else "-").encode())
    return h.hexdigest()


LAB = LabKind()
