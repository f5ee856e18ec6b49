"""A changed file's diff page (its hunks: `reader/editions/filediffs.py`), unified or side by side,
each side highlighted and cross-referenced like a source page, the notes of both editions beside it."""

from __future__ import annotations

import difflib
import html
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from markupsafe import Markup

from reader.cache import Cache
from reader.editions.filediffs import ChangedFile, FileDiff, Op
from reader.model import split_lines
from reader.packed import packed_call
from reader.render.code.annotated import linked_lines, note_html, page_markdown
from reader.render.code.highlight import Highlight, Runs
from reader.render.code.view import PAINT_DIR, CodeLines, MarginNote, code_view
from reader.render.common.model import Asset, NoteView, Page, SourceDoc
from reader.render.common.prose import Prose
from reader.render.common.templates import render
from reader.render.common.urls import diff_page, rel, rel_file, source_page


@dataclass(frozen=True)
class Row:
    """One row of the unified view: its line's HTML and runs, its attributes, and the line it
    shows of each file (0: none; both for an unchanged line)."""

    html: str
    runs: Runs
    attrs: str
    old: int = 0
    new: int = 0

    @property
    def id(self) -> str:
        """The line it shows, by its number in its file: `new-L28` (added or unchanged), `old-L3`."""
        return f"new-L{self.new}" if self.new else f"old-L{self.old}" if self.old else ""


def _line(lines: Highlight, number: int, cls: str, label: str, old: int, new: int, words: str = "") -> Row:
    marks = f' data-w="{words}"' if words else ""
    return Row(lines.lines[number - 1], lines.runs[number - 1],
               f' class="{cls}" data-l="{html.escape(label)}"{marks}', old, new)


_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+def|def|class)[ \t]+\w")


def enclosing(lines: Sequence[str], at: int) -> str:
    """The head line of the def or class enclosing line `at` (0-based) of `lines`, stripped: going
    up from it, the first def or class indented less than every statement passed ("" at top level).
    Comments and lines that close brackets are passed over (a signature's `):`)."""
    first = next((t.expandtabs() for t in lines[at:at + 50] if t.strip()), "")
    level = len(first) - len(first.lstrip())
    for k in range(min(at, len(lines)) - 1, -1, -1):
        if level == 0:
            break
        line = lines[k].expandtabs()
        body = line.lstrip()
        if not body or body.startswith(("#", ")", "]", "}")):
            continue
        indent = len(line) - len(body)
        if indent < level:
            if _DEF.match(line):
                return line.strip()
            level = indent
    return ""


