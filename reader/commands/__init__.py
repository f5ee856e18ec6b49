"""One module per CLI command; each has `add_parser(subparsers)` and `run(args) -> int`."""

from __future__ import annotations

import argparse

COMMANDS = ("fetch", "lock", "run", "notebooks", "check", "accept", "rules", "facts", "build", "serve", "pin",
            "diff")


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """`-q/--quiet`: no progress (a command with stages shows bars on a terminal, lines elsewhere)."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="show no progress (default: a bar per stage on a terminal, lines elsewhere)")
