"""Article pages: the prose, then each pinned file it reads, line by line, with its notes beside."""

from __future__ import annotations

import html
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from markupsafe import Markup

from reader.cache import Cache
from reader.render.code.annotated import (
    claim_html,
    linked_lines,
    margin_notes,
    page_markdown,
    symbol_anchors,
    with_prose,
)
from reader.render.code.entries import note_entries
from reader.render.code.view import CodeLines, LineSpan, code_view
from reader.render.common.model import NoteView, Page, SourceDoc, TitledPage
from reader.render.common.prose import Prose
from reader.render.common.templates import render
from reader.render.common.urls import article_page, rel, slugify


class SectionText(NamedTuple):
    """A section of an article: its title, its Markdown and its claim ('' for none)."""

    title: str
    markdown: str
    claim: str


@dataclass(frozen=True)
class ReadView:
    """One file an article reads: which spans it shows (all of it when empty)."""

    doc: SourceDoc
    spans: tuple[LineSpan, ...] = ()
    symbols: tuple[str, ...] = ()
    """The symbols the spans come from, for the section's caption."""


@dataclass(frozen=True)
class ArticleDoc:
    slug: str
    title: str
    phase: int
    summary: str = ""
    intro: str = ""
    sections: tuple[SectionText, ...] = ()
    """Between the intro and the source."""
    outro: str = ""
    reads: tuple[ReadView, ...] = ()
    notes: tuple[NoteView, ...] = ()
    labs: tuple[TitledPage, ...] = ()
    commit: str = ""
    claim_setup: str = ""
    checked: str = ""
    """The releases the page's claims are checked at (`jax 0.12.0.1 / tokamax 0.0.17`)."""


def line_prefixes(paths: Sequence[str]) -> dict[str, str]:
    """Line-anchor prefixes: '' for the first file (`#L12`), a short unique name for the others."""
    out = {paths[0]: ""} if paths else {}
    for path in paths[1:]:
        parts = path.removesuffix(".py").split("/")
        for depth in range(1, len(parts) + 1):
            prefix = slugify("-".join(parts[-depth:])) + "-"
            if prefix not in out.values():
                break
        out[path] = prefix
    return out


def render_article(doc: ArticleDoc, cache: Cache | None, prose: Prose) -> Page:
    """The article's page: intro and sections (indexed by search), the code and notes, the outro."""
    here = article_page(doc.slug)
    prefixes = line_prefixes([r.doc.path for r in doc.reads])
    reads = [_read(r, prefixes[r.doc.path], doc, here, cache, prose) for r in doc.reads]
    loose = [{"id": n.id, "path": n.path, "status": n.status, "body": Markup(prose.html(n.body, here))}
             for n in doc.notes if n.start is None]
    body = render("article.j2", reads=reads, loose=loose, short=doc.commit[:7],
                  labs=[(rel(here, page), title) for page, title in doc.labs])
    before = [f'<div class="rd-lede">{prose.html(doc.summary, here)}</div>' if doc.summary else "",
              prose.html(doc.intro, here)]
    texts = [doc.summary, doc.intro, *(text for _, text, _ in doc.sections), doc.outro,
             *(n.body for n in doc.notes)]
    before[1:1] = [f'<p class="rd-meta">Where this page reads “(not computed at these pins)”: '
                   f'{html.escape(why)}.</p>' for why in prose.absences(texts)]  # under the lede
    for title, text, claim in doc.sections:
        before.append(f'<h2 id="rd-s-{slugify(title)}">{html.escape(title)}</h2>')
        before.append(prose.html(text, here))
        before.append(claim_html(claim, doc.claim_setup, doc.checked) if claim else "")
    after = prose.html(doc.outro, here) if doc.outro else ""
    markdown = page_markdown(doc.title)
    body = with_prose(body, "\n".join(b for b in before if b), after)
    read = {r.doc.path for r in doc.reads}
    shown = [n for n in doc.notes if n.start is None or n.path in read]  # those with an id here
    return Page(here, doc.title, markdown, body, search=tuple(note_entries(shown, here, prose)))


def _read(view: ReadView, prefix: str, article: ArticleDoc, here: str, cache: Cache | None,
          prose: Prose) -> dict[str, object]:
    doc = view.doc
    notes = [n for n in article.notes if n.path == doc.path and n.start is not None]
    spans = list(view.spans)
    if spans:  # a note outside the symbols shown still shows, with its lines
        spans += [LineSpan(n.start, n.end if n.end is not None else n.start) for n in notes if n.start is not None]
    lines = linked_lines(doc, here, cache, uses_page=doc.page)
    anchors = symbol_anchors([d.symbol for d in doc.definitions]) if not prefix else {}
    code = code_view(CodeLines(lines, prefix, anchors), margin_notes(notes, here, True, prose, prefix),
                     spans or None, gap_href=rel(here, doc.page))
    what = (f"{', '.join(view.symbols)} from {posixpath.basename(doc.path)}" if view.symbols
            else f"all {len(lines.lines)} lines")
    return {"id": f"rd-read-{prefix or 'main-'}".rstrip("-"), "path": doc.path, "what": what,
            "page_href": rel(here, doc.page), "permalink": doc.permalink, "code": Markup(code),
            "lowered": [(rel(here, page), title) for page, title in doc.lowered]}
