"""The code view: numbered, anchored source lines in blocks, with notes beside the lines they explain."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from reader.packed import RUN_MARK
from reader.render.code.highlight import Highlight
from reader.render.code.runs import ClassCodes
from reader.render.common.urls import line_id


@dataclass(frozen=True)
class MarginNote:
    """A note's HTML, placed beside lines `start`..`end` (1-based, inclusive) of the file shown."""

    start: int
    end: int
    html: str
    lines: str = ""
    """Its `data-lines` when not lines `start`..`end` of the view's own ids (a diff's note names the
    lines of its file: `new-L10-L12`)."""


@dataclass(frozen=True)
class CodeLines:
    """What a code view shows of one file: its per-line HTML and extra anchors."""

    highlighted: Highlight
    """Every line of the file, highlighted (and linked): its HTML without token spans and its
    runs; index 0 is line 1."""
    prefix: str = ""
    """Prefix of the line anchors (`L12` or `core-L12`)."""
    anchors: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Extra element ids per line: the symbols defined there (`BlockSpec`, `BlockSpec.replace`)."""
    rows: Mapping[int, str] = field(default_factory=dict)
    """Extra attributes per line, escaped (` class="rd-chg"`: a line changed since the last edition)."""
    breaks: frozenset[int] = frozenset()
    """Lines that start a chunk (a diff's hunk heads: diff.js puts the context it expands between
    chunks)."""
    ids: Mapping[int, str] = field(default_factory=dict)
    """A line's id when not `line_id` (a diff's row: the line it shows, `new-L28`, `old-L3`)."""


PAINT_DIR = "assets/code"
"""Where a source page's paint script goes (`split_code_view`): `assets/code/<path>.js`."""
CHUNK = 50
"""Lines per chunk: the unit the browser lays out and highlights only near the viewport."""
ROWS_DIR = "assets/rows"
"""Where a long file's rows past its first screenfuls go (`split_code_view`): `assets/rows/<path>.js`,
a page's part (packed.py's `part_text`) that codeview.js loads as the page loads."""
ROWS_ID = "rd-rows"
"""The id of the view whose rows come in such a part (its `data-part`)."""
KEEP = 200
"""A long file's lines shipped as HTML: its chunks starting after line KEEP come in its rows' part."""
LONG = 8000
"""Tags in a view's rows past which its file is long (its page would pass 15,000 DOM nodes with
the rest of the page): about two per line and two per link."""
RUN_ON = 40
"""Unannotated lines after a noted block that keep the notes' column free, for a long note to run
on beside them; the lines after those take the whole width (`rd-free`)."""
_LINK_RE = re.compile(r'<a href="([^"]*)" title="([^"]*)">')


@dataclass
class _Shrunk:
    """A code view's lines made light: the token classes as compact runs, the identifier links'
    titles in one table. codeview.js puts both back near the viewport."""

    inline: bool = True
    """The runs in each chunk's `data-h`; else kept in `chunks`, for the view's paint script."""
    keep: int | None = None
    """The rows of the chunks starting after this line go to `deferred`, the chunks left empty
    (None: every row in the HTML)."""
    deferred: list[str] = field(default_factory=list)
    """The rows of each chunk left out of the HTML, in order (its `data-i`)."""
    chunks: list[str] = field(default_factory=list)
    """Each chunk's runs (its lines' runs, space-separated), in order."""
    classes: ClassCodes = field(default_factory=ClassCodes)
    titles: dict[str, str | None] = field(default_factory=dict)
    """href -> title, None for an href seen with two titles (those keep theirs inline)."""
    untitled_tags: dict[str, str] = field(default_factory=dict)
    """A link's opening tag -> the same without its title, while its href keeps that title
    (a file links one name many times)."""

    def untitled(self, line_html: str) -> str:
        """The line's HTML with its links' titles out (into `titles`)."""
        return _LINK_RE.sub(self._link, line_html)

    def _link(self, m: re.Match[str]) -> str:
        tag = m.group(0)
        short = self.untitled_tags.get(tag)
        if short is not None:
            return short
        href, title = html.unescape(m.group(1)), html.unescape(m.group(2))
        known = self.titles.setdefault(href, title)
        if known != title or "\t" in href or "\n" in href or "\t" in title or "\n" in title:
            self.titles[href] = None
            self.untitled_tags.clear()  # the href's tags seen before keep their titles from now on
            return tag
        short = self.untitled_tags[tag] = f'<a href="{m.group(1)}">'
        return short

    def attributes(self) -> str:
        """The view's tables as attributes: token classes by index (`data-c`, space-separated),
        link titles by href (`data-t`, a tab between href and title, one pair a line)."""
        titles = "\n".join(f"{h}\t{t}" for h, t in self.titles.items() if t is not None)
        return f' data-c="{" ".join(self.classes.classes())}" data-t="{html.escape(titles)}"'

    def script(self, key: str, prefix: str, changed: Sequence[int]) -> str:
        """The same tables, the chunks' runs and the changed lines as a paint script:
        `readerCode.put(key, {c, t, h, p, m})`."""
        data = {"c": self.classes.classes(), "t": {h: t for h, t in self.titles.items() if t is not None},
                "h": self.chunks, "p": prefix, "m": merge_spans([LineSpan(n, n) for n in changed])}
        return f"readerCode.put({json.dumps(key)},{json.dumps(data, separators=(',', ':'), ensure_ascii=False)});\n"


