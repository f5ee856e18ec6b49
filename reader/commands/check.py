"""`reader check [--format text|github|json]`: every annotation against the pinned code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reader.annotations import check as checking
from reader.annotations import report as printers
from reader.cache import Cache
from reader.cli import progress
from reader.corpus import Corpus, Project


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="validate every annotation file against the pinned code "
                                     "(exit 0 clean, 1 findings, 2 input errors)")
    p.add_argument("--format", choices=("text", "github", "json"), default="text",
                   help="text: path:line: message; github: Actions annotations; json: a report")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.project)
    cache = Cache()
    with cache.staged() as staging:  # input errors (exit 2) leave the cache as it was
        report = checking.check(root, lambda: Corpus.open(Project.load(root), cache,
                                                          progress=progress),
                                checking.computed_facts, cache)
        if report.exit_code == 2:
            staging.discard()
    if args.format == "json":
        print(printers.as_json(report))
    else:
        lines = printers.github(report) if args.format == "github" else printers.text(report)
        for line in lines:
            print(line)
        print(printers.summary(report), file=sys.stderr)
    return report.exit_code
