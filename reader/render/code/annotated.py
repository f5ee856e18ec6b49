"""Source pages: a pinned (or lab) file in full, as in a code browser, with notes and where-used lists."""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from reader.cache import Cache
from reader.model import Symbol, split_lines
from reader.packed import packed_call, part_text
from reader.render.code.cards import card_script, excerpt
from reader.render.code.entries import definition_entries, page_entry
from reader.render.code.highlight import Highlight, LineLink, hidden_characters, highlighted
from reader.render.code.outline import outline, outline_data
from reader.render.code.scopes import scope_script
from reader.render.code.uses import Cited, uses_script
from reader.render.code.view import (
    PAINT_DIR,
    ROWS_DIR,
    ROWS_ID,
    CodeLines,
    MarginNote,
    split_code_view,
)
from reader.render.common.model import SLOT, Asset, NoteView, Page, SourceDoc
from reader.render.common.prose import Prose
from reader.render.common.templates import render
from reader.render.common.urls import article_page, line_id, rel, rel_file

_RESERVED_ID = re.compile(r"^(L\d+|.*-L\d+|uses-.*|note-.*|rd-.*|__(?!.*__$).*)$")


def page_markdown(title: str, hide: Sequence[str] = ()) -> str:
    """The Markdown mkdocs reads for a generated page: its front matter and the slot (the page's
    HTML, `with_prose`, goes there: an edit of the prose or the code changes no Markdown, so no
    mkdocs runs for it, see `site_patch`)."""
    return render("page.md.j2", title=html.escape(title, quote=False), hide=list(hide),
                  slot=Markup(SLOT))


INDEXED = '<div class="rd-indexed" markdown="0">\n{}\n</div>'
"""The prose of a page, as the search index reads it (`searchindex.indexed`)."""


def with_prose(body: str, indexed: str = "", after: str = "") -> str:
    """A page's HTML: the prose `indexed` before `body` and `after` it (HTML: what search indexes)."""
    before = INDEXED.format(indexed) + "\n\n" if indexed else ""
    return before + body + ("\n\n" + INDEXED.format(after) if after else "")


def symbol_anchors(symbols: Sequence[Symbol]) -> dict[int, tuple[str, ...]]:
    """Element ids per line: each symbol's qualified name on its `def`/`class` line, once."""
    seen: set[str] = set()
    out: dict[int, list[str]] = defaultdict(list)
    for s in symbols:
        if s.qualname not in seen and not _RESERVED_ID.match(s.qualname):
            seen.add(s.qualname)
            out[s.line].append(s.qualname)
    return {line: tuple(ids) for line, ids in out.items()}


def name_column(line_text: str, symbol: Symbol) -> int | None:
    """0-based column of a symbol's own name on its definition line."""
    name = symbol.name
    for keyword in ("def ", "class "):
        at = line_text.find(keyword)
        if at >= 0:
            col = at + len(keyword)
            while line_text[col:col + 1] == " ":
                col += 1
            if line_text.startswith(name, col):
                return col
    return _word_at(line_text, name)


def _word_at(text: str, word: str) -> int | None:
    """The first column where `word` occurs as a whole identifier."""
    at = text.find(word)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(word)] if at + len(word) < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return at
        at = text.find(word, at + 1)
    return None


def linked_lines(doc: SourceDoc, page: str, cache: Cache | None, uses_page: str = "",
                 lines: Highlight | None = None) -> Highlight:
    """The file highlighted (`lines` when given) with every resolved identifier linked, relative
    to `page`.

    Each definition's own name links to its where-used entry on `uses_page` (the file's page).
    """
    lines = lines if lines is not None else highlighted(cache, doc.blob, doc.text)
    links: dict[int, list[LineLink]] = defaultdict(list)
    for r in doc.refs:
        links[r.line].append(LineLink(r.col, r.length, rel(page, r.target.page, r.target.fragment),
                                      r.target.title))
    if uses_page:
        raw = split_lines(doc.text)
        for d in doc.definitions:
            col = name_column(raw[d.symbol.line - 1], d.symbol) if d.symbol.line <= len(raw) else None
            if col is not None:
                links[d.symbol.line].append(LineLink(col, len(d.symbol.name), rel(
                    page, uses_page, _uses_id(d.symbol.qualname)), "where is this used?"))
    return lines.linked(links)


def page_script(path: str, calls: Sequence[bytes]) -> Asset:
    """A source page's data in one script, `assets/code/<path>.js`, each of its `calls` packed: its
    code view's paint data (`readerCode.put`: codeview.js loads the script as the page loads), its
    scopes (`readerScopes.add`: scope.js), its hover cards' (`readerCards.add`: cards.js loads the
    script on any page when a link into the file is first hovered) and its references lists'
    (`readerUses.add`: refs.js, when a `#uses-` entry opens). Each takes the data of its own
    file only. One file, not four: small files are mostly slack (4 KB blocks)."""
    return Asset(f"{PAINT_DIR}/{path}.js", b"".join(packed_call(call) for call in calls))


def _no_line(path: str, number: int) -> str:
    return ""


def _uses_id(qualname: str) -> str:
    return f"uses-{qualname}"


def claim_html(claim: str, setup: str, checked: str) -> str:
    """A claim as pages show it: the page's setup and the example with its output at the pins,
    ready to copy into a file `python -m doctest` runs."""
    return render("claim.j2", claim=claim, setup=setup, checked=checked)


