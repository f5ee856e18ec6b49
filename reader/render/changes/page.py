"""The 'What changed' pages: one per move record in `moves/` (written by `reader diff --record`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from reader.editions import FATES, Files, MoveRecord, PinMove
from reader.render.code.annotated import page_markdown, with_prose
from reader.render.common.folds import FOLDS_DIR, fold_details
from reader.render.common.model import Page
from reader.render.common.templates import render
from reader.render.common.urls import (
    article_page,
    diff_page,
    line_id,
    move_uri,
    rel,
    rel_file,
    source_page,
)


def move_title(record: MoveRecord) -> str:
    """'What changed from jax 0.10.2 / tokamax 0.0.12': the old side's releases."""
    olds = [_release(p.old_release) or f"{p.name} {p.old[:7]}" for p in record.pins]
    return "What changed from " + " / ".join(olds) if olds else "What changed"


def _release(spec: str) -> str:
    return spec.replace("==", " ")


def _compare(p: PinMove) -> str:
    if not p.repo.startswith("https://"):
        return ""
    return f"{p.repo.removesuffix('.git').rstrip('/')}/compare/{p.old}...{p.new}"


def move_page(stem: str, record: MoveRecord, shown: set[str], files: Files | None = None,
              current: set[str] | None = None) -> Page:
    """The page of one move; `shown` are the site's pages (`src_uri`), so links land on one;
    `files`, the pinned files it changed (each linking its diff), added and removed; `current`,
    the pins still at the record's new commit (None: all), whose lines it links."""
    here = move_uri(stem)
    title = move_title(record)
    pins = [{"name": p.name, "old": p.old, "new": p.new, "old_label": _release(p.old_release),
             "new_label": _release(p.new_release), "compare": _compare(p)} for p in record.pins]
    body = render("move.j2", pins=pins, fates=FATES, articles=_articles(record, here, shown),
                  totals=Counter(f.fate for f in record.fates),
                  symbols=_symbols(record, here, shown, {p.name for p in record.pins} if current is None else current),
                  rules=_rules(record), facts=_facts(record), old_rev=record.old_rev,
                  files=_files(files, here, shown))
    intro = ("<p>Each note of the track, from what it said at the old pins to what it says now, and "
             "what the move did to the code the notes read.</p>")
    folded = fold_details(with_prose(body, intro), here, rel_file(here, f"{FOLDS_DIR}/{here.removesuffix('.md')}.js"))
    return Page(here, title, page_markdown(title, ["navigation"]), folded.html,
                assets=(folded.asset,) if folded.asset else ())


def _files(files: Files | None, here: str, shown: set[str]) -> dict[str, Any] | None:
    """The files changed (with their diff pages' links), added (their source pages') and removed."""
    if files is None:
        return None
    return {"changed": [(path, a, r, rel(here, diff_page(path)) if diff_page(path) in shown else "")
                        for path, a, r in files.changed],
            "added": [(path, rel(here, source_page(path)) if source_page(path) in shown else "")
                      for path in files.added],
            "removed": files.removed, "unread": files.unread}


def _articles(record: MoveRecord, here: str, shown: set[str]) -> list[dict[str, Any]]:
    titles = dict(record.titles)
    by_article: dict[str, list[Any]] = defaultdict(list)
    for f in record.fates:
        by_article[f.article].append(f)
    out = []
    for slug, fates in by_article.items():
        page = article_page(slug)
        linked = page in shown
        notes = [{"id": f.note, "fate": f.fate, "path": f.path, "old_line": f.old_line, "new_line": f.new_line,
                  "href": rel(here, page, f"note-{f.note}") if linked and f.fate != "retired" else ""}
                 for f in fates]
        out.append({"title": titles.get(slug, slug), "href": rel(here, page) if linked else "",
                    "counts": Counter(f.fate for f in fates), "notes": notes})
    return out


def _symbols(record: MoveRecord, here: str, shown: set[str], current: set[str]) -> list[dict[str, Any]]:
    """Per annotated file: symbols added (linked to their line while their pin is at the record's
    new commit) and removed (with their old line)."""
    by_file: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for c in record.changes:
        if c["section"] != "symbols" or c["status"] not in ("added", "removed"):
            continue
        page = source_page(c["path"])
        href = (rel(here, page, line_id(c["new_line"])) if c["status"] == "added" and page in shown
                and c.get("new_line") and c.get("pin") in current else "")
        by_file[c["path"]][c["status"]].append({"name": c["qualname"], "kind": c["kind"], "href": href,
                                                "line": c.get("new_line") or c.get("old_line")})
    return [{"path": path, "added": sides.get("added", []), "removed": sides.get("removed", [])}
            for path, sides in sorted(by_file.items())]


def _rules(record: MoveRecord) -> list[dict[str, Any]]:
    """Per backend table: primitives gained and lost, and how many rules moved."""
    tables: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for c in record.changes:
        if c["section"] == "rules":
            tables[(c["backend"], c.get("key", ""))][c["status"]].append(c.get("primitive", ""))
    return [{"backend": backend, "key": key, "added": sorted(s.get("added", [])),
             "removed": sorted(s.get("removed", [])), "moved": len(s.get("moved", []))}
            for (backend, key), s in sorted(tables.items())]


def _facts(record: MoveRecord) -> list[dict[str, Any]]:
    """Facts whose value changed, those cited by prose first."""
    rows = [{"name": c["name"], "old": c.get("old", ""), "new": c.get("new", ""),
             "cited": [f"{w['path']}:{w['line']}" for w in c.get("cited_by", [])]}
            for c in record.changes if c["section"] == "facts" and c["status"] == "changed"]
    return sorted(rows, key=lambda r: (not r["cited"], r["name"]))
