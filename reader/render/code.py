"""The code view: numbered, anchored source lines in blocks, with notes beside the lines they explain."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from reader.render.urls import line_id


@dataclass(frozen=True)
class MarginNote:
    """A note's HTML, placed beside lines `start`..`end` (1-based, inclusive) of the file shown."""

    start: int
    end: int
    html: str


@dataclass(frozen=True)
class CodeLines:
    """What a code view shows of one file: its per-line HTML and extra anchors."""

    lines: Sequence[str]
    """Highlighted (and linked) HTML of every line of the file; index 0 is line 1."""
    prefix: str = ""
    """Prefix of the line anchors (`L12` or `core-L12`)."""
    anchors: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Extra element ids per line: the symbols defined there (`BlockSpec`, `BlockSpec.replace`)."""


def _row(code: CodeLines, number: int) -> str:
    lid = line_id(number, code.prefix)
    extra = "".join(f'<span class="rd-sym" id="{html.escape(a)}"></span>'
                    for a in code.anchors.get(number, ()))
    return (f'<div class="rd-l" id="{lid}"><a class="rd-n" href="#{lid}" data-n="{number}" '
            f'aria-label="line {number}"></a>{extra}<span class="rd-c">{code.lines[number - 1]}</span></div>')


def _rows(code: CodeLines, start: int, end: int) -> str:
    return "\n".join(_row(code, n) for n in range(start, end + 1))


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


def merge_spans(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, overlapping or touching spans merged."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def code_view(code: CodeLines, notes: Sequence[MarginNote] = (),
              spans: Sequence[tuple[int, int]] | None = None, gap_href: str = "") -> str:
    """The HTML of `spans` of a file (all of it by default), with each note beside its lines.

    Lines covered by notes form a block with the notes in a margin column; the rest of the lines
    form plain blocks. Between two shown spans a gap line says which lines are left out and links
    to `gap_href` (the whole file's page) when given.
    """
    total = len(code.lines)
    shown = merge_spans([(max(1, a), min(total, b)) for a, b in (spans or [(1, total)]) if a <= total])
    parts: list[str] = []
    previous_end = 0
    for start, end in shown:
        if start > previous_end + 1:
            parts.append(_gap(previous_end + 1, start - 1, code.prefix, gap_href))
        inside = [MarginNote(max(n.start, start), min(n.end, end), n.html)
                  for n in notes if n.start <= end and n.end >= start]
        cursor = start
        for g_start, g_end, members in _groups(inside):
            if g_start > cursor:
                parts.append(_plain(code, cursor, g_start - 1))
            notes_html = "\n".join(m.html for m in members)
            parts.append(f'<div class="rd-block rd-noted"><div class="rd-lines">{_rows(code, g_start, g_end)}'
                         f'</div><aside class="rd-notes">{notes_html}</aside></div>')
            cursor = g_end + 1
        if cursor <= end:
            parts.append(_plain(code, cursor, end))
        previous_end = end
    if shown and previous_end < total:
        parts.append(_gap(previous_end + 1, total, code.prefix, gap_href))
    return f'<div class="rd-code highlight">{"".join(parts)}</div>'


def _plain(code: CodeLines, start: int, end: int) -> str:
    return f'<div class="rd-block"><div class="rd-lines">{_rows(code, start, end)}</div></div>'


def _gap(start: int, end: int, prefix: str, href: str) -> str:
    text = f"lines {start}\u2013{end} not shown" if end > start else f"line {start} not shown"
    if href:
        text = f'<a href="{html.escape(href)}#{line_id(start)}">{text}</a>'
    return f'<div class="rd-gap">\u22ef {text}</div>'
