"""The references lists: every use of each definition of a file, grouped by file, each with its
line of code, the definition first and the notes that cite it last; in the file's page script
(`assets/code/<path>.js`, render/code/annotated.py's `page_script`), loaded by docs/assets/refs.js
when a `#uses-NAME` entry of the file's page opens (a `<script>` tag: file:// works). Links are
relative to the site's root:

    readerUses.add("source/jax/_src/pallas/core.py.html", {
      "files": [path or [label, page], ...],    # as the cards': a pinned path (its page is
                                                # `source/<path>.html`), or a lab's label and page
      "articles": [[page, title], ...],
      "defs": {qualname: {"l": line, "d": its line's code,
                          "u": [[file, line, code, line, code, ...], ...],   # by file: its own
                                                # first, then the pinned files, then the labs
                          "n": [[article, note id, first words], ...]}}})   # notes on it or linking it
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import NamedTuple

from reader.annotations.markup import parse
from reader.render.code.cards import notes_by_definition
from reader.render.code.highlight import visible
from reader.render.common.model import NoteView, SourceDoc
from reader.render.common.urls import article_page, html_of

CODE_CHARS = 160
"""A use's line of code is cut here."""


class Cited(NamedTuple):
    """A note that links a definition (`[[path::qualname]]`) of a file."""

    qualname: str
    note: NoteView


def citations(notes: Sequence[NoteView]) -> dict[str, list[Cited]]:
    """Pinned path -> the notes whose body links one of its definitions, in order, once each."""
    out: dict[str, list[Cited]] = {}
    for note in notes:
        seen: set[tuple[str, str]] = set()
        for p in parse(note.body).placeholders:
            if p.kind == "source" and p.symbol and (p.target, p.symbol) not in seen:
                seen.add((p.target, p.symbol))
                out.setdefault(p.target, []).append(Cited(p.symbol, note))
    return out


def code_line(text: str) -> str:
    """A line of code as a references list shows it: without its indentation, cut at `CODE_CHARS`,
    its invisible and bidirectional control characters shown as marks."""
    text = visible(text.strip())
    return text if len(text) <= CODE_CHARS else text[:CODE_CHARS - 1] + "\u2026"


def uses_script(doc: SourceDoc, line_of: Callable[[str, int], str], cited: Sequence[Cited],
                excerpt: Callable[[NoteView], str]) -> bytes:
    """The file's references lists as a call, `readerUses.add(page, data);`; `line_of(path, n)`: line n of a file a use is in
    (a lab's uses carry their text), `cited`: the notes linking the file's definitions,
    `excerpt`: a note's first words."""
    data = uses_data(doc, line_of, cited, excerpt)
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"readerUses.add({json.dumps(html_of(doc.page))},{body});\n".encode()


def uses_data(doc: SourceDoc, line_of: Callable[[str, int], str], cited: Sequence[Cited],
              excerpt: Callable[[NoteView], str]) -> dict[str, object]:
    """What the file's references lists show (the module's doc has the format)."""
    files: dict[str, int] = {}
    file_rows: list[str | list[str]] = []
    articles: dict[str, int] = {}
    article_rows: list[list[str]] = []
    own = html_of(doc.page)
    lines = doc.text.splitlines()
    linking: dict[str, list[NoteView]] = {}
    for c in cited:
        linking.setdefault(c.qualname, []).append(c.note)
    on = notes_by_definition(doc.definitions, doc.notes)
    defs: dict[str, dict[str, object]] = {}
    for i, d in enumerate(doc.definitions):
        s = d.symbol
        by_page: dict[str, dict[int, str]] = {}
        for use in d.uses:
            page = html_of(use.page)
            if page not in files:
                files[page] = len(file_rows)
                file_rows.append(use.path if page == f"source/{use.path}.html" else [use.path, page])
            by_page.setdefault(page, {})[use.line] = code_line(use.text or line_of(use.path, use.line))
        order = sorted(by_page, key=lambda p: (p != own, p.startswith("labs/"), p))
        entry: dict[str, object] = {"l": s.line, "d": code_line(lines[s.line - 1] if s.line <= len(lines) else "")}
        if order:
            entry["u"] = [[files[p], *[x for n, t in sorted(by_page[p].items()) for x in (n, t)]] for p in order]
        noted = []
        for note in [*on.get(i, ()), *linking.get(s.qualname, ())]:
            page = html_of(article_page(note.article))
            if page not in articles:
                articles[page] = len(article_rows)
                article_rows.append([page, note.article_title])
            row = [articles[page], note.id, excerpt(note)]
            if row not in noted:
                noted.append(row)
        if noted:
            entry["n"] = noted
        defs.setdefault(s.qualname, entry)
    return {"files": file_rows, "articles": article_rows, "defs": defs}