def _row(code: CodeLines, number: int, body: str, first: bool) -> str:
    extra = "".join(f'<span class="rd-sym" id="{html.escape(a)}"></span>'
                    for a in code.anchors.get(number, ()))
    # The counter starts on a chunk's first line: set on the chunk, it stays inside its containment.
    reset = f' style="counter-reset:l {number - 1}"' if first else ""
    row_id = code.ids.get(number) or line_id(number, code.prefix)
    return f'<div id="{row_id}"{reset}{code.rows.get(number, "")}>{extra}{body}</div>'


def _rows(code: CodeLines, start: int, end: int, shrunk: _Shrunk) -> str:
    """Lines `start`..`end` in chunks of `CHUNK`: each numbers its lines by a CSS counter, knows
    its line count (`--n`, its height before it is laid out) and carries its lines' token runs
    (space-separated) in `data-h`, or leaves them to the view's paint script."""
    chunks = []
    lines, all_runs, prefix = code.highlighted.lines, code.highlighted.runs, code.prefix
    encode, untitle = shrunk.classes.encode, shrunk.untitled  # `_Shrunk.line`, inline
    special = code.anchors.keys() | code.rows.keys() | code.ids.keys()  # lines with more than an id
    for first, last in _chunks(start, end, code.breaks):
        rows = []
        for n in range(first, last + 1):
            body = lines[n - 1]
            if "title=" in body:
                body = untitle(body)
            rows.append(_row(code, n, body, n == first) if n == first or n in special
                        else f'<div id="{prefix}L{n}">{body}</div>')  # line_id(n, prefix)
        shrunk.chunks.append(" ".join(map(encode, all_runs[first - 1:last])))
        spec = f' data-h="{shrunk.chunks[-1]}"' if shrunk.inline else ""
        if shrunk.keep is not None and first > shrunk.keep:  # an empty chunk, sized, filled from the part
            spec += f' data-i="{len(shrunk.deferred)}"'
            shrunk.deferred.append("".join(rows))
            rows = []
        chunks.append(f'<div class="rd-k" style="--n:{last - first + 1}"{spec}>{"".join(rows)}</div>')
    return "".join(chunks)


def _chunks(start: int, end: int, breaks: frozenset[int]) -> list[tuple[int, int]]:
    """Lines `start`..`end` as chunks of at most `CHUNK`, a new one at each of `breaks`."""
    out, first = [], start
    while first <= end:
        last = min(end, first + CHUNK - 1)
        last = min([b - 1 for b in breaks if first < b <= last], default=last)
        out.append((first, last))
        first = last + 1
    return out


def _note(note: MarginNote, prefix: str) -> str:
    span = note.lines or line_id(note.start, prefix) + (f"-L{note.end}" if note.end > note.start else "")
    return f'<div class="rd-mn" data-lines="{span}">{note.html}</div>'


def _groups(notes: Sequence[MarginNote]) -> list[tuple[int, int, list[MarginNote]]]:
    """Notes merged into blocks of overlapping line ranges, in line order."""
    out: list[tuple[int, int, list[MarginNote]]] = []
    for note in sorted(notes, key=lambda n: (n.start, n.end)):
        if out and note.start <= out[-1][1]:
            start, end, members = out[-1]
            out[-1] = (start, max(end, note.end), [*members, note])
        else:
            out.append((note.start, note.end, [note]))
    return out


class LineSpan(NamedTuple):
    """Lines `start`..`end` of a file, 1-based and inclusive."""

    start: int
    end: int


def merge_spans(spans: Sequence[LineSpan]) -> list[LineSpan]:
    """Sorted, overlapping or touching spans merged."""
    out: list[LineSpan] = []
    for start, end in sorted(spans):
        if out and start <= out[-1].end + 1:
            out[-1] = LineSpan(out[-1].start, max(out[-1].end, end))
        else:
            out.append(LineSpan(start, end))
    return out


@dataclass(frozen=True)
class SplitView:
    """A code view whose paint data is a script beside its page (`split_code_view`)."""

    html: str
    script: str
    """`readerCode.put(key, {c: classes, t: {href: title}, h: [each chunk's runs], p: the lines'
    id prefix, m: [[first, last], ...] the lines changed since the last edition})`."""
    rows: str = ""
    """A long file's rows past line `KEEP`: each left-out chunk's, after a `RUN_MARK` (the HTML of
    its part, `rows_src`); empty when the HTML holds them all."""


def is_long(code: CodeLines) -> bool:
    """Whether the view of the whole file passes `LONG` tags: two per row, and its lines' own."""
    return 2 * len(code.highlighted.lines) + sum(line.count("<") for line in code.highlighted.lines) > LONG


