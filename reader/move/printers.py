"""Three printers over the same `DiffReport`: plain text, Markdown for a pull request, JSON."""

from __future__ import annotations

import json
from collections.abc import Callable

from reader.move.changes import DiffReport, PinChange
from reader.move.comment import markdown
from reader.move.fmt import (
    FILE_STATUSES,
    NOTE_ORDER,
    STATUSES,
    SYMBOL_MARK,
    counts,
    notes_in_order,
    short,
    split_facts,
    summary,
    symbol_line,
    symbols_by_file,
)


def text(report: DiffReport) -> str:
    out = [f"reader diff {report.old} -> {report.new}: {summary(report)}"]
    pins = [c for c in report.of("pins") if isinstance(c, PinChange)]
    out += ["", "Pins"] + [f"  {c.explain()}" + (f"\n    {c.compare_url}" if c.compare_url else "")
                           for c in pins] if pins else ["", "Pins: none moved"]
    notes = notes_in_order(report)
    out += ["", f"Notes: {counts(notes, NOTE_ORDER) or 'none'}"]
    for c in notes:
        if c.status != "unchanged" or c.context:
            out.append(f"  {c.explain()}")
            out += [f"    {line}" for line in c.diff.splitlines()]
    out += _claims(report)
    out += _code(report)
    out += _simple(report, "rules", "Lowering rule tables")
    out += _facts(report)
    return "\n".join(out) + "\n"


def _claims(report: DiffReport) -> list[str]:
    changes = report.of("claims")
    if not changes:
        return []
    return ["", f"Claims: {len(changes)} whose behaviour changed or cannot be run",
            *[f"  {c.explain()}" for c in changes]]


def _code(report: DiffReport) -> list[str]:
    files = report.of("files")
    out = ["", f"Files: {counts(files, FILE_STATUSES) or 'none added or removed'}"]
    out += [f"  {c.explain()}" for c in files]
    out += ["", f"Symbols: {counts(report.of('symbols'), SYMBOL_MARK) or 'no change'}"]
    for path, changes in symbols_by_file(report).items():
        out.append(f"  {path}")
        for c in changes:
            out.append(f"    {SYMBOL_MARK[c.status]} {symbol_line(c)}")
            if c.status == "signature":
                out += [f"        - {c.old_signature}", f"        + {c.new_signature}"]
    return out


def _facts(report: DiffReport) -> list[str]:
    cited, other = split_facts(report)
    unknown = report.uncomputed("facts")
    if not (cited or other):
        return _simple(report, "facts", "Facts")
    out = ["", f"Facts: {len(cited) + len(other)} changed, {len(cited)} cited by prose"
               + (f", {len(unknown)} cannot be computed" if unknown else "")]
    out += [f"  {c.explain()}" for c in [*unknown, *cited]]
    if other:
        out.append(f"  cited by no prose ({len(other)}):")
        out += [f"    {c.name}: {short(c.old)} -> {short(c.new)}" for c in other]
    return out


def _simple(report: DiffReport, section: str, title: str) -> list[str]:
    changes = report.of(section)
    heading = counts(changes, STATUSES) or "no change"
    return ["", f"{title}: {heading}", *[f"  {c.explain()}" for c in changes]]


def as_json(report: DiffReport) -> str:
    return json.dumps({"old": report.old, "new": report.new, "exit_code": report.exit_code,
                       "needs_person": len(report.needs_person),
                       "changes": [c.to_json() for c in report.changes]}, indent=1) + "\n"


PRINTERS: dict[str, Callable[[DiffReport], str]] = {"text": text, "markdown": markdown, "json": as_json}
