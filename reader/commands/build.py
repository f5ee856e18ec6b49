"""`reader build [--site DIR] [--jobs N] [--no-wait] [--keep-going] [--quiet] [--verbose]
[--profile]`: build the static site (mkdocs-material) into `site/`.

It prints the stages (bars on a terminal) and one summary line; what the build noticed for the
track's author (facts that link nowhere yet, the lowered IR's coverage, the site generator's end
of life) is one counted line, each of them with `--verbose`."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reader.commands import add_quiet
from reader.profile import profiling
from reader.progress import reporter, reporting
from reader.versions import library_versions
from reader.workers import Workers

if TYPE_CHECKING:
    from reader.site import BuildReport

MATERIAL_END_OF_LIFE = "2027-05-05"
"""Material for MkDocs 9.x's end of life, as its own notice says (critical fixes until then)."""


def add_parser(sub) -> None:
    p = sub.add_parser("build", help="build the static site into site/ (swapped in only when complete)")
    p.add_argument("--site", metavar="DIR", help="where the site goes (default: site/ in the project)")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="worker processes (default: one per core); 1: every stage in this process")
    p.add_argument("--no-wait", action="store_true",
                   help="exit (code 3) instead of waiting when another build is writing the site")
    add_quiet(p)
    p.add_argument("--keep-going", action="store_true",
                   help="build the site even when a lab fails: its page says so, and the command "
                        "names it and exits 1")
    p.add_argument("--coverage", action="store_true",
                   help="print each lowered module's coverage: its ops located and linked, and "
                        "those lacking a location or a rule (the IR pages show the same)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also print each step's time, the pages rendered and read back, and every "
                        "note for the track's author (otherwise counted in one line)")
    p.add_argument("--profile", action="store_true",
                   help="print each stage's wall and CPU time (the workers' included) and the ten "
                        "slowest files to scan, highlight and render")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from reader.annotations.load import preload

    root = Path(args.project)
    workers = Workers(args.jobs or None)
    if (root / "mkdocs.yml").is_file():  # the edited annotations load while the renderers import
        preload(root, workers)
    from reader.site import build_site  # mkdocs and the renderers: loaded only to build

    with profiling(args.profile) as profile, reporting(reporter(args.quiet)):
        try:
            report = build_site(root, Path(args.site) if args.site else None, args.jobs or None,
                                wait=not args.no_wait, keep_going=args.keep_going)
        finally:
            workers.close()
        timings = profile.report() if profile is not None else []
    steps = f" ({report.timings()})" if args.verbose else ""
    print(f"built {report.pages} pages into {report.site} in {report.seconds:.1f} s{steps}")
    for edition, paths in report.missing:
        print(f"  {missing_line(edition, paths)}")
    notes = author_notes(report)
    for line in report.coverage if args.coverage else ():
        print(f"  lowered {line}")
    if report.pruned:  # why this build made everything again
        print(f"  {pruned_line(len(report.pruned))}")
    if args.verbose:
        print(f"  {report.caching()}")
        for note in notes:
            print(f"  {note}")
    elif notes:
        print(f"  {counted_notes(notes)}")
    for line in timings:
        print(line)
    for failure in report.failures:  # built anyway (--keep-going)
        print(f"reader: error: {failure.location}: {failure.message}", file=sys.stderr)
    if report.failures:
        print(f"  {len(report.failures)} lab(s) failed, built anyway (--keep-going): "
              f"{', '.join(str(f.location) for f in report.failures)}")
        return max(f.exit_code for f in report.failures)
    return 0


def pruned_line(versions: int) -> str:
    """Why a build after a change of reader's code made everything again: its results are kept by
    the code that made them, and those of `versions` other versions were removed."""
    other = "version" if versions == 1 else "versions"
    return (f"removed the cached results of {versions} other {other} of reader's code: results "
            "are kept by the code that made them, so a build after a change of reader makes them again")


NOWHERE = " links nowhere yet"
"""How a note on a fact or page that no pinned line defines ends (generate's warnings)."""


def missing_line(edition: str, paths: Sequence[str]) -> str:
    """The locked files of an edition that no source served, named in one line."""
    which = f"the {edition} edition" if edition else "the current edition"
    return (f"{which} lacks {_many(len(paths), 'locked file')} that no source serves (its source "
            f"index lists them): {', '.join(paths)}")


def author_notes(report: BuildReport) -> list[str]:
    """What the build noticed for the track's author: its warnings (`note: ...`), the lowered IR's
    coverage in a line, the site generator's end of life."""
    notes = [f"note: {w}" for w in report.notes]
    if report.coverage:  # the IR views: what each lowered module links, what it cannot
        notes.append(coverage_summary(report.coverage))
    return [*notes, *filter(None, [end_of_life()])]


def end_of_life() -> str:
    """Material's end-of-life notice while the site is built with Material 9 ("" after it)."""
    material = library_versions()["mkdocs-material"]
    if not material.startswith("9."):
        return ""
    return (f"Material for MkDocs {material} reaches end of life on {MATERIAL_END_OF_LIFE}: "
            "the plan is ARCHITECTURE.md, 'The site generator and its end of life'")


def counted_notes(notes: Sequence[str]) -> str:
    """One line for the author's notes: how many, the facts that link nowhere and the figures not
    computed at these pins counted apart."""
    from reader.render.figures.registry import NOT_COMPUTED

    nowhere = sum(1 for n in notes if n.endswith(NOWHERE))
    figures = sum(1 for n in notes if re.match(rf"note: (\S+: )?figure \S+{NOT_COMPUTED}", n))
    kinds = [f"{_many(nowhere, 'placeholder')} that link{'s' if nowhere == 1 else ''} nowhere yet"] \
        if nowhere else []
    kinds += [f"{_many(figures, 'figure')}{NOT_COMPUTED}"] if figures else []
    others = len(notes) - nowhere - figures
    kinds += [_many(others, "other")] if others else []
    return f"{_many(len(notes), 'note')} for the track's author ({', '.join(kinds)}): " \
           "reader build --verbose lists them"


def _many(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


COVERAGE_RE = re.compile(r": (\d+)/(\d+) ops located, (\d+)/\d+ linked")


def coverage_summary(lines: Sequence[str]) -> str:
    """One line for the lowered modules' coverage lines (`page module: 17/26 ops located, ...`,
    or `...: refused (why)`)."""
    counts = [tuple(int(n) for n in m.groups()) for line in lines if (m := COVERAGE_RE.search(line))]
    located, ops, linked = (sum(c[i] for c in counts) for i in range(3))
    refused = len(lines) - len(counts)
    return (f"lowered {len(lines)} modules: {located:,}/{ops:,} ops located, {linked:,} linked to a "
            f"kernel line and a rule" + (f", {refused} refused" if refused else "") +
            "; each module: reader build --coverage, or its IR page")
