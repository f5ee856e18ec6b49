"""Three printers over the same `DiffReport`: plain text, Markdown for a pull request, JSON."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable

from reader.diff.changes import (
    Change,
    DiffReport,
    FactChange,
    FileChange,
    NoteChange,
    PinChange,
    RuleChange,
    SymbolChange,
    span_text,
)

NOTE_ORDER = ("changed", "orphaned", "ambiguous", "moved", "unchanged")
STATUSES = ("added", "removed", "moved", "changed")
SYMBOL_MARK = {"added": "+", "removed": "-", "signature": "~", "body": "~"}


def _counts(changes: Iterable[Change], order: Iterable[str]) -> str:
    seen = Counter(c.status for c in changes)
    return ", ".join(f"{seen[s]} {s}" for s in order if seen[s])


def _by_file(changes: list[SymbolChange]) -> dict[str, list[SymbolChange]]:
    out: dict[str, list[SymbolChange]] = defaultdict(list)
    for c in changes:
        out[c.path].append(c)
    return dict(out)


def _summary(report: DiffReport) -> str:
    people = report.needs_person
    if not people:
        return "no note needs a person"
    return f"{len(people)} note{'s' if len(people) != 1 else ''} need{'s' if len(people) == 1 else ''} a person"


# text ------------------------------------------------------------------------------------------
def text(report: DiffReport) -> str:
    out = [f"reader diff {report.old} -> {report.new}: {_summary(report)}"]
    pins = [c for c in report.of("pins") if isinstance(c, PinChange)]
    out += ["", "Pins"] + [f"  {c.explain()}" + (f"\n    {c.compare_url}" if c.compare_url else "")
                           for c in pins] if pins else ["", "Pins: none moved"]
    notes = [c for c in report.of("notes") if isinstance(c, NoteChange)]
    out += ["", f"Notes: {_counts(notes, NOTE_ORDER) or 'none'}"]
    for c in sorted(notes, key=lambda c: (NOTE_ORDER.index(c.status), c.where)):
        if c.status != "unchanged":
            out.append(f"  {c.explain()}")
            out += [f"    {line}" for line in c.diff.splitlines()]
    out += _text_code(report)
    out += _text_simple(report, "rules", "Lowering rule tables")
    out += _text_facts(report)
    return "\n".join(out) + "\n"


def _text_code(report: DiffReport) -> list[str]:
    files = report.of("files")
    symbols = [c for c in report.of("symbols") if isinstance(c, SymbolChange)]
    out = ["", f"Files: {_counts(files, ('added', 'removed', 'unknown')) or 'none added or removed'}"]
    out += [f"  {c.explain()}" for c in files]
    out += ["", f"Symbols: {_counts(symbols, SYMBOL_MARK) or 'no change'}"]
    for path, changes in _by_file(symbols).items():
        out.append(f"  {path}")
        for c in changes:
            out.append(f"    {SYMBOL_MARK[c.status]} {_symbol_line(c)}")
            if c.status == "signature":
                out += [f"        - {c.old_signature}", f"        + {c.new_signature}"]
    return out


def _symbol_line(c: SymbolChange) -> str:
    if c.status == "added":
        return f"{c.qualname} ({c.kind}, line {c.new_line})"
    if c.status == "removed":
        return f"{c.qualname} ({c.kind}, was line {c.old_line})"
    what = "signature" if c.status == "signature" else "annotated; body changed"
    return f"{c.qualname} ({what}, line {c.old_line} -> {c.new_line})"


def _short(value: str, limit: int = 70) -> str:
    return value if len(value) <= limit else value[: limit - 3] + "..."


def _split_facts(report: DiffReport) -> tuple[list[FactChange], list[FactChange]]:
    """(facts some prose cites, the others): the first need reading again, the rest are context."""
    facts = [c for c in report.of("facts") if isinstance(c, FactChange)]
    return [c for c in facts if c.cited_by], [c for c in facts if not c.cited_by]


def _text_facts(report: DiffReport) -> list[str]:
    cited, other = _split_facts(report)
    if report.remark("facts") or not (cited or other):
        return _text_simple(report, "facts", "Facts")
    out = ["", f"Facts: {len(cited) + len(other)} changed, {len(cited)} cited by prose"]
    out += [f"  {c.explain()}" for c in cited]
    if other:
        out.append(f"  cited by no prose ({len(other)}):")
        out += [f"    {c.name}: {_short(c.old)} -> {_short(c.new)}" for c in other]
    return out


def _text_simple(report: DiffReport, section: str, title: str) -> list[str]:
    changes = report.of(section)
    counts = report.remark(section) or _counts(changes, STATUSES) or "no change"
    return ["", f"{title}: {counts}", *[f"  {c.explain()}" for c in changes]]


# markdown --------------------------------------------------------------------------------------
def _cell(value: object) -> str:
    """Table-cell text: pipes escaped, newlines flattened."""
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _code(value: object) -> str:
    text = _cell(value)
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}" if text else ""


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *["| " + " | ".join(row) + " |" for row in rows], ""]


def _details(summary: str, body: list[str]) -> list[str]:
    return ["", "<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>"]


def _fenced(lang: str, text: str) -> list[str]:
    fence = "````" if "```" in text else "```"
    return [f"{fence}{lang}", *text.splitlines(), fence]


def markdown(report: DiffReport) -> str:
    out = [f"## reader diff: {_code(report.old)} → {_code(report.new)}", "",
           f"**{_summary(report)}.**"]
    pins = [c for c in report.of("pins") if isinstance(c, PinChange)]
    out += ["", "### Pins"]
    out += _table(["pin", "old", "new", "upstream"],
                  [[_code(c.pin), f"{_code(c.old[:7])} {_cell(c.old_label)}",
                    f"{_code(c.new[:7])} {_cell(c.new_label)}",
                    f"[compare]({c.compare_url})" if c.compare_url else ""] for c in pins]) \
        if pins else ["", "No pin moved."]
    out += _md_notes([c for c in report.of("notes") if isinstance(c, NoteChange)])
    out += _md_code(report)
    out += _md_simple(report, "rules", "Lowering rule tables", _rule_row,
                      ["table", "primitive", "change", "old rule", "new rule"])
    out += _md_facts(report)
    return "\n".join(out).rstrip() + "\n"


def _md_notes(notes: list[NoteChange]) -> list[str]:
    out = ["", "### Notes", "", _counts(notes, NOTE_ORDER) or "No notes."]
    shown = sorted((c for c in notes if c.status != "unchanged"),
                   key=lambda c: (NOTE_ORDER.index(c.status), c.where))
    if shown:
        out += _table(["note", "annotation", "status", "old lines", "new lines"],
                      [[_code(c.note), _code(c.where), f"**{c.status}**" if c.needs_person
                        else c.status, span_text(c.old), span_text(c.new)] for c in shown])
    for c in shown:
        if c.diff:
            out += _details(f"note <code>{_cell(c.note)}</code>: the anchored code changed",
                            _fenced("diff", c.diff))
    return out





def _md_code(report: DiffReport) -> list[str]:
    files = [c for c in report.of("files") if isinstance(c, FileChange)]
    symbols = [c for c in report.of("symbols") if isinstance(c, SymbolChange)]
    out = ["", "### Files and symbols", "",
           f"Files: {_counts(files, ('added', 'removed', 'unknown')) or 'none added or removed'}. "
           f"Symbols: {_counts(symbols, SYMBOL_MARK) or 'no change'}."]
    if files:
        out += _table(["file", "change"], [[_code(c.path), _cell(c.explain().split(": ", 1)[1])]
                                           for c in files])
    for path, changes in _by_file(symbols).items():
        lines = []
        for c in changes:
            lines.append(f"{SYMBOL_MARK[c.status] if c.status != 'signature' else '!'} "
                         f"{_symbol_line(c)}")
            if c.status == "signature":
                lines += [f"-     {c.old_signature}", f"+     {c.new_signature}"]
            lines += c.diff.splitlines()
        out += _details(f"<code>{_cell(path)}</code>: {_counts(changes, SYMBOL_MARK)}",
                        _fenced("diff", "\n".join(lines)))
    return out


def _rule_row(c: Change) -> list[str]:
    assert isinstance(c, RuleChange)
    return [_code(f"{c.backend}[{c.key}]" if c.key else c.backend), _code(c.primitive), c.status,
            _code(c.old_rule), _code(c.new_rule)]


def _fact_row(c: Change) -> list[str]:
    assert isinstance(c, FactChange)
    return [_code(c.name), _code(c.old), _code(c.new),
            ", ".join(_code(w) for w in c.cited_by) or "no prose"]


def _md_facts(report: DiffReport) -> list[str]:
    cited, other = _split_facts(report)
    if report.remark("facts") or not (cited or other):
        return _md_simple(report, "facts", "Facts", _fact_row, [])
    out = ["", "### Facts", "", f"{len(cited) + len(other)} changed, {len(cited)} cited by prose."]
    if cited:
        out += _table(["fact", "old", "new", "cited by"], [_fact_row(c) for c in cited])
    if other:
        out += _details(f"{len(other)} facts that no prose cites",
                        _table(["fact", "old", "new"], [_fact_row(c)[:3] for c in other]))
    return out


def _md_simple(report: DiffReport, section: str, title: str, row: Callable[[Change], list[str]],
               head: list[str]) -> list[str]:
    changes, remark = report.of(section), report.remark(section)
    if remark or not changes:
        return ["", f"### {title}", "", _cell(remark.capitalize()) if remark else "No change."]
    return ["", f"### {title}", "", _counts(changes, STATUSES) + ".",
            *_table(head, [row(c) for c in changes])]


# json ------------------------------------------------------------------------------------------
def as_json(report: DiffReport) -> str:
    return json.dumps({"old": report.old, "new": report.new, "exit_code": report.exit_code,
                       "needs_person": len(report.needs_person),
                       "remarks": {s: why for s, why in report.remarks},
                       "changes": [c.to_json() for c in report.changes]}, indent=1) + "\n"


PRINTERS: dict[str, Callable[[DiffReport], str]] = {"text": text, "markdown": markdown, "json": as_json}
