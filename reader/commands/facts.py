"""`reader facts [--json]`: the computed facts that `{{fact:NAME}}` in article prose may cite."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from reader.corpus import Corpus, Project


def add_parser(sub) -> None:
    p = sub.add_parser("facts", help="print the facts computed from the pinned source (exit 1 "
                                     "when an extractor cannot compute some of them)")
    p.add_argument("--json", action="store_true",
                   help="print {name: {value, about, path, line}} as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from reader.extract.providers import load_facts

    corpus = Corpus.open(Project.load(Path(args.project)))
    facts = load_facts(corpus)
    if args.json:
        print(json.dumps({f.name: {k: v for k, v in asdict(f).items() if k != "name"}
                          for f in facts}, indent=1))
    else:
        for f in facts:
            value = f.value if not isinstance(f.value, str) or "\n" not in f.value else "(table)"
            where = f"  ({f.path}:{f.line})" if f.path and f.line else (f"  ({f.path})" if f.path else "")
            print(f"{f.name} = {value}{where}")
    for u in facts.unknown:
        print(f"reader facts: {u}" + (f"; {u.hint}" if u.hint else ""), file=sys.stderr)
    return 1 if facts.unknown else 0
