"""Hover cards: one small script per source file with what a card shows of each definition (its
header and first lines of code, its docstring's first line, its uses, the notes on it), in the
file's page script (`assets/code/<path>.js`, render/code/annotated.py's `page_script`), loaded by
`docs/assets/cards.js` only when a link into that file is first hovered or focused.

The script calls `readerCards.add(page, data)`: a `<script>` tag works from file://, where
fetch() does not. Its links are relative to the site's root (the card may show on any page):

    {"articles": [[page, title], ...],       # the articles whose notes are on this file
     "classes": ["", "k", "nf", ...],        # the pygments classes the code uses ("": plain)
     "defs": [{"q": qualname, "k": kind, "l": line,
               "c": [[line, text, runs], ...],  # code lines shown, gaps where skipped; runs
                                              # "a4b1c3" (runs.py): a class (its code: an index
                                              # into `classes`) and a length in UTF-16 units
                                              # each, the rest plain; no runs: all plain
               "m": lines of the definition not shown,
               "d": docstring's first line,
               "u": [uses, files],           # how many, in how many files (the list itself is
                                              # the file's references data, render/uses.py)
               "n": [[article, note id, first words], ...]}, ...]}
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from reader.model import split_lines
from reader.render.code.highlight import Highlight, Runs, with_spans
from reader.render.code.runs import ClassCodes
from reader.render.common.model import DefinitionView, NoteView, SourceDoc
from reader.render.common.urls import article_page, html_of

HEAD_LINES = 8
"""Header lines (decorators, signature) a card shows at most."""
BODY_LINES = 4
"""Lines of a def's or class's body (after its docstring) a card shows at most."""
VALUE_LINES = 4
"""Lines of an assignment a card shows at most."""
EXCERPT_CHARS = 120
"""A note's first words on a card: at most this many characters."""

_PIECE = re.compile(r'<span class="([^"]*)"[^>]*>|(</span>)|([^<]+)')
_PLAIN = frozenset({"", "n"})
"""Classes shown in the code's own colour (material gives `.n` the plain colour): plain runs."""
_BREAK = re.compile(r"</(?:p|li|h\d|div|pre|blockquote)>|<br\s*/?>")
_TAG = re.compile(r"<[^>]*>")


def card_script(doc: SourceDoc, lines: Highlight, note_html: Callable[[NoteView], str],
                body: bool = True) -> bytes:
    """The file's card data as a call, `readerCards.add(page, data);`; `lines`: the file
    highlighted (no links), `note_html`:
    a note's body as HTML (its first words go on the card); `body`: its cards show the first lines
    of a definition's body too (not a pin's `context` file's: they weigh 1.5 MB there)."""
    data = card_data(doc, lines, note_html, body)
    return f"readerCards.add({json.dumps(html_of(doc.page))},{_json(data)});\n".encode()


def card_data(doc: SourceDoc, lines: Highlight,
              note_html: Callable[[NoteView], str], body: bool = True) -> dict[str, object]:
    """What the file's cards show (the module's doc has the format)."""
    articles: dict[str, int] = {}
    article_rows: list[list[str]] = []
    classes = ClassCodes([""])
    raw = split_lines(doc.text)
    notes = notes_by_definition(doc.definitions, doc.notes)
    defs = []
    for i, d in enumerate(doc.definitions):
        entry: dict[str, object] = {"q": d.symbol.qualname, "k": d.symbol.kind, "l": d.symbol.line}
        shown = _shown_lines(d, raw, body)
        entry["c"] = [_row(n, lines.lines[n - 1], lines.runs[n - 1], classes)
                      for n in shown if n <= len(lines.lines)]
        more = len(d.symbol.span) - len(shown)
        if more > 0:
            entry["m"] = more
        if d.head is not None and d.head.doc:
            entry["d"] = d.head.doc
        places = {(use.page, use.line) for use in d.uses}
        if places:
            entry["u"] = [len(places), len({page for page, _ in places})]
        noted = []
        for n in notes.get(i, ()):
            page = html_of(article_page(n.article))
            if page not in articles:
                articles[page] = len(article_rows)
                article_rows.append([page, n.article_title])
            noted.append([articles[page], n.id, excerpt(note_html(n))])
        if noted:
            entry["n"] = noted
        defs.append(entry)
    return {"articles": article_rows, "classes": classes.classes(), "defs": defs}


