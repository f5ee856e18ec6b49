"""The lowering-rules page: every primitive by every backend's table, each cell linking to its rule."""

from __future__ import annotations

import functools
import html
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from reader.extract.rulehistory import Lowered, PrimitiveHistory, RuleHistory
from reader.extract.ruletable import PrimRef, RuleEntry, RuleTable
from reader.extract.unimplemented import Message
from reader.render.code.annotated import page_markdown, with_prose
from reader.render.common.folds import FOLDS_DIR, fold_details
from reader.render.common.model import Page, PageLink, SearchEntry
from reader.render.common.templates import render
from reader.render.common.urls import RULES, line_id, rel, rel_file, slugify, source_page

COLUMNS = (
    ("tpu", "TC", "TPU", "TC", "the TensorCore"),
    ("tpu", "SC_SCALAR_SUBCORE", "TPU", "SC scalar", "a SparseCore's scalar subcore"),
    ("tpu", "SC_VECTOR_SUBCORE", "TPU", "SC vector", "a SparseCore's vector subcore"),
    ("triton", "", "Triton", "Triton", "Triton, on a GPU"),
    ("mosaic_gpu", "Lane/Warpgroup", "Mosaic GPU", "Lane/WG",
     "kernel lowered lane by lane (one thread per array element), the primitive run by a warpgroup"),
    ("mosaic_gpu", "Lane/Warp", "Mosaic GPU", "Lane/Warp",
     "kernel lowered lane by lane, the primitive run by one warp"),
    ("mosaic_gpu", "Warpgroup/Warpgroup", "Mosaic GPU", "WG/WG",
     "kernel lowered warpgroup by warpgroup (arrays over 128 threads), the primitive run by a warpgroup"),
    ("mosaic_gpu", "Warpgroup/Warp", "Mosaic GPU", "WG/Warp",
     "kernel lowered warpgroup by warpgroup, the primitive run by one warp"),
)
"""(backend, key, group, label, title) of the matrix's columns, in order; the title is what the
matrix's legend says of the label."""

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


def rules_page(tables: Sequence[RuleTable], primitive_link: PrimitiveLink,
               history: RuleHistory | None = None,
               messages: Mapping[str, Message] | None = None) -> Page:
    """The matrix at the pins; with a `history`, each cell's "since", each row's releases per table
    (and rows for primitives only earlier releases lower); each row a search entry holding the
    error every backend raises for the primitive (`messages`), so that searching it lands there."""
    here = RULES
    cols = _columns(tables)
    by_col = {(t.backend, t.key): {e.primitive.key: e for e in t.entries} for t in tables}
    prims: dict[str, PrimRef] = {}
    for t in tables:
        for e in t.entries:
            prims.setdefault(e.primitive.key, e.primitive)
    past = {p.primitive.key: p for p in history.primitives} if history else {}
    for key, ph in past.items():
        prims.setdefault(key, ph.primitive)
    rows, entries = [], []
    for key, p in sorted(prims.items(), key=lambda kv: (kv[1].name, kv[0])):
        target = primitive_link(p.module, p.var) if p.in_corpus else None
        lowered = past.get(key)
        cells = [_cell(by_col[(c[0], c[1])].get(key), here, history,
                       lowered.lowered(c[0], c[1]) if lowered else None) for c in cols]
        row_id = f"p-{slugify(p.dotted)}"
        views = _history_view(history, lowered, cols) if history and lowered else []
        rows.append({"id": row_id, "name": p.name, "module": p.module,
                     "href": rel(here, target.page, target.fragment) if target else "",
                     "cells": cells, "history": views,
                     "backends": {c[0] for c, cell in zip(cols, cells, strict=True) if cell and cell["now"]}})
        entries.append(_search_entry(row_id, p, views, cols, by_col, messages or {}))
    groups: dict[str, int] = defaultdict(int)
    for c in cols:
        groups[c[2]] += 1
    columns = [{"label": c[3], "title": c[4], "group": c[2], "count": len(by_col[(c[0], c[1])])}
               for c in cols]
    at_pins = [r for r in rows if r["backends"]]
    only_one = sum(1 for r in at_pins if len(r["backends"]) == 1)
    elsewhere = sorted({str(e.path) for t in tables for e in t.entries if e.rule.path and e.path != e.rule.path})
    body = render("rules.j2", rows=rows, columns=columns, groups=list(groups.items()),
                  only_one=only_one, lowered=len(at_pins), history=_history_summary(history),
                  elsewhere=elsewhere)
    counts = ", ".join(f"{c[2]} {c[3]}: {col['count']}" if c[2] != c[3] else f"{c[2]}: {col['count']}"
                       for c, col in zip(cols, columns, strict=True))
    intro = ("<p>Each Pallas backend keeps a table from primitive to lowering rule, filled when its "
             "modules are imported; a primitive missing from a table is an error on that backend, "
             f"not a slow path. Rules per table at the pin: {counts}.</p>" + _errors(messages or {}, cols))
    folded = fold_details(with_prose(body, intro), here, rel_file(here, f"{FOLDS_DIR}/{here.removesuffix('.md')}.js"))
    return Page(here, "Lowering rules", page_markdown("Lowering rules", ["toc", "navigation"]),
                folded.html, assets=(folded.asset,) if folded.asset else (), search=tuple(entries))


