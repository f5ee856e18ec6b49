"""The Markdown printer: a pull-request comment (GitHub's flavour) that fits GitHub's size limit.

The page is built from blocks, each with a priority. When everything does not fit, blocks are
kept in priority order (what needs a person first, the diffs of annotated bodies last) and every
section says what it left out; `reader diff --format json` always has everything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from reader.move.changes import (
    ClaimChange,
    DiffReport,
    FactChange,
    FileChange,
    NoteChange,
    PinChange,
    RuleChange,
    span_text,
)
from reader.move.fmt import (
    FILE_STATUSES,
    NOTE_ORDER,
    STATUSES,
    SYMBOL_MARK,
    counts,
    notes_in_order,
    split_facts,
    summary,
    symbol_line,
    symbols_by_file,
)

COMMENT_LIMIT = 65_536
"""The most characters GitHub accepts in a comment's body."""
NOTE_DIFF_LINES = 40
"""A changed note's diff is cut after this many lines (the JSON has it whole)."""
SECTIONS = ("head", "pins", "notes", "claims", "code", "rules", "facts")


@dataclass(frozen=True)
class Block:
    """A piece of the comment: kept whole or left out whole."""

    section: str
    priority: int
    """0 is always kept; then lower numbers are kept first."""
    lines: tuple[str, ...]
    what: str = ""
    """What it holds, as the notice of a left-out block names it."""

    @property
    def size(self) -> int:
        return sum(len(line) + 1 for line in self.lines)


def markdown(report: DiffReport, limit: int = COMMENT_LIMIT) -> str:
    blocks = [*_head(report), *_pins(report), *_notes(report), *_claims(report),
              *_files_and_symbols(report),
              *_rules(report), *_facts(report)]
    budget = limit
    for _ in range(8):  # the notices of left-out blocks take room too: shrink until it all fits
        page = _page(blocks, _choose(blocks, budget))
        if len(page) <= limit:
            break
        budget -= len(page) - limit
    return page


def _page(blocks: list[Block], kept: set[int]) -> str:
    out: list[str] = []
    for section in SECTIONS:
        mine = [b for b in blocks if b.section == section]
        out += [line for b in mine if id(b) in kept for line in b.lines]
        left = Counter(b.what for b in mine if id(b) not in kept)
        if left:
            what = ", ".join(f"{n} {_plural(w, n)}" for w, n in left.items())
            out += ["", f"_Left out to fit a comment: {what}; `reader diff --format json` has "
                        "everything._"]
    return "\n".join(out).rstrip() + "\n"


def _plural(what: str, n: int) -> str:
    if n == 1:
        return what
    return what.replace("table of", "tables of") if what.startswith("table of") else what + "s"


def _choose(blocks: list[Block], budget: int) -> set[int]:
    """The ids of the blocks kept: every priority-0 block, then the others by priority."""
    kept, used = set(), 0
    ranked = sorted(range(len(blocks)), key=lambda i: (blocks[i].priority, i))
    for i in ranked:
        b = blocks[i]
        if b.priority == 0 or used + b.size <= budget:
            kept.add(id(b))
            used += b.size
    return kept


