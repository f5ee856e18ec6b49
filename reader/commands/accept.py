"""`reader accept NOTE_ID... | --all | --moved`: record that a person re-read notes against the
code (writes only their `fingerprint` and `line`, and removes a pin move's re-read mark)."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from reader.annotations.accept import DELETE, Stamp, edit_notes
from reader.annotations.load import load_all
from reader.annotations.model import Note, ResolvedNote, Status
from reader.annotations.resolve import resolve
from reader.atomic import atomic_write
from reader.corpus import Corpus, Project
from reader.errors import InputError


def add_parser(sub) -> None:
    p = sub.add_parser("accept", help="record notes as re-read: update their fingerprint and line")
    p.add_argument("ids", nargs="*", metavar="NOTE_ID", help="the notes to accept")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--all", action="store_true", help="every note that anchors")
    group.add_argument("--moved", action="store_true", help="only notes whose code moved unchanged")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.project)
    if bool(args.ids) == (args.all or args.moved):
        raise InputError("name the notes to accept, or give --all or --moved (not both)",
                         hint="e.g. 'reader accept pallas-call-signature'")
    loaded = load_all(root)
    problems = [p for f in loaded for p in f.problems]
    if problems:
        for p in problems:
            print(f"reader: error: {p}", file=sys.stderr)
        raise InputError(f"{len(problems)} input errors in annotations/; nothing accepted",
                         hint="fix them first ('reader check' lists them)")
    notes = [(f.path, n) for f in loaded if f.article for n in f.article.notes]
    chosen = _select(notes, args.ids)
    if not chosen:
        print("reader accept: no notes", file=sys.stderr)
        return 0
    corpus = Corpus.open(Project.load(root))
    resolved = [(path, resolve(note, corpus)) for path, note in chosen]
    if args.moved:
        resolved = [(p, r) for p, r in resolved if r.status is Status.MOVED]
    # A move's mark stays on --moved: code that moved unchanged may still need a person's reading.
    return _stamp(root, resolved, keep_marks=args.moved)


def _select(notes: list[tuple[str, Note]], ids: list[str]) -> list[tuple[str, Note]]:
    if not ids:
        return notes
    by_id = {n.id: (p, n) for p, n in notes}
    for nid in ids:
        if nid not in by_id:
            close = difflib.get_close_matches(nid, list(by_id), n=1)
            dym = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(f"no note with id {nid!r} in annotations/{dym}",
                             hint="'reader check --format json' lists the note ids")
    return [by_id[nid] for nid in dict.fromkeys(ids)]


def _stamp(root: Path, resolved: list[tuple[str, ResolvedNote]], keep_marks: bool = False) -> int:
    """Stamp each note's fingerprint and line and remove its re-read mark (unless `keep_marks`)."""
    refused = unchanged = 0
    per_file: dict[str, dict[int, dict[str, object]]] = {}
    for path, r in resolved:
        a, note = r.anchor, r.note
        unmark = note.review is not None and not keep_marks
        if a.status is Status.OK and not unmark:
            unchanged += 1
            continue
        if a.span is None or a.fingerprint is None or not a.acceptable:
            refused += 1
            print(f"reader: cannot accept: {note.where}: note {note.id!r} is {a.status.value}: "
                  f"{a.message}; {a.hint}", file=sys.stderr)
            continue
        edit: dict[str, object] = {**Stamp(a.fingerprint, a.span.start).edit()}
        if unmark:
            edit["review"] = DELETE
        per_file.setdefault(path, {})[note.index] = edit
        print(f"{note.where}: accepted note {note.id!r} ({a.status.value}): "
              f"fingerprint {a.fingerprint}, line {a.span.start}"
              + ("; re-read mark removed" if unmark else ""))
    for path, edits in sorted(per_file.items()):
        file = root / path
        text = file.read_bytes().decode("utf-8")
        atomic_write(file, edit_notes(text, edits, path).encode("utf-8"))
    accepted = sum(len(edits) for edits in per_file.values())
    print(f"reader accept: {accepted} accepted, {unchanged} already ok, {refused} refused",
          file=sys.stderr)
    return 1 if refused else 0
