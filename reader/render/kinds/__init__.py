"""The registry of page kinds (see `render/kind.py`): the recipe plans and renders every page of
each, in this order (the site lists the pages in it: search results among equals). Add a kind: a
module here, and one line below."""

from __future__ import annotations

from typing import Any

from reader.render.kind import PageKind
from reader.render.kinds.article import ARTICLE
from reader.render.kinds.changes import CHANGES
from reader.render.kinds.diff import DIFF
from reader.render.kinds.ir import IR
from reader.render.kinds.lab import LAB
from reader.render.kinds.rules import RULES_KIND
from reader.render.kinds.source import SOURCE

KINDS: dict[str, PageKind[Any]] = {kind.name: kind for kind in (
    LAB, SOURCE, ARTICLE, RULES_KIND, IR, CHANGES, DIFF,
)}
"""Kind name -> the kind."""
