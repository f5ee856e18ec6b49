"""`reader fetch [NAME...] [--status] [--refresh] [--quiet]`: make pinned files available, verified."""

from __future__ import annotations

import argparse
from pathlib import Path

from reader.cache import Cache
from reader.commands import add_quiet
from reader.corpus import Project, fetch_all
from reader.fetch import cached_list, verify_cached
from reader.progress import reporter, reporting


def add_parser(sub) -> None:
    p = sub.add_parser("fetch", help="fetch the pinned files into the cache, verified byte for byte")
    p.add_argument("names", nargs="*", metavar="NAME", help="pins to fetch (default: all)")
    p.add_argument("--status", action="store_true", help="show each pin's cached state; fetch nothing")
    p.add_argument("--refresh", action="store_true", help="ask the sources again even on a cache hit")
    add_quiet(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    project = Project.load(Path(args.project))
    cache = Cache()
    if args.status:
        return _status(project, cache, args.names)
    bad = 0
    with reporting(reporter(args.quiet)):
        reports = fetch_all(project, cache, args.names, refresh=args.refresh)
    for r in reports:
        for m in r.mismatches:
            print(f"reader: error: {m}")
        bad += len(r.mismatches)
        state = "verified" if r.verified else f"{len(r.mismatches)} files refused"
        print(f"{r.pin} @ {r.commit[:12]}: {r.served}/{r.expected} files from {', '.join(r.sources)}, {state}")
        if r.missing:
            print(f"  missing from these sources ({len(r.missing)}): {', '.join(r.missing)}")
    return 1 if bad else 0


def _status(project: Project, cache: Cache, names: list[str]) -> int:
    code = 0
    for name in names or sorted(project.pins):
        pin, lock = project.pins[name], project.locks[name]
        problems = verify_cached(pin, lock, cache)
        if problems == [f"{name}: not fetched"]:
            print(f"{name} @ {pin.commit[:12]}: not fetched")
            code = 1
            continue
        listed = cached_list(pin, lock, cache)
        state = "verified" if not problems else f"NOT verified ({len(problems)} problems)"
        print(f"{name} @ {pin.commit[:12]}: {len(listed.files)}/{len(lock.files)} files from "
              f"{', '.join(listed.sources)}, {state}")
        for problem in problems:
            print(f"  {problem}")
        code = code or (1 if problems else 0)
    return code