# building blocks --------------------------------------------------------------------------------
def _cell(value: object) -> str:
    """Table-cell text: pipes escaped, newlines flattened."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _code(value: object) -> str:
    text = _cell(value)
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if text else ""


def _table(head: list[str], rows: list[list[str]]) -> tuple[str, ...]:
    return ("", "| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(row) + " |" for row in rows), "")


def _details(summary_html: str, body: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return ("", "<details>", f"<summary>{summary_html}</summary>", "", *body, "", "</details>")


def _fenced(lang: str, lines: list[str]) -> list[str]:
    fence = "````" if any("```" in line for line in lines) else "```"
    return [f"{fence}{lang}", *lines, fence]


# sections ---------------------------------------------------------------------------------------
def _head(report: DiffReport) -> list[Block]:
    return [Block("head", 0, (f"## reader diff: {_code(report.old)} → {_code(report.new)}", "",
                              f"**{summary(report)}.**"))]


def _pins(report: DiffReport) -> list[Block]:
    pins = [c for c in report.of("pins") if isinstance(c, PinChange)]
    rows = [[_code(c.pin), f"{_code(c.old[:7])} {_cell(c.old_label)}",
             f"{_code(c.new[:7])} {_cell(c.new_label)}",
             f"[compare]({c.compare_url})" if c.compare_url else ""] for c in pins]
    body = _table(["pin", "old", "new", "upstream"], rows) if pins else ("", "No pin moved.")
    return [Block("pins", 0, ("", "### Pins", *body))]


def _note_row(c: NoteChange) -> list[str]:
    status = f"**{c.status}**" if c.needs_person else c.status
    return [_code(c.note), _code(c.where), status, span_text(c.old), span_text(c.new)]


def _proposed(c: NoteChange) -> str:
    """The place the move proposes, how and how sure (or why there is none)."""
    p = c.proposal
    if p is None:
        return ""
    if p.span is None:
        return f"none: {_cell(p.reason)}"
    where = (f"{_code(p.path)} " if p.path != c.path else "") + span_text(p.span)
    return f"{where} ({p.how}, {p.confidence:.0%})"


def _notes(report: DiffReport) -> list[Block]:
    notes = notes_in_order(report)
    head = ["note", "annotation", "status", "old lines", "new lines"]
    out = [Block("notes", 0, ("", "### Notes", "", counts(notes, NOTE_ORDER) or "No notes."))]
    person = [c for c in notes if c.needs_person]
    if person:
        out.append(Block("notes", 1, _table([*head, "proposed"],
                                            [[*_note_row(c), _proposed(c)] for c in person]),
                         "table of notes that need a person"))
    for c in person:
        if c.diff:
            lines = c.diff.splitlines()
            cut = lines[:NOTE_DIFF_LINES] + ([f"... {len(lines) - NOTE_DIFF_LINES} more lines"]
                                             if len(lines) > NOTE_DIFF_LINES else [])
            out.append(Block("notes", 2, _details(
                f"note <code>{_cell(c.note)}</code>: the anchored code changed",
                _fenced("diff", cut)), "note diff"))
    around = [c for c in notes if c.context]
    if around:
        out.append(Block("notes", 3, ("", "Placed on unchanged lines, but the code around them "
                                          "changed (re-read advised):", *_table(
                                              ["note", "annotation", "changed around it"],
                                              [[_code(c.note), _code(c.where), _code(c.context)]
                                               for c in around])),
                         "table of notes whose surroundings changed"))
    moved = [c for c in notes if c.status == "moved"]
    if moved:
        out.append(Block("notes", 4, ("", "Moved with their code unchanged (`reader diff --apply` "
                                          "records their new lines):", *_table(
                                              head, [_note_row(c) for c in moved])),
                         "table of moved notes"))
    return out


def _claims(report: DiffReport) -> list[Block]:
    rows = [[_code(c.note), _code(c.where), _code(c.source), _code(c.old), _code(c.new)]
            for c in report.of("claims") if isinstance(c, ClaimChange)]
    other = [f"- {c.explain()}" for c in report.of("claims") if not isinstance(c, ClaimChange)]
    if not (rows or other):
        return []
    return [Block("claims", 0, ("", "### Claims: re-read, behaviour changed", *other,
                                *(_table(["note", "claim", "example", "old", "new"], rows)
                                  if rows else ())))]


def _files_and_symbols(report: DiffReport) -> list[Block]:
    files = [c for c in report.of("files") if isinstance(c, FileChange)]
    by_file = symbols_by_file(report)
    symbols = [c for changes in by_file.values() for c in changes]
    out = [Block("code", 0, (
        "", "### Files and symbols", "",
        f"Files: {counts(files, FILE_STATUSES) or 'none added or removed'}. "
        f"Symbols: {counts(symbols, SYMBOL_MARK) or 'no change'}."))]
    if files:
        out.append(Block("code", 5, _table(["file", "change"], [
            [_code(c.path), _cell(c.explain().split(": ", 1)[1])] for c in files]), "file table"))
    for path, changes in by_file.items():
        lines = []
        for c in changes:
            lines.append(f"{'!' if c.status == 'signature' else SYMBOL_MARK[c.status]} "
                         f"{symbol_line(c)}")
            if c.status == "signature":
                lines += [f"-     {c.old_signature}", f"+     {c.new_signature}"]
        out.append(Block("code", 6, _details(f"<code>{_cell(path)}</code>: "
                                             f"{counts(changes, SYMBOL_MARK)}",
                                             _fenced("diff", lines)), "symbol list"))
        bodies = [line for c in changes for line in c.diff.splitlines()]
        if bodies:
            out.append(Block("code", 8, _details(f"<code>{_cell(path)}</code>: bodies of "
                                                 "annotated symbols", _fenced("diff", bodies)),
                             "body diff"))
    return out


def _rule_row(c: RuleChange) -> list[str]:
    return [_code(f"{c.backend}[{c.key}]" if c.key else c.backend), _code(c.primitive), c.status,
            _code(c.old_rule), _code(c.new_rule)]


def _rules(report: DiffReport) -> list[Block]:
    rules = [c for c in report.of("rules") if isinstance(c, RuleChange)]
    line = counts(rules, STATUSES) + "." if rules else "No change."
    head = Block("rules", 0, ("", "### Lowering rule tables", "", line, *_uncomputed(report, "rules")))
    if not rules:
        return [head]
    return [head, Block("rules", 3, _table(["table", "primitive", "change", "old rule", "new rule"],
                                           [_rule_row(c) for c in rules]), "rule table")]


def _uncomputed(report: DiffReport, section: str) -> tuple[str, ...]:
    """What needs a person before the section is whole: always shown."""
    return tuple(f"- **Cannot be computed** at {_code(c.side)}: {_code(c.what)} ({_code(c.where)}: "
                 f"{_cell(c.reason)})" + (f"; cited by {', '.join(_code(w) for w in c.cited_by)}"
                                          if c.cited_by else "") + f"; {c.fix}."
                 for c in report.uncomputed(section))


def _fact_row(c: FactChange, cited: bool = True) -> list[str]:
    row = [_code(c.name), _code(c.old), _code(c.new)]
    return row + [", ".join(_code(w) for w in c.cited_by) or "no prose"] if cited else row


def _facts(report: DiffReport) -> list[Block]:
    cited, other = split_facts(report)
    unknown = _uncomputed(report, "facts")
    if not (cited or other):
        return [Block("facts", 0, ("", "### Facts", "", "No change." if not unknown else "",
                                   *unknown))]
    out = [Block("facts", 0, ("", "### Facts", "",
                              f"{len(cited) + len(other)} changed, {len(cited)} cited by prose.",
                              *unknown))]
    if cited:
        out.append(Block("facts", 3, _table(["fact", "old", "new", "cited by"],
                                            [_fact_row(c) for c in cited]), "fact table"))
    if other:
        out.append(Block("facts", 7, _details(f"{len(other)} facts that no prose cites", _table(
            ["fact", "old", "new"], [_fact_row(c, cited=False) for c in other])), "fact table"))
    return out
