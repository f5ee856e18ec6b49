"""Search entries for places on a page: each definition at its line, each note at its anchor,
the page's own (a source page's summary). `render/search/index.py` makes the site's index of them,
of the pages' prose and of the code."""

from __future__ import annotations

import html
import posixpath
from collections.abc import Sequence
from html.parser import HTMLParser

from reader.render.code.outline import Outline, OutlineItem
from reader.render.common.model import NoteView, SearchEntry
from reader.render.common.prose import Prose

NOTE_CHARS = 2000
"""A note's text in the index is cut here (a note is a paragraph or two; figures are left out)."""


def page_entry(title: str, outline: Outline, line_count: int) -> SearchEntry:
    """The source page's own entry: its title, the module docstring's first line and what the
    file defines."""
    kinds = [item.kind for item in outline.walk()]
    what = ", ".join(f"{n} {_plural(kind, n)}" for kind in ("class", "function", "method", "variable")
                     if (n := kinds.count(kind)))
    summary = (f"{line_count:,} line{'s' if line_count != 1 else ''}" + (f": {what}" if what else "")
               if line_count else "An empty file")
    lede = f"<p>{html.escape(outline.doc, quote=False)}</p>" if outline.doc else ""
    return SearchEntry("", title, f"{lede}<p>{summary}.</p>")


def _plural(kind: str, n: int) -> str:
    word = {"variable": "module-level name", "class": "class"}.get(kind, kind)
    return word if n == 1 else (word + "es" if word.endswith("s") else word + "s")


def definition_entries(path: str, outline: Outline) -> list[SearchEntry]:
    """One entry per definition of the outline, at its line: not the dunder methods (found
    through their class), nor anything in a test file (its page's entry finds the file)."""
    if is_test_file(path):
        return []
    return [_definition(item) for item in outline.walk() if not _dunder(item)]


def is_test_file(path: str) -> bool:
    """`x_test.py`, `test_x.py`, `conftest.py`: the tests that come with the pinned code."""
    name = posixpath.basename(path)
    return name.endswith("_test.py") or name.startswith("test_") or name == "conftest.py"


def _dunder(item: OutlineItem) -> bool:
    return item.kind == "method" and item.name.startswith("__") and item.name.endswith("__")


def _definition(item: OutlineItem) -> SearchEntry:
    """Title: the qualified name; text (plain, one block, ~100 bytes: there are thousands):
    `method to_block_mapping(self, grid): First line of its docstring.`"""
    sig = f" {item.signature}" if item.kind == "variable" else item.signature
    text = f"{item.kind} {item.name}{sig}" + (f": {item.doc}" if item.doc else "")
    return SearchEntry(f"L{item.line}", item.qualname, html.escape(text, quote=False))


def note_entries(notes: Sequence[NoteView], page: str, prose: Prose) -> list[SearchEntry]:
    """One entry per note of an article, at the note (`#note-<id>`), its whole text searchable."""
    return [SearchEntry(f"note-{n.id}", _where(n),
                        f"<p>{searchable(prose.html(n.body, page), NOTE_CHARS)}</p>") for n in notes]


def _where(note: NoteView) -> str:
    if note.start is None:
        return f"{note.path} ({note.status})"
    if note.end is None or note.end == note.start:
        return f"{note.path}, line {note.start}"
    return f"{note.path}, lines {note.start}–{note.end}"


class _Text(HTMLParser):
    """Text and inline code/emphasis of HTML; no figures, scripts, styles or math markup."""

    KEEP = frozenset({"code", "em", "strong"})
    SKIP = frozenset({"svg", "script", "style", "figure", "template", "button", "annotation"})
    BREAK = frozenset({"p", "li", "br", "div", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        elif not self.skipping and tag in self.KEEP:
            self.out.append(f"<{tag}>")
        elif not self.skipping and tag in self.BREAK:
            self.out.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif not self.skipping and tag in self.KEEP:
            self.out.append(f"</{tag}>")
        elif not self.skipping and tag in self.BREAK:
            self.out.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(html.escape(data, quote=False))


def searchable(fragment: str, limit: int) -> str:
    """HTML as search shows it: text with inline code and emphasis, spaces collapsed, cut at
    `limit` characters of text (at a word, with its open tags closed)."""
    parser = _Text()
    parser.feed(fragment)
    parser.close()
    text = " ".join("".join(parser.out).split())
    for tag in _Text.KEEP:  # `<code> x</code>` -> `<code>x</code>`
        text = text.replace(f"<{tag}> ", f"<{tag}>").replace(f" </{tag}>", f"</{tag}>")
    return _cut_html(text, limit)


def _cut_html(text: str, limit: int) -> str:
    shown, i = 0, 0
    open_tags: list[str] = []
    while i < len(text):
        if text[i] == "<":
            end = text.index(">", i)
            tag = text[i + 1:end]
            if tag.startswith("/"):
                if open_tags:
                    open_tags.pop()
            else:
                open_tags.append(tag)
            i = end + 1
            continue
        if shown >= limit and text[i] == " ":
            return text[:i] + "…" + "".join(f"</{t}>" for t in reversed(open_tags))
        shown += 1
        i += 1
    return text

