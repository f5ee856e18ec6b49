"""`reader check [--format text|github|json]`: every annotation against the pinned code."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from reader.annotations import check as checking
from reader.annotations import report as printers
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.render.figures.registry import FIGURES, unreadable


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="validate every annotation file against the pinned code "
                                     "(exit 0 clean, 1 findings, 2 input errors)")
    p.add_argument("--format", choices=("text", "github", "json"), default="text",
                   help="text: path:line: message; github: Actions annotations; json: a report")
    p.add_argument("--run", action="store_true", dest="run_claims",
                   help="also run every claim (a note's `>>>` example) at the pins: a failing "
                        "claim is a finding at its line; outcomes are cached")
    p.add_argument("--claim-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="the time limit of one claim (default 120)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                   help="child processes running claims at once (each imports jax once)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.project)
    cache = Cache()
    # What it computed lands in the cache whatever it finds (results are keyed by their inputs):
    # the next run, in the middle of a move, reads it back.
    with cache.staged():
        report = checking.check(root, lambda: Corpus.open(Project.load(root), cache),
                                checking.computed_facts, cache, figures=FIGURES,
                                figure_reads=unreadable)
        if report.exit_code != 2 and args.run_claims:
            report = _run_claims(root, report, cache, args)
    if args.format == "json":
        print(printers.as_json(report))
    else:
        lines = printers.github(report) if args.format == "github" else printers.text(report)
        for line in lines:
            print(line)
        print(printers.summary(report), file=sys.stderr)
    return report.exit_code


def _run_claims(root: Path, report: checking.CheckReport, cache: Cache,
                args: argparse.Namespace) -> checking.CheckReport:
    """The report with a finding for each claim that fails at the pins."""
    from reader.annotations.load import load_articles
    from reader.children import Children
    from reader.claims.track import run_track

    project = Project.load(root)
    checked = run_track(load_articles(root, cache), project, cache, args.claim_timeout,
                        max(1, args.jobs), Children())
    print(checked.summary(), file=sys.stderr)
    problems = checking.ordered([*report.problems, *checked.problems()])
    return replace(report, problems=problems, claims=len(checked.results))
