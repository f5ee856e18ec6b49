"""`reader pin NAME [--to COMMIT] [--release SPEC]`: move a pin, fetch its files, rewrite pins and lock."""

from __future__ import annotations

import argparse
from pathlib import Path

from reader.cache import Cache
from reader.pinning import move_pin


def add_parser(sub) -> None:
    p = sub.add_parser("pin", help="move a pin to another commit and rewrite pins.toml and pins.lock")
    p.add_argument("name", metavar="NAME", help="the pin to move")
    p.add_argument("--to", default="", metavar="COMMIT",
                   help="a full commit sha, or a tag or branch when the git source is reachable; "
                        "without it, the commit the --release archive records in its version.py")
    p.add_argument("--release", default="", metavar="SPEC",
                   help="the release (NAME==VERSION) built from that commit: recorded in the pin, "
                        "and its source archive serves the files when git is unreachable")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    move = move_pin(Path(args.project), args.name, args.to, args.release, Cache())
    old, new, r = move.old, move.new, move.fetched
    label = f" ({new.tag})" if new.tag else ""
    if move.recorded:
        print(f"{new.name}: commit {move.recorded}")
    print(f"{new.name}: {old.short} -> {new.short}{label}: {len(move.lock.files)} .py files locked "
          f"from {move.via}, {r.served}/{r.expected} fetched and verified")
    if move.via.startswith("archive"):
        print(f"  the lock comes from a release archive, which may omit files git has; run "
              f"'reader lock' where {new.repo} is reachable to complete it")
    for remark in move.remarks:
        print(f"  {remark}")
    print("  pins.toml and pins.lock rewritten; 'reader diff' shows what the move does")
    return 0
