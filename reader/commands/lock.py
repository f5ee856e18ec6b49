"""`reader lock [--listing NAME=TSV]`: write pins.lock from git trees, upstream listings, or (where
git cannot be reached) the pinned releases' source archives."""

from __future__ import annotations

import argparse
import tempfile
from functools import partial
from pathlib import Path

from reader.atomic import atomic_write
from reader.cache import Cache
from reader.errors import InputError
from reader.fetch import pip_download_sdist
from reader.lockfile import lock_from_listing, lock_pin
from reader.pins import LockEntry, dump_lock, load_pins


def add_parser(sub) -> None:
    p = sub.add_parser("lock", help="record the blob sha of every pinned .py file in pins.lock")
    p.add_argument("--listing", action="append", default=[], metavar="NAME=TSV",
                   help="take pin NAME's blobs from a `git ls-tree -r -l` listing instead of git")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.project)
    pins = load_pins(root / "pins.toml")
    listings = {}
    for item in args.listing:
        name, _, tsv = item.partition("=")
        if name not in pins or not tsv:
            raise InputError(f"--listing {item!r}: expected NAME=TSV with NAME one of {sorted(pins)}")
        listings[name] = Path(tsv)
    locks: dict[str, LockEntry] = {}
    with tempfile.TemporaryDirectory(prefix="reader-lock-") as tmp:
        for name, pin in sorted(pins.items()):
            if name in listings:
                locks[name], via = lock_from_listing(pin, listings[name]), f"listing {listings[name]}"
            else:
                folder = Path(tmp) / name  # one archive a folder: pip_download_sdist takes what it finds
                folder.mkdir()
                locks[name], via = lock_pin(pin, Cache(), partial(pip_download_sdist, pin.release, folder))
            print(f"{name} @ {pin.commit[:12]}: {len(locks[name].files)} .py files locked from {via}")
    atomic_write(root / "pins.lock", dump_lock(locks).encode())
    return 0