def _shown_lines(d: DefinitionView, raw: Sequence[str], body: bool = True) -> list[int]:
    """The lines a card shows of a definition: its header (decorators, signature), then (`body`)
    the first lines of its body after the docstring; an assignment's first lines."""
    span, head = d.symbol.span, d.head
    if head is None or d.symbol.kind == "variable":
        return list(range(span.start, min(span.end, span.start + VALUE_LINES - 1) + 1))
    end = min(max(head.end, d.symbol.line), span.end)
    while end > d.symbol.line and _blank(raw, end):
        end -= 1  # comments and blank lines between the header and the body
    out = list(range(span.start, min(end, span.start + HEAD_LINES - 1) + 1))
    if body and head.body and end < span.start + HEAD_LINES:
        out += [n for n in range(head.body, min(span.end, head.body + BODY_LINES - 1) + 1)
                if n > out[-1]]
    return out


def _row(number: int, line_html: str, line_runs: Runs, classes: ClassCodes) -> list[int | str]:
    """A code line as a card's data has it: [number, text, runs] (see the module's doc)."""
    if "<" in line_html:  # an invisible character's mark: a class of its own on the card
        spans = runs(with_spans(line_html, line_runs))
        line_runs = tuple(x for cls, t in spans for x in (cls, len(t.encode("utf-16-le")) // 2))
        text = "".join(t for _, t in spans)
    else:
        text = html.unescape(line_html) if "&" in line_html else line_html
    end = len(line_runs)
    while end and not line_runs[end - 2]:
        end -= 2  # the rest is plain
    code = classes.encode(line_runs[:end])
    return [number, text, code] if code else [number, text]


class Run(NamedTuple):
    """Text in one colour: a pygments class ('' for the plain colour) and the text."""

    cls: str
    text: str


def runs(line_html: str) -> list[Run]:
    """A line with token spans (`highlight(text).html()`) as runs of (class, text): class '' in the
    plain colour, else a pygments class (`rd-hidden` for a control character's mark); neighbours
    of one class merged. The card builds its spans from them, as text."""
    out: list[Run] = []
    stack = [""]
    for m in _PIECE.finditer(line_html):
        cls, close, text = m.groups()
        if cls is not None:
            stack.append(cls)
        elif close is not None:
            if len(stack) > 1:
                stack.pop()
        elif text:
            c = "" if stack[-1] in _PLAIN else stack[-1]
            text = html.unescape(text)
            if out and out[-1][0] == c:
                out[-1] = Run(c, out[-1].text + text)
            else:
                out.append(Run(c, text))
    return out


def _blank(raw: Sequence[str], n: int) -> bool:
    text = raw[n - 1].strip() if 0 < n <= len(raw) else ""
    return not text or text.startswith("#")


def notes_by_definition(defs: Sequence[DefinitionView],
                         notes: Sequence[NoteView]) -> dict[int, list[NoteView]]:
    """Each anchored note under the innermost definition holding its first line."""
    out: dict[int, list[NoteView]] = {}
    for note in notes:
        if note.start is None:
            continue
        holding = [(len(d.symbol.span), i) for i, d in enumerate(defs) if note.start in d.symbol.span]
        if holding:
            out.setdefault(min(holding)[1], []).append(note)
    return out


def excerpt(note_html: str) -> str:
    """A note's first words as plain text, from its HTML."""
    text = " ".join(html.unescape(_TAG.sub("", _BREAK.sub(" ", note_html))).split())
    if len(text) <= EXCERPT_CHARS:
        return text
    cut = text[:EXCERPT_CHARS].rsplit(" ", 1)[0]
    return cut + "\u2026"


def _json(data: object) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True)
