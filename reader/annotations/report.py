"""Printers for `reader check`: plain lines, GitHub Actions annotations, and a JSON report."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict

from reader.annotations.check import CheckReport
from reader.annotations.model import Problem, ResolvedNote, Review, Severity


def text(report: CheckReport) -> list[str]:
    """One `path:line: message; what to do` line per problem."""
    return [str(p) for p in report.problems]


def _escape(value: str, prop: bool = False) -> str:
    out = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if prop else out


def github(report: CheckReport) -> list[str]:
    """GitHub Actions workflow commands: errors and findings fail, moved notes warn."""
    out = []
    for p in report.problems:
        level = "warning" if p.severity is Severity.NOTICE else "error"
        props = f"file={_escape(p.where.path, True)}"
        if p.where.line:
            props += f",line={p.where.line}"
        message = p.message + (f"; {p.hint}" if p.hint else "")
        out.append(f"::{level} {props},title=reader check::{_escape(message)}")
    return out


def summary(report: CheckReport) -> str:
    """One line for stderr: how many files, notes, statuses and problems."""
    statuses: Counter[str] = Counter(r.status.value for a in report.articles for r in a.notes)
    notes = sum(statuses.values())
    kinds = Counter(p.severity.value for p in report.problems)
    parts = [f"{report.files} annotation file{'' if report.files == 1 else 's'}",
             f"{notes} note{'' if notes == 1 else 's'}"]
    if statuses:
        parts[-1] += " (" + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) + ")"
    parts.append(", ".join(f"{kinds[k]} {k}{'' if kinds[k] == 1 else 's'}"
                           for k in ("error", "finding", "notice")))
    return "reader check: " + "; ".join(parts)


def _note(r: ResolvedNote) -> dict[str, object]:
    span = r.anchor.span
    return {"id": r.note.id, "line": r.note.where.line, "pin": r.pin, "path": r.path,
            "status": r.status.value, "span": [span.start, span.end] if span else None,
            "fingerprint": r.anchor.fingerprint, "recorded_fingerprint": r.note.fingerprint,
            "recorded_line": r.note.line, "message": r.anchor.message,
            "candidates": [[c.start, c.end] for c in r.anchor.candidates],
            "review": review_json(r.note.review)}


def review_json(review: Review | None) -> dict[str, object] | None:
    """A note's re-read mark as its YAML has it (None when unmarked)."""
    if review is None:
        return None
    was = review.was
    return {"reason": review.reason, "confidence": review.confidence,
            "was": {"path": was.path, "lines": list(was.lines), "blob": was.blob,
                    "commit": was.commit},
            "claim": asdict(review.claim) if review.claim else None}


def _problem(p: Problem) -> dict[str, object]:
    return {"path": p.where.path, "line": p.where.line, "severity": p.severity.value,
            "message": p.message, "hint": p.hint, "note": p.note or None,
            "status": p.status.value if p.status else None, "review": review_json(p.review)}


def as_json(report: CheckReport) -> str:
    """The machine report: per-article note counts and statuses, every note, every problem."""
    articles = [{"path": a.path, "slug": a.slug, "notes": len(a.notes), "statuses": a.statuses(),
                 "resolved": [_note(r) for r in a.notes]} for a in report.articles]
    kinds = Counter(p.severity.value for p in report.problems)
    return json.dumps({
        "exit_code": report.exit_code,
        "files": report.files,
        "facts_checked": report.facts_checked,
        "claims": report.claims,
        "counts": {k: kinds[k] for k in ("error", "finding", "notice")},
        "articles": articles,
        "problems": [_problem(p) for p in report.problems],
        "review": to_review(report),
    }, indent=1)


def to_review(report: CheckReport) -> list[dict[str, object]]:
    """The notes marked for re-reading, the surest placement first: where each is now (`path`,
    `span`, `status`) and its mark's fields."""
    marked = sorted(((a.path, r) for a in report.articles for r in a.notes if r.note.review),
                    key=lambda m: (-(m[1].note.review.confidence if m[1].note.review else 0),
                                   m[0], m[1].note.where.line or 0))
    return [{"note": r.note.id, "file": file, "line": r.note.where.line, "pin": r.pin,
             "path": r.path, "span": [r.span.start, r.span.end] if r.span else None,
             "status": r.status.value, **(review_json(r.note.review) or {})} for file, r in marked]