def _hunk_head(hunk: Sequence[Op], old_lines: Sequence[str], new_lines: Sequence[str]) -> Row:
    a, c = hunk[0][1], hunk[0][3]
    b, d = hunk[-1][2], hunk[-1][4]
    text = f"@@ -{a + 1},{b - a} +{c + 1},{d - c} @@"
    change = next((op for op in hunk if op[0] != "equal"), hunk[0])
    scope = enclosing(new_lines, change[3]) if change[0] != "delete" else enclosing(old_lines, change[1])
    head = f"{text} {scope[:100]}" if scope else text
    return Row(html.escape(head), ("c", len(head)), ' class="rd-hunk" data-l=""')


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def word_changes(old: str, new: str) -> tuple[str, str]:
    """The parts of two paired lines that differ, by words: each side's changed character ranges
    as `start-end` pairs (end exclusive), space-separated; both empty when the lines share too
    little for a word's change to say more than the line's."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < 0.4:
        return "", ""
    starts_a = [0, *itertools.accumulate(len(t) for t in a)]
    starts_b = [0, *itertools.accumulate(len(t) for t in b)]
    left, right = [], []
    for tag, i, j, k, m in matcher.get_opcodes():
        if tag == "equal":
            continue
        if j > i:
            left.append(f"{starts_a[i]}-{starts_a[j]}")
        if m > k:
            right.append(f"{starts_b[k]}-{starts_b[m]}")
    return " ".join(left), " ".join(right)


def unified_rows(diff: FileDiff, old: Highlight, new: Highlight,
                 old_text: str = "", new_text: str = "") -> list[Row]:
    """The unified view: each hunk's head (with the def or class its change is in), its unchanged
    lines once, removed lines, added lines; a removed line and the added one paired with it (the
    n-th of each in a change) carry the characters their words changed (`data-w`). diff.js builds
    the side-by-side view from these rows: a removed line beside the added line that replaced it."""
    old_lines, new_lines = split_lines(old_text), split_lines(new_text)
    rows = []
    for hunk in diff.hunks:
        rows.append(_hunk_head(hunk, old_lines, new_lines))
        for tag, a, b, c, d in hunk:
            if tag == "equal":
                rows += [_line(new, c + k + 1, "rd-eq", f"{a + k + 1:>5} {c + k + 1:>5}", a + k + 1, c + k + 1)
                         for k in range(b - a)]
                continue
            words = [word_changes(old_lines[a + k], new_lines[c + k]) if tag == "replace" and
                     a + k < len(old_lines) and c + k < len(new_lines) else ("", "")
                     for k in range(min(b - a, d - c))]
            rows += [_line(old, n + 1, "rd-del", f"{n + 1:>5}      -", n + 1, 0,
                           words[n - a][0] if n - a < len(words) else "") for n in range(a, b)]
            rows += [_line(new, n + 1, "rd-add", f"      {n + 1:>5} +", 0, n + 1,
                           words[n - c][1] if n - c < len(words) else "") for n in range(c, d)]
    return rows


def _view(rows: Sequence[Row], notes: Sequence[MarginNote]) -> str:
    """The unified view of `rows`, each row's id the line it shows (`Row.id`); a hunk's head
    `hunk-<n>`."""
    heads = [n for n, r in enumerate(rows, 1) if r.attrs.startswith(' class="rd-hunk"')]
    ids = {n: r.id or f"hunk-{heads.index(n) + 1}" for n, r in enumerate(rows, 1)}
    code = CodeLines(Highlight([r.html for r in rows], [r.runs for r in rows]), "u", {},
                     {n: r.attrs for n, r in enumerate(rows, 1)}, frozenset(heads), ids)
    return code_view(code, notes)


def _placed(notes: Sequence[NoteView], rows: Sequence[Row], old: bool, page: str,
            prose: Prose, edition: str = "") -> list[MarginNote]:
    """Each note beside the rows showing its lines: of the new file, or (`old`) of the old one
    (the previous edition's notes, tagged with its name, `edition`), its head linking the first
    row. A note none of whose lines a row shows is left out."""
    at = {(r.old if old else r.new): n for n, r in enumerate(rows, 1)}
    at.pop(0, None)
    side = "old" if old else "new"
    out = []
    for note in notes:
        if note.start is None:
            continue
        shown = [k for k in range(note.start, (note.end or note.start) + 1) if k in at]
        if shown:  # its head names the lines shown, and links the row of the first
            head = replace(note, start=shown[0], end=shown[-1])
            first = at[shown[0]]
            lines = f"{side}-L{shown[0]}" + (f"-L{shown[-1]}" if shown[-1] > shown[0] else "")
            out.append(MarginNote(first, at[shown[-1]], note_html(head, page, False, prose, edition=edition,
                                                                  first_line=rows[first - 1].id), lines))
    return out


def diff_page_of(doc: SourceDoc, old: SourceDoc, diff: FileDiff, edition: str, release: str,
                 cache: Cache | None, prose: Prose, was_prose: Prose,
                 files: Sequence[ChangedFile] = (), changes_page: str = "",
                 blocks: Sequence[tuple[str, Sequence[tuple[int, int, int, int]]]] = ()) -> Page:
    """The diff page of one file between the previous edition (`old`, its refs resolved against
    the current pins, its notes the previous edition's) and now: the unified view, with this
    edition's notes beside the new lines and the previous edition's beside the old ones (diff.js
    builds the side-by-side view from it when the reader chooses it). `was_prose` renders the
    previous edition's notes, its facts the previous edition's. `files`: every changed file, which
    the page links (the previous and next ones; the list of them in a script, `FILES_SCRIPT`, and on
    the move's page, `changes_page`); the first page brings `blocks`, every file's changes, in
    `LINES_SCRIPT`."""
    page = diff_page(doc.path)
    unified = unified_rows(diff, linked_lines(old, page, cache), linked_lines(doc, page, cache), old.text, doc.text)
    notes = [*_placed(doc.notes, unified, False, page, prose),
             *_placed(old.notes, unified, True, page, was_prose, edition)]
    title = f"{doc.path}: changes since {edition}"
    at = next((i for i, f in enumerate(files) if f.path == doc.path), -1)

    def link(f: ChangedFile | None) -> dict[str, str] | None:
        return {"path": f.path, "href": rel(page, diff_page(f.path))} if f is not None else None
    body = render("diff.j2", path=doc.path, edition=edition, release=release, diff=diff,
                  source=rel(page, source_page(doc.path)), lines=len(doc.text.splitlines()),
                  paint=rel_file(page, f"{PAINT_DIR}/{doc.path}.js"),
                  unified=Markup(_view(unified, notes)), count=len(files),
                  files_src=rel_file(page, FILES_SCRIPT), changes=rel(page, changes_page),
                  before=link(files[at - 1] if at > 0 else None),
                  after=link(files[at + 1] if 0 <= at < len(files) - 1 else None))
    # The list of every changed file, one script for all the diff pages: the first one brings it.
    assets = (files_script(files), lines_script(blocks)) if files and at == 0 else ()
    return Page(page, title, page_markdown(title, ["toc", "navigation"]), body, assets)


FILES_SCRIPT = "assets/diffs.js"
"""Every changed file with its counts: `readerDiffFiles.put([[path, added, removed], ...])`, loaded by
diff.js when a diff page's list of them opens (a page each carried it: 10.9 MB on the real site)."""


LINES_SCRIPT = "assets/lines.js"
"""How each changed file's lines map between the previous edition and this one, packed:
`readerLines.put("lines", {path: [[a, b, c, d], ...]})` (old [a, b), new [c, d), 0-based; a file
not in it did not change), loaded by editions.js when the edition switch carries a line (a script
per file was 210 files of mostly slack)."""


def lines_script(blocks: Sequence[tuple[str, Sequence[tuple[int, int, int, int]]]]) -> Asset:
    body = json.dumps({path: [list(b) for b in changes] for path, changes in blocks}, separators=(",", ":"))
    return Asset(LINES_SCRIPT, packed_call(f'readerLines.put("lines",{body});\n'.encode()))


def files_script(files: Sequence[ChangedFile]) -> Asset:
    rows = json.dumps([[f.path, f.added, f.removed] for f in files], separators=(",", ":"))
    return Asset(FILES_SCRIPT, f"readerDiffFiles.put({rows});\n".encode())


