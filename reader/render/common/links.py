"""Extraction's references and uses, turned into places on the site (pages and line anchors)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from reader.extract import Index
from reader.model import Head, QualName, Reference, Symbol
from reader.render.common.model import DefinitionView, LinkedRef, PageLink, UseView
from reader.render.common.urls import line_id, source_page


def target_of(index: Index, module: str, qualname: str) -> PageLink | None:
    """The page and line of a corpus definition (the page's top for a module), or None."""
    found = index.defined_at(module, qualname)
    if found is None:
        return None
    title = f"{module}.{qualname}" if qualname else module
    return PageLink(source_page(found.path), line_id(found.line) if found.line is not None else "", title)


def linked_refs(index: Index, refs: Iterable[Reference]) -> tuple[LinkedRef, ...]:
    out = []
    for r in refs:
        target = target_of(index, r.target_module, r.target_qualname)
        if target is not None:
            out.append(LinkedRef(r.line, r.col, r.length, target))
    return tuple(out)


def definitions(index: Index, module: str, symbols: Sequence[Symbol],
                extra_uses: dict[QualName, list[UseView]],
                heads: Sequence[Head] = ()) -> tuple[DefinitionView, ...]:
    """Each symbol of `module` with every use in the corpus and in `extra_uses` (the labs), and
    its head from `heads` (in `symbols`' order) when given."""
    out = []
    for i, s in enumerate(symbols):
        uses = [UseView(u.path, u.line, source_page(u.path))
                for u in index.where_used(module, s.qualname)]
        uses += extra_uses.get(QualName(module, s.qualname), [])
        out.append(DefinitionView(s, tuple(uses), heads[i] if i < len(heads) else None))
    return tuple(out)


class ShownFile(NamedTuple):
    """A file outside the corpus (a lab's) and the page showing it."""

    path: str
    page: str


def uses_from(refs_by_page: dict[ShownFile, Sequence[Reference]], texts: Mapping[str, str]
              ) -> dict[QualName, list[UseView]]:
    """A definition -> its uses, from references of files outside the corpus (`texts`: each
    file's text by path; its uses carry their line's code)."""
    out: dict[QualName, list[UseView]] = defaultdict(list)
    for (path, page), refs in refs_by_page.items():
        lines = texts.get(path, "").splitlines()
        for r in refs:
            out[r.target].append(UseView(path, r.line, page, lines[r.line - 1] if r.line <= len(lines) else ""))
    return out
