"""`reader rules [--backend tpu|triton|mosaic_gpu] [--history] [--json]`: the lowering rule tables at
the pins, or each primitive's rules across the releases of the pin's history."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reader.corpus import Corpus, Project
from reader.errors import InputError, Location, ReaderError
from reader.extract import build_index
from reader.extract.providers import load_rules
from reader.extract.rulehistory import RuleHistory, start_history
from reader.extract.ruletable import BACKEND_NAMES, RuleTable
from reader.opening import older_corpora
from reader.releases import Archives
from reader.workers import Workers


def add_parser(sub) -> None:
    p = sub.add_parser("rules", help="print each Pallas backend's lowering rule table at the pins")
    p.add_argument("--backend", choices=BACKEND_NAMES, help="only this backend (default: all)")
    p.add_argument("--history", action="store_true",
                   help="each primitive's rules across the releases of the pin's `history` "
                        "(read from their archives); exit 1 when a release could not be read")
    p.add_argument("--json", action="store_true", help="print the tables (or the history) as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    corpus = Corpus.open(Project.load(Path(args.project)))
    workers = Workers()
    history = start_history(corpus, workers, Archives(corpus.project.root, corpus.cache), editions=_editions(corpus)) \
        if args.history else None  # the releases, meanwhile
    try:
        tables = load_rules(corpus, build_index(corpus, workers=workers))
        if history is not None:
            return run_history(history(tables), args)
    finally:
        workers.close()
    tables = [t for t in tables if args.backend in (None, t.backend)]
    if args.json:
        print(json.dumps([t.to_json() for t in tables], indent=1))
    else:
        for table in tables:
            print_table(table)
    return 0


def _editions(corpus: Corpus) -> list[Corpus]:
    """The older editions' files, as the site's build reads the history with them; none when the
    project's git history lacks one (each release is then read from its archive)."""
    try:
        return older_corpora(corpus.project.root, corpus.cache)
    except ReaderError:
        return []


def print_table(table: RuleTable) -> None:
    """One table: a heading, then a line per primitive with its rule and where both live."""
    key = f" [{table.key}]" if table.key else ""
    print(f"{table.backend}{key}: {len(table.entries)} primitives")
    for e in sorted(table.entries, key=lambda e: (e.primitive.name, e.primitive.dotted)):
        rule = " ".join(e.rule.text.split())
        print(f"  {e.primitive.name:<28} {e.primitive.dotted:<56} {rule}  "
              f"(def {e.rule.path}:{e.rule.line}; registered {e.path}:{e.line}, {e.form})")
    print()


def run_history(history: RuleHistory | None, args: argparse.Namespace) -> int:
    if history is None:
        raise InputError("the pin holding the rule tables has no `history`",
                         Location(str(Path(args.project) / "pins.toml")),
                         'add e.g. history = ["jax==0.10.2"] to its [pins.NAME] table')
    if args.json:
        data = history.to_json()
        if args.backend:
            data["tables"] = [t for t in data["tables"] if t["backend"] == args.backend]
            data["primitives"] = [p for p in ({**p, "tables": [t for t in p["tables"]
                                                                 if t["backend"] == args.backend]}
                                              for p in data["primitives"]) if p["tables"]]
        print(json.dumps(data, indent=1, sort_keys=True))
    else:
        print_history(history, args.backend)
    for r in history.failures:
        print(f"reader: {r.spec}: {r.where}: {r.failure}", file=sys.stderr)
    return 1 if history.failures else 0


def print_history(history: RuleHistory, backend: str | None) -> None:
    """Per table: its size at each release, the gains and losses, then a line per primitive with a
    mark per release (+ registered, . not, ? not read) and the release its current rule dates from."""
    versions = [r.version for r in history.releases]
    changes = {(c.backend, c.key): c for c in history.changes()}
    width = max((len(p.primitive.name) for p in history.primitives), default=0)
    print("releases: " + ", ".join(r.spec if r.read else f"{r.spec} (not read)" for r in history.releases))
    print()
    for b, k in history.tables:
        if backend not in (None, b):
            continue
        rows = [(p, low) for p in history.primitives if (low := p.lowered(b, k))]
        counts = [sum(v in low.releases for _, low in rows) if r.read else "?"
                  for v, r in zip(versions, history.releases, strict=True)]
        change = changes[(b, k)]
        print(f"{b}{f' [{k}]' if k else ''}: " + " ".join(map(str, counts)) +
              f" primitives; {len(change.gained)} gained a rule, {len(change.lost)} lost one")
        print(f"  {'':<{width}}  " + " ".join(versions) + "  since")
        for p, low in rows:
            marks = " ".join(f"{'?' if not r.read else '+' if v in low.releases else '.':^{len(v)}}"
                             for v, r in zip(versions, history.releases, strict=True))
            since = history.since(low) or "gone"
            print(f"  {p.primitive.name:<{width}}  {marks}  {since:<8} {p.primitive.dotted}")
        print()
