"""The registry of page kinds (see `render/kind.py`): the recipe collects, plans and renders every
page of each, in this order (the site lists the pages in it: search results among equals). Add a
kind: its package under `render/`, and one line below. The one module of the recipe that names a
kind: what the recipe asks of them besides their pages is here too (the labs opened and their
notebooks started, the lowered views the lab, source and IR pages share, the pages the outline
lists, the files, warnings and failures the kinds add to the site)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reader.errors import ReaderError
from reader.labs import LabArtifacts
from reader.render.article.kind import ARTICLE
from reader.render.canonical.kind import IR
from reader.render.changes.kind import CHANGES
from reader.render.common.model import Asset
from reader.render.diff.kind import DIFF
from reader.render.ir.site import IrPages, canonical_failure
from reader.render.kind import PageKind, World
from reader.render.lab.build import (
    CurrentLabs,
    lab_failures,
    lab_notes,
    lab_refs,
    opened_labs,
    start_notebooks,
)
from reader.render.lab.kind import LAB
from reader.render.lab.older import CurrentLabKind
from reader.render.lab.page import lab_assets, notebook_assets
from reader.render.rules.kind import RULES_KIND
from reader.render.source.blame import blame_assets
from reader.render.source.kind import SOURCE
from reader.render.track.navigation import Written

__all__ = ["APART", "COUNTED", "KINDS", "CurrentLabs", "IrPages", "kinds_for", "lab_refs", "opened_labs", "outlined",
           "site_failures", "site_files", "site_warnings", "start_notebooks", "waiting"]

KINDS: dict[str, PageKind[Any, Any]] = {kind.name: kind for kind in (
    LAB, SOURCE, ARTICLE, RULES_KIND, IR, CHANGES, DIFF,
)}
"""Kind name -> the kind."""

APART = frozenset({CHANGES.name})
"""The kinds whose pages the outline lists apart from the rest (the 'What changed' pages)."""

COUNTED = (SOURCE.name, ARTICLE.name)
"""The kinds whose pages rendered and read back from the page cache the build's report counts."""


def kinds_for(to_current: str | None) -> Mapping[str, PageKind[Any, Any]]:
    """The kinds of an edition's build: `KINDS`, an older edition's lab pages linking the current
    edition's labs, `to_current` above its root (`lab/older.py`)."""
    return KINDS if to_current is None else {**KINDS, LAB.name: CurrentLabKind(to_current)}


def waiting(world: World) -> bool:
    """Whether the pages whose inputs hold the labs' artifacts wait for them (their child still runs)."""
    return world.labs.artifacts.running


def outlined(world: World) -> list[Written]:
    """The pages the outline is matched against: the articles, then the labs. A `kind: lab` article
    is the walkthrough of its labs: their pages link it, the nav does not."""
    labs = world.labs.by_name
    out = [Written("article", a.slug, a.title, a.phase, a.order, a.summary) for a in world.content.articles.values()
           if not (a.kind == "lab" and a.kernels and set(a.kernels) <= set(labs))]
    return out + [Written("lab", lab.name, lab.heading, lab.phase) for lab in labs.values()]


def site_files(world: World, notebooks: Mapping[str, str] | None) -> list[Asset]:
    """The files the kinds add to the site as they are: each lab's images from its artifacts,
    `notebooks` (by lab name; an older edition links the current labs'), and the source pages'
    blame scripts (`Editions.blame`)."""
    ready = world.labs.artifacts.results()
    out = [a for name in world.labs.by_name for a in lab_assets(name, ready.get(name, LabArtifacts()))]
    out += notebook_assets(notebooks) if notebooks is not None else []
    return out + blame_assets(world.editions.blame)


def site_warnings(world: World) -> list[str]:
    """The kinds' warnings for the track's author: the canonical kernels' lowering that failed, why
    the lab pages have no Colab link."""
    return [*canonical_failure(world.labs.artifacts.results()), *lab_notes(world.labs)]


def site_failures(world: World) -> tuple[ReaderError, ...]:
    """What fails the build unless told not to: the labs that raised (each page says so)."""
    return lab_failures(world.labs, world.labs.artifacts.results())
