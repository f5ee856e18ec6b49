"""`reader diff [OLD [NEW]] [--format text|markdown|json]`: what moving the pins does to the track."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from reader.cache import Cache
from reader.errors import InputError, Location

if TYPE_CHECKING:
    from reader.move.record import MoveRecord

FORMATS = ("json", "markdown", "text")
"""The printers of `reader.move.printers.PRINTERS` (named here so that parsing imports no diff code)."""


def add_parser(sub) -> None:
    p = sub.add_parser("diff", help="what a pin move does: notes, symbols, rule tables, facts",
                       description="Compare two pin sets. OLD and NEW are pins files (the lock beside "
                       "each) or REV:pins.toml from the project's git history. Exit 0 when no note "
                       "needs a person, 1 otherwise, 2 on input errors.")
    p.add_argument("old", nargs="?", default="HEAD:pins.toml", metavar="OLD",
                   help="default: HEAD:pins.toml")
    p.add_argument("new", nargs="?", default="", metavar="NEW",
                   help="default: the working tree's pins.toml")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="markdown is ready to paste as a pull-request comment")
    p.add_argument("--apply", action="store_true",
                   help="write every note's proposed place into annotations/ (path, symbol, "
                        "lines, quote, fingerprint, line) and a re-read mark (`review:`) on each "
                        "note whose code or claim changed or whose place is not certain: "
                        "'reader check' then lists them, the surest first")
    p.add_argument("--record", metavar="FILE", default="",
                   help="also write the move's record (JSON) for the site's 'What changed' page: "
                        "each note's fate from the annotations at OLD's revision (OLD must be "
                        "REV:pins.toml) to those now, with the code changes; e.g. moves/NAME.json")
    p.add_argument("--no-claims", action="store_true",
                   help="do not run the claims (by default each runs with the old and the new "
                        "releases installed: a venv under the cache for releases not installed here)")
    p.add_argument("--claim-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="the time limit of one claim (default 120)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                   help="child processes running claims at once")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from reader.children import Children
    from reader.move.compare import ClaimRuns, diff_sides
    from reader.move.printers import PRINTERS
    from reader.move.sides import is_rev_spec
    from reader.opening import load_side
    from reader.render.figures.registry import unreadable

    root = Path(args.project)
    old = load_side(root, args.old)
    new = load_side(root, args.new or str(root / "pins.toml"))
    if args.apply and Path(new.label).resolve() != (root / "pins.toml").resolve():
        raise InputError(f"--apply records lines at the working tree's pins, not at {new.label}",
                         Location(new.label), "drop NEW, or run 'reader pin' first")
    rev = args.old.partition(":")[0] if is_rev_spec(args.old) else ""
    if args.record and not rev:
        raise InputError("--record reads the old annotations from git, so OLD must be REV:pins.toml",
                         Location(args.old), "e.g. reader diff HEAD~3:pins.toml --record moves/x.json")
    cache = Cache()
    claims = None if args.no_claims else ClaimRuns(Children(), args.claim_timeout, max(1, args.jobs))
    report = diff_sides(root, old, new, cache, claims=claims, figures=unreadable)
    sys.stdout.write(PRINTERS[args.format](report))
    if args.record:
        _record(root, rev, old, new, report, cache, Path(args.record))
    if args.apply:
        _apply(root, old, report, cache)
    return report.exit_code


def _apply(root: Path, old, report, cache: Cache) -> None:
    from reader.annotations import load_articles
    from reader.atomic import atomic_write_all
    from reader.corpus import Corpus, Project
    from reader.move.apply import apply_proposals
    from reader.move.changes import ClaimChange, NoteChange

    proposals = {c.note: c.proposal for c in report.changes
                 if isinstance(c, NoteChange) and c.proposal is not None}
    claims = [c for c in report.changes if isinstance(c, ClaimChange)]
    done = apply_proposals(root, load_articles(root), proposals,
                           Corpus.open(Project(root, old.pins, old.locks), cache),
                           Corpus.open(Project.load(root), cache), claims)
    atomic_write_all(done.files)  # every changed annotation file, all or none
    for line in done.pages:
        print(line, file=sys.stderr)
    print(f"reader diff --apply: {len(done.placed)} notes placed anew; {len(done.marked)} marked "
          f"for a person to re-read ('reader check' lists them, the surest first)"
          + (f", {len(done.orphans)} of them without a place" if done.orphans else ""),
          file=sys.stderr)


def _record(root: Path, rev: str, old, new, report, cache: Cache, out: Path) -> None:
    from reader.annotations import load_articles
    from reader.corpus import Corpus, Project
    from reader.move.record import FATES, move_record
    from reader.opening import articles_at

    old_corpus = Corpus.open(Project(root, old.pins, old.locks), cache)
    new_corpus = Corpus.open(Project(root, new.pins, new.locks), cache)
    from reader import gitio

    commit = gitio.commit_of(root, rev)  # `HEAD` names another commit tomorrow
    record = move_record(report, commit, articles_at(root, commit), load_articles(root), old_corpus,
                         new_corpus)
    write_record(record, out)
    counts = {f: sum(1 for x in record.fates if x.fate == f) for f in FATES}
    print(f"reader diff --record: {out}: " + ", ".join(f"{n} {f}" for f, n in counts.items() if n),
          file=sys.stderr)


def write_record(record: MoveRecord, path: Path) -> None:
    """The move's record as JSON at `path` (`moves/NAME.json`), whole or not at all."""
    from reader.atomic import atomic_write

    atomic_write(path, (json.dumps(record.to_json(), indent=1, sort_keys=True) + "\n").encode())
