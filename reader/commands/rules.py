"""`reader rules [--backend tpu|triton|mosaic_gpu] [--json]`: the lowering rule tables at the pins."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reader.cli import progress
from reader.corpus import Corpus, Project
from reader.extract import build_index
from reader.extract.ruletable import BACKEND_NAMES, RuleTable, load_rules


def add_parser(sub) -> None:
    p = sub.add_parser("rules", help="print each Pallas backend's lowering rule table at the pins")
    p.add_argument("--backend", choices=BACKEND_NAMES, help="only this backend (default: all)")
    p.add_argument("--json", action="store_true", help="print the tables as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    corpus = Corpus.open(Project.load(Path(args.project)), progress=progress)
    tables = [t for t in load_rules(corpus, build_index(corpus))
              if args.backend in (None, t.backend)]
    if args.json:
        print(json.dumps([t.to_json() for t in tables], indent=1))
    else:
        for table in tables:
            print_table(table)
    return 0


def print_table(table: RuleTable) -> None:
    """One table: a heading, then a line per primitive with its rule and where both live."""
    key = f" [{table.key}]" if table.key else ""
    print(f"{table.backend}{key}: {len(table.entries)} primitives")
    for e in sorted(table.entries, key=lambda e: (e.primitive.name, e.primitive.dotted)):
        rule = " ".join(e.rule.text.split())
        print(f"  {e.primitive.name:<28} {e.primitive.dotted:<56} {rule}  "
              f"(def {e.rule.path}:{e.rule.line}; registered {e.path}:{e.line}, {e.form})")
    print()
