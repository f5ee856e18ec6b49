"""The registry of page kinds (see `render/kind.py`): the recipe collects, plans and renders every
page of each, in this order (the site lists the pages in it: search results among equals). Add a
kind: its package under `render/`, and one line below."""

from __future__ import annotations

from typing import Any

from reader.render.article.kind import ARTICLE
from reader.render.changes.kind import CHANGES
from reader.render.diff.kind import DIFF
from reader.render.ir.kind import IR
from reader.render.kind import PageKind
from reader.render.lab.kind import LAB
from reader.render.rules.kind import RULES_KIND
from reader.render.source.kind import SOURCE

KINDS: dict[str, PageKind[Any, Any]] = {kind.name: kind for kind in (
    LAB, SOURCE, ARTICLE, RULES_KIND, IR, CHANGES, DIFF,
)}
"""Kind name -> the kind."""
