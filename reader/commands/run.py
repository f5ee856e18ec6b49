"""`reader run LAB [ARGS...]`: run one lab's `main` (the same as `python -m kernels.LAB`)."""

from __future__ import annotations

import argparse
import difflib
import importlib

from reader.errors import InputError


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a lab of the track (its kernels, checked against a reference)")
    p.add_argument("--list", action="store_true", help="list the labs and exit")
    p.add_argument("lab", metavar="LAB", nargs="?", help="the lab's name (`reader run --list`)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed on to the lab")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kernels import LABS

    if args.list or args.lab is None:
        for lab in LABS.values():
            print(f"{lab.name:20} {lab.heading}")
        return 0
    if args.lab not in LABS:
        close = difflib.get_close_matches(args.lab, LABS, n=1)
        hint = f"did you mean {close[0]!r}?" if close else "`reader run --list` lists the labs"
        raise InputError(f"no lab named {args.lab!r}", hint=hint)
    module = importlib.import_module(LABS[args.lab].module)
    return int(module.main(list(args.args)) or 0)