def note_html(note: NoteView, page: str, own: bool, prose: Prose, prefix: str = "",
              edition: str = "", first_line: str = "") -> str:
    """A note for the margin; on pages other than its article's it links back to the article.
    Its head links its first line (`prefix` + `L<n>`, or the id `first_line`). A note of an older
    edition (`edition`: `jax 0.10.2`) says so, and names its article unlinked."""
    back = "" if own or edition else rel(page, article_page(note.article), f"note-{note.id}")
    first = first_line or (line_id(note.start, prefix) if note.start is not None else "")
    claim = Markup(claim_html(note.claim, note.claim_setup, note.checked)) if note.claim else ""
    return render("note.j2", note=note, own=own, back=back, first_line=first, edition=edition,
                  body=Markup(prose.html(note.body, page)), claim=claim)


def margin_notes(notes: Sequence[NoteView], page: str, own: bool, prose: Prose,
                 prefix: str = "") -> list[MarginNote]:
    return [MarginNote(n.start, n.end if n.end is not None else n.start,
                       note_html(n, page, own, prose, prefix))
            for n in notes if n.start is not None]


def _definitions(doc: SourceDoc) -> Markup:
    """The compact definitions list's items: each name's `#uses-` entry (other pages link it) with
    its count of uses; the uses themselves are in the hover cards' data (`render/code/cards.py`).
    Written here, not by the template's loop: a file has hundreds, the loop cost a tenth of the page."""
    out = []
    for d in doc.definitions:
        s = d.symbol
        anchor = escape(_uses_id(s.qualname))
        count = len({(u.page, u.line) for u in d.uses})
        files = len({u.page for u in d.uses})
        where = f" in {files} files" if files > 1 else ""
        out.append(f'<li id="{anchor}"><a href="#L{s.line}">{escape(s.qualname)}</a> {escape(s.kind)}, '
                   f'<a class="rd-uses" href="#{anchor}" aria-expanded="false">{count} use{"s" if count != 1 else ""}'
                   f'{where}</a></li>\n')
    return Markup("".join(out))


@dataclass(frozen=True)
class Since:
    """A file's changes since the previous edition, as its page shows them."""

    edition: str
    """`jax 0.10.2`."""
    diff_page: str
    added: int
    removed: int
    lines: tuple[int, ...]
    """Its lines added or changed since, marked in the margin (the edition switch maps a line through
    its changes from the diff pages' `assets/lines.js`, render/diff/page.py)."""


def source_page(doc: SourceDoc, cache: Cache | None, prose: Prose, title: str = "",
                commit: str = "", release: str = "", commit_url: str = "",
                since: Since | None = None, line_of: Callable[[str, int], str] | None = None,
                cited: Sequence[Cited] = (), context: bool = False, blame: str = "") -> Page:
    """The page of one whole file: every line, every link, every note on it from any article, and
    its lines added or changed since the previous edition (`since`) marked; its definitions' uses
    with their lines of code (`line_of(path, n)`: a pinned file's line) and the notes citing them
    (`cited`) in its references data. A pin's `context` file (`context`) has lighter cards; `blame`:
    its blame script (blame.js loads it when asked), relative to the page."""
    page = doc.page
    plain = highlighted(cache, doc.blob, doc.text)
    lines = linked_lines(doc, page, cache, uses_page=page, lines=plain)
    anchors = symbol_anchors([d.symbol for d in doc.definitions])
    code = split_code_view(CodeLines(lines, "", anchors), margin_notes(doc.notes, page, False, prose),
                           doc.path, rel_file(page, f"{PAINT_DIR}/{doc.path}.js"), since.lines if since else (),
                           rows_src=rel_file(page, f"{ROWS_DIR}/{doc.path}.js"))
    shape = outline(doc.definitions, doc.docstring)
    articles = sorted({(rel(page, article_page(n.article)), n.article_title) for n in doc.notes},
                      key=lambda a: a[1])
    body = render("source.j2", doc=doc, short=commit[:7], commit_url=commit_url, release=release,
                  line_count=len(lines.lines), code=Markup(code.html), hidden=hidden_characters(doc.text),
                  labs=[(rel(page, lab), t) for lab, t in doc.labs], articles=articles,
                  emitted=[(rel(page, p, "rd-lowered"), t) for p, t in doc.emitted],
                  lowered=[(rel(page, p), t) for p, t in doc.lowered],
                  definitions=_definitions(doc), outline=outline_data(shape.items),
                  since=since, diff_href=rel(page, since.diff_page) if since else "", context=context,
                  blame=blame, deferred=bool(code.rows))
    cards = card_script(doc, plain, lambda n: prose.html(n.body, page), body=not context)
    uses = uses_script(doc, line_of or _no_line, cited, lambda n: excerpt(prose.html(n.body, page)))
    search = (page_entry(title or doc.path, shape, len(lines.lines)),
              *definition_entries(doc.path, shape))
    scope = scope_script(doc.path, doc.blob, doc.text, cache)
    painted = page_script(doc.path, (code.script.encode(), scope.data, cards, uses))
    rows = (Asset(f"{ROWS_DIR}/{doc.path}.js", part_text(ROWS_ID, code.rows).encode()),) if code.rows else ()
    return Page(page, title or doc.path, page_markdown(title or doc.path, ["toc"]), body,
                (painted, *rows), search)