def _errors(messages: Mapping[str, Message], cols: Sequence[tuple[str, str, str, str, str]]) -> str:
    """The intro's list of the errors a missing rule raises, as the pinned lowering words them."""
    first: dict[str, tuple[str, str, str, str, str]] = {}
    for c in cols:
        first.setdefault(c[0], c)
    items = []
    for backend, c in first.items():
        if (m := messages.get(backend)) is not None:
            where = rel(RULES, source_page(m.path), line_id(m.line))
            items.append(f"<li>{html.escape(c[2])}: <code>{html.escape(m.format(c[1], 'PRIMITIVE'))}"
                         f"</code> (<a href=\"{where}\">{html.escape(m.path)}:{m.line}</a>)</li>")
    if not items:
        return ""
    return ("<p>The error each backend raises for a primitive its table lacks; searching it with "
            "the primitive's name finds the primitive's row:</p><ul>" + "".join(items) + "</ul>")


def _label(col: tuple[str, str, str, str, str]) -> str:
    return f"{col[2]} {col[3]}" if col[2] != col[3] else col[2]


def _runs(history: RuleHistory, releases: Sequence[str]) -> str:
    """The releases as runs over the releases read: `0.9.2–0.10.2, 0.12.0.1`."""
    runs: list[list[str]] = []
    previous = False
    for version in history.read:
        if version in releases:
            if previous:
                runs[-1].append(version)
            else:
                runs.append([version])
        previous = version in releases
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def _since(history: RuleHistory, lowered: Lowered | None) -> str:
    """The cell's "since": the first release of the rule's run up to the pins; `≤` when that is
    the oldest release read (the history says nothing of earlier ones)."""
    since = history.since(lowered)
    if since is None:
        return ""
    return f"≤{since}" if since == history.read[0] else since


def _history_view(history: RuleHistory, lowered: PrimitiveHistory,
                  cols: Sequence[tuple[str, str, str, str, str]]) -> list[dict[str, str]]:
    """Per table that registers it in some release read: the table and those releases."""
    out = []
    for c in cols:
        if (t := lowered.lowered(c[0], c[1])) and (runs := _runs(history, t.releases)):
            out.append({"table": _label(c), "title": c[4], "releases": runs})
    return out


def _history_summary(history: RuleHistory | None) -> dict[str, object] | None:
    if history is None:
        return None
    return {"read": history.read, "releases": [r.spec for r in history.releases],
            "failures": [{"spec": r.spec, "where": r.where, "why": r.failure} for r in history.failures]}


def _search_entry(row_id: str, p: PrimRef, views: Sequence[dict[str, str]],
                  cols: Sequence[tuple[str, str, str, str, str]],
                  by_col: Mapping[tuple[str, str], Mapping[str, RuleEntry]],
                  messages: Mapping[str, Message]) -> SearchEntry:
    """The row's entry: where its rules are (by release, or at the pins) and the error each
    backend raises for it as jax words it (once per backend, then what differs for its other
    tables), so that searching the error lands on the row."""
    esc = functools.partial(html.escape, quote=False)
    if views:
        lowered = "Lowered by " + "; ".join(f"{v['table']} in jax {v['releases']}" for v in views)
    else:
        at = [_label(c) for c in cols if p.key in by_col[(c[0], c[1])]]
        lowered = f"Lowered at the pins by {', '.join(at)}" if at else ""
    raised = []
    for backend in dict.fromkeys(c[0] for c in cols if c[0] in messages):
        texts = [messages[backend].format(c[1], p.name) for c in cols if c[0] == backend]
        words = set(texts[0].split())
        others = ["; ".join(w for w in t.split() if w not in words) for t in texts[1:]]
        raised.append(texts[0] + (f" (likewise {', '.join(others)})" if others else "") + ".")
    text = f"{lowered}. " if lowered else ""
    if raised:
        text += "Where a table lacks it, jax raises: " + " ".join(raised)
    return SearchEntry(row_id, f"Unimplemented primitive {p.name}: the releases and backends that lower it",
                       f"<p><code>{esc(p.name)}</code> ({esc(p.dotted)}). {esc(text)}</p>")


def _cell(entry: RuleEntry | None, here: str, history: RuleHistory | None,
          lowered: Lowered | None) -> dict[str, object] | None:
    """A rule at the pins (linked, with its "since"), or one only earlier releases register. The link
    lands on the rule's lines from its first decorator (the registration, when it is one) to its
    `def`; `elsewhere` names the file that registers it when that is not the rule's own."""
    releases = _runs(history, lowered.releases) if history and lowered else ""
    if entry is None:
        if not releases:
            return None
        return {"now": False, "href": "", "since": "",
                "title": f"no rule at the pins; registered in jax {releases}"}
    rule = entry.rule
    title = f"{rule.text} (registered at {entry.path}:{entry.line}, {entry.form})"
    if releases:
        title += f"; in jax {releases}"
    lines = line_id(rule.start) + (f"-L{rule.line}" if rule.line > rule.start else "")
    href = rel(here, source_page(rule.path), lines) if rule.path and rule.line else ""
    return {"now": True, "href": href, "title": title,
            "elsewhere": entry.path if rule.path and entry.path != rule.path else "",
            "since": _since(history, lowered) if history else ""}
