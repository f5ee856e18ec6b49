"""`reader notebooks [--check]`: write each lab's notebook into `notebooks/` (what Colab opens
from the repository), or with `--check` only say which are missing or out of date (exit 1)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reader.cache import atomic_write_all


def add_parser(sub) -> None:
    p = sub.add_parser("notebooks", help="regenerate notebooks/<lab>.ipynb from the labs' modules "
                                         "(--check: exit 1 when one is missing or out of date)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; list the notebooks that differ from their labs and exit 1 if any")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from reader.corpus import Project
    from reader.labs import load_labs
    from reader.labs.notebook import FOLDER, notebook_path, notebooks

    root = Path(args.project)
    wanted = {notebook_path(name): text for name, text in
              notebooks(root, load_labs(root), Project.load(root).pins).items()}
    folder = root / FOLDER
    present = {f"{FOLDER}/{p.name}" for p in folder.glob("*.ipynb")} if folder.is_dir() else set()
    stale = sorted(path for path, text in wanted.items()
                   if not (root / path).is_file() or (root / path).read_text(encoding="utf-8") != text)
    extra = sorted(present - set(wanted))
    if args.check:
        for path in stale:
            print(f"{path}: out of date with its lab; run `reader notebooks`", file=sys.stderr)
        for path in extra:
            print(f"{path}: no lab makes it; delete it or run `reader notebooks`", file=sys.stderr)
        return 1 if stale or extra else 0
    folder.mkdir(exist_ok=True)
    atomic_write_all({root / path: wanted[path].encode() for path in stale})
    for path in stale:
        (root / path).chmod(0o644)  # written through a private temporary file
    for path in extra:
        (root / path).unlink()
    print(f"reader notebooks: {len(stale)} written, {len(extra)} removed, "
          f"{len(wanted) - len(stale)} up to date in {FOLDER}/")
    return 0
