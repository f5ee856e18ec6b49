"""The registry of page kinds (see `render/kind.py`): the recipe collects, plans and renders every
page of each, in this order (the site lists the pages in it: search results among equals). Add a
kind: its package under `render/`, and one line below. The one module of the recipe that names a
kind: what the recipe asks of them besides their pages is here too (the lowered views the lab,
source and IR pages share, the files and warnings the kinds add to the site)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reader.labs import LabArtifacts
from reader.render.article.kind import ARTICLE
from reader.render.canonical.kind import IR
from reader.render.changes.kind import CHANGES
from reader.render.common.model import Asset
from reader.render.diff.kind import DIFF
from reader.render.ir.site import IrPages, canonical_failure
from reader.render.kind import PageKind, World
from reader.render.lab.kind import LAB
from reader.render.lab.older import CurrentLabKind
from reader.render.lab.page import lab_assets, notebook_assets
from reader.render.rules.kind import RULES_KIND
from reader.render.source.blame import blame_assets
from reader.render.source.kind import SOURCE

__all__ = ["APART", "COUNTED", "KINDS", "IrPages", "kinds_for", "site_files", "site_warnings"]

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


def site_files(world: World, ready: Mapping[str, LabArtifacts],
               notebooks: Mapping[str, str] | None) -> list[Asset]:
    """The files the kinds add to the site as they are: each lab's images from its artifacts
    (`ready`), `notebooks` (by lab name; an older edition links the current labs'), and the source
    pages' blame scripts (`world.blame`)."""
    out = [a for name in world.labs for a in lab_assets(name, ready.get(name, LabArtifacts()))]
    out += notebook_assets(notebooks) if notebooks is not None else []
    return out + blame_assets(world.blame)


def site_warnings(ready: Mapping[str, LabArtifacts]) -> list[str]:
    """The kinds' warnings for the track's author: the canonical kernels' lowering that failed."""
    return [*canonical_failure(ready)]
