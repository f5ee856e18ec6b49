"""The lowering-rules page: every primitive by every backend's table, each cell linking to its rule."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from reader.extract.ruletable import RuleEntry, RuleTable
from reader.render.model import Page, PageLink
from reader.render.pages import page_markdown, with_prose
from reader.render.templates import render
from reader.render.urls import RULES, line_id, rel, slugify, source_page

COLUMNS = (
    ("tpu", "TC", "TPU", "TC", "TensorCore"),
    ("tpu", "SC_SCALAR_SUBCORE", "TPU", "SC scalar", "SparseCore scalar subcore"),
    ("tpu", "SC_VECTOR_SUBCORE", "TPU", "SC vector", "SparseCore vector subcore"),
    ("triton", "", "Triton", "Triton", "Triton"),
    ("mosaic_gpu", "Lane/Warpgroup", "Mosaic GPU", "Lane/WG", "lowering: Lane, primitive: Warpgroup"),
    ("mosaic_gpu", "Lane/Warp", "Mosaic GPU", "Lane/Warp", "lowering: Lane, primitive: Warp"),
    ("mosaic_gpu", "Warpgroup/Warpgroup", "Mosaic GPU", "WG/WG", "lowering: Warpgroup, primitive: Warpgroup"),
    ("mosaic_gpu", "Warpgroup/Warp", "Mosaic GPU", "WG/Warp", "lowering: Warpgroup, primitive: Warp"),
)
"""(backend, key, group, label, title) of the matrix's columns, in order."""

PrimitiveLink = Callable[[str, str], PageLink | None]
"""(module, variable) -> the primitive's definition on the site, or None."""


def _columns(tables: Sequence[RuleTable]) -> list[tuple[str, str, str, str, str]]:
    """The known columns that have a table, then any other table the extraction found."""
    present = {(t.backend, t.key) for t in tables}
    cols = [c for c in COLUMNS if (c[0], c[1]) in present]
    known = {(c[0], c[1]) for c in cols}
    cols += [(t.backend, t.key, t.backend, t.key or t.backend, f"{t.backend} {t.key}".strip())
             for t in tables if (t.backend, t.key) not in known]
    return cols


def rules_page(tables: Sequence[RuleTable], primitive_link: PrimitiveLink) -> Page:
    here = RULES
    cols = _columns(tables)
    by_col = {(t.backend, t.key): {e.primitive.key: e for e in t.entries} for t in tables}
    prims: dict[str, RuleEntry] = {}
    for t in tables:
        for e in t.entries:
            prims.setdefault(e.primitive.key, e)
    rows = []
    for key, first in sorted(prims.items(), key=lambda kv: (kv[1].primitive.name, kv[0])):
        p = first.primitive
        target = primitive_link(p.module, p.var) if p.in_corpus else None
        cells = [_cell(by_col[(c[0], c[1])].get(key), here) for c in cols]
        rows.append({"id": f"p-{slugify(p.dotted)}", "name": p.name, "module": p.module,
                     "href": rel(here, target.page, target.fragment) if target else "",
                     "cells": cells, "backends": {c[0] for c, cell in zip(cols, cells, strict=True) if cell}})
    groups: dict[str, int] = defaultdict(int)
    for c in cols:
        groups[c[2]] += 1
    columns = [{"label": c[3], "title": c[4], "count": len(by_col[(c[0], c[1])])} for c in cols]
    only_one = sum(1 for r in rows if len(r["backends"]) == 1)
    body = render("rules.j2", rows=rows, columns=columns, groups=list(groups.items()), only_one=only_one)
    counts = ", ".join(f"{c[2]} {c[3]}: {col['count']}" if c[2] != c[3] else f"{c[2]}: {col['count']}"
                       for c, col in zip(cols, columns, strict=True))
    intro = ("<p>Each Pallas backend keeps a table from primitive to lowering rule, filled when its "
             "modules are imported; a primitive missing from a table is an error on that backend, "
             f"not a slow path. Rules per table at the pin: {counts}.</p>")
    return Page(here, "Lowering rules", page_markdown("Lowering rules", ["toc", "navigation"]),
                with_prose(body, intro))


def _cell(entry: RuleEntry | None, here: str) -> dict[str, str] | None:
    if entry is None:
        return None
    rule = entry.rule
    title = f"{rule.text} (registered at {entry.path}:{entry.line}, {entry.form})"
    href = rel(here, source_page(rule.path), line_id(rule.line)) if rule.path and rule.line else ""
    return {"href": href, "title": title}