def split_code_view(code: CodeLines, notes: Sequence[MarginNote], key: str, src: str,
                    changed: Sequence[int] = (), rows_src: str = "") -> SplitView:
    """A whole file's code view with its token runs, classes, link titles and `changed` lines (marked
    `rd-chg`) in a script (`src`, relative to the page; codeview.js loads it as the page loads and
    paints the chunks when it has run) instead of the HTML: a long file's page carries its text,
    links and notes only. With `rows_src` (relative to the page), a long file's chunks past line
    `KEEP` are empty in the HTML (`data-i`), their rows in a part (`SplitView.rows`) that
    codeview.js loads as the page loads and puts in a chunk when it is painted or a row is needed:
    its page stays under 600 KB and 15,000 DOM nodes."""
    shrunk = _Shrunk(inline=False, keep=KEEP if rows_src and is_long(code) else None)
    body, margin = _body(code, notes, None, "", shrunk)
    data = f' data-code="{html.escape(key)}" data-paint="{html.escape(src)}"'
    if shrunk.deferred:
        data += f' id="{ROWS_ID}" data-part="{html.escape(rows_src)}"'
    return SplitView(f'<div class="rd-code highlight{margin}"{data}>{_BAR}{body}</div>',
                     shrunk.script(key, code.prefix, changed),
                     "".join(RUN_MARK + rows for rows in shrunk.deferred))


def code_view(code: CodeLines, notes: Sequence[MarginNote] = (),
              spans: Sequence[LineSpan] | None = None, gap_href: str = "") -> str:
    """The HTML of `spans` of a file (all of it by default), with each note beside its lines.

    Lines covered by notes form a block with the notes in a margin column (`rd-margin`); the rest
    of the lines form plain blocks, which keep the column free for `RUN_ON` lines after a noted
    block (a long note runs on beside them) and beyond that take the whole width (`rd-free`).
    Between two shown spans a gap line says which lines are left out and links to `gap_href`
    (the whole file's page) when given. A bar above the lines holds the wrap toggle (codeview.js).
    """
    shrunk = _Shrunk()
    body, margin = _body(code, notes, spans, gap_href, shrunk)  # first: it fills the tables
    return f'<div class="rd-code highlight{margin}"{shrunk.attributes()}>{_BAR}{body}</div>'


def _body(code: CodeLines, notes: Sequence[MarginNote], spans: Sequence[LineSpan] | None,
          gap_href: str, shrunk: _Shrunk) -> tuple[str, str]:
    """The view's blocks and gaps, and its margin class (" rd-margin" when a note is beside them)."""
    total = len(code.highlighted.lines)
    shown = merge_spans([LineSpan(max(1, a), min(total, b)) for a, b in (spans or [LineSpan(1, total)]) if a <= total])
    parts: list[str] = []
    previous_end = 0
    noted = False
    for start, end in shown:
        if start > previous_end + 1:
            parts.append(_gap(previous_end + 1, start - 1, code.prefix, gap_href))
        inside = [MarginNote(max(n.start, start), min(n.end, end), n.html, n.lines)
                  for n in notes if n.start <= end and n.end >= start]
        cursor, after_note = start, False
        for g_start, g_end, members in _groups(inside):
            if g_start > cursor:
                parts.append(_plain(code, cursor, g_start - 1, shrunk, after_note))
            notes_html = "".join(_note(m, code.prefix) for m in members)
            parts.append(f'<div class="rd-block rd-noted"><div class="rd-lines">'
                         f'{_rows(code, g_start, g_end, shrunk)}</div>'
                         f'<aside class="rd-notes"><div class="rd-ns">{notes_html}</div></aside></div>')
            cursor, after_note = g_end + 1, True
            noted = True
        if cursor <= end:
            parts.append(_plain(code, cursor, end, shrunk, after_note))
        previous_end = end
    if shown and previous_end < total:
        parts.append(_gap(previous_end + 1, total, code.prefix, gap_href))
    return "".join(parts), " rd-margin" if noted else ""


_BAR = ('<div class="rd-bar"><button type="button" class="rd-wrap" aria-pressed="true" '
        'title="Long lines wrap at spaces, their continuation indented; off, they scroll sideways">'
        'Wrap long lines</button></div>')
"""The wrap toggle's place, kept from the start (codeview.js wires it; without it, hidden)."""


def _plain(code: CodeLines, start: int, end: int, shrunk: _Shrunk, after_note: bool) -> str:
    """Plain lines: the first `RUN_ON` after a noted block keep the notes' column, the rest are free."""
    keep = min(end, start + RUN_ON - 1) if after_note else start - 1
    out = ""
    for first, last, cls in ((start, keep, "rd-block"), (keep + 1, end, "rd-block rd-free")):
        if first <= last:
            out += f'<div class="{cls}"><div class="rd-lines">{_rows(code, first, last, shrunk)}</div></div>'
    return out


def _gap(start: int, end: int, prefix: str, href: str) -> str:
    text = f"lines {start}\u2013{end} not shown" if end > start else f"line {start} not shown"
    if href:
        text = f'<a href="{html.escape(href)}#{line_id(start)}">{text}</a>'
    return f'<div class="rd-gap">\u22ef {text}</div>'
