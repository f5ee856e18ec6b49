"""`reader notebooks [--check] [--execute [LAB ...]]`: write each lab's notebook into `notebooks/`
(what Colab opens from the repository), keeping the outputs of one whose inputs have not changed;
`--execute` also runs the notebooks without outputs (and those named) on this machine's CPU and
writes their outputs; with `--check` only say which notebooks are out of date with their labs,
stray, or without outputs (exit 1)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reader.atomic import atomic_write_all
from reader.errors import InputError, Location


def add_parser(sub) -> None:
    p = sub.add_parser("notebooks", help="regenerate notebooks/<lab>.ipynb from the labs' modules "
                                         "(--execute: run them for their outputs; --check: exit 1 when one is "
                                         "missing, out of date or without outputs)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; list the notebooks that differ from their labs or have no outputs, "
                        "and exit 1 if any")
    p.add_argument("--execute", nargs="*", metavar="LAB",
                   help="also run each notebook without outputs, and each LAB named, top to bottom on this "
                        "machine's CPU (nbclient; the labs extra) and write its outputs")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from reader.corpus import Project
    from reader.labs import load_labs
    from reader.labs.notebook import FOLDER, notebook_path, notebooks
    from reader.labs.outputs import has_outputs, inputs_of

    root = Path(args.project)
    labs = load_labs(root)
    wanted = {notebook_path(name): text for name, text in notebooks(root, labs, Project.load(root).pins).items()}
    named = [notebook_path(n) for n in args.execute or ()]
    unknown = [p for p in named if p not in wanted]
    if unknown:
        raise InputError(f"no lab makes {', '.join(unknown)}", Location("kernels/__init__.py"),
                         f"name one of {', '.join(sorted(lab.name for lab in labs))}")
    folder = root / FOLDER
    present = {f"{FOLDER}/{p.name}": p.read_text(encoding="utf-8")
               for p in folder.glob("*.ipynb")} if folder.is_dir() else {}
    stale = sorted(path for path, text in wanted.items() if path not in present or inputs_of(present[path]) != text)
    extra = sorted(set(present) - set(wanted))
    bare = sorted(path for path in wanted if path not in stale and not has_outputs(present[path]))
    if args.check:
        for path in stale:
            print(f"{path}: out of date with its lab; run `reader notebooks --execute`", file=sys.stderr)
        for path in extra:
            print(f"{path}: no lab makes it; delete it or run `reader notebooks`", file=sys.stderr)
        for path in bare:
            print(f"{path}: no outputs; run `reader notebooks --execute` and commit them", file=sys.stderr)
        return 1 if stale or extra or bare else 0
    executed = _executed(wanted, sorted({*stale, *bare, *named})) if args.execute is not None else {}
    written = {**{path: wanted[path] for path in stale}, **executed}
    folder.mkdir(exist_ok=True)
    atomic_write_all({root / path: text.encode() for path, text in written.items()})
    for path in written:
        (root / path).chmod(0o644)  # written through a private temporary file
    for path in extra:
        (root / path).unlink()
    without = [path for path in wanted if not has_outputs(written.get(path) or present[path])]
    print(f"reader notebooks: {len(stale)} written, {len(extra)} removed, "
          f"{len(wanted) - len(stale)} up to date in {FOLDER}/"
          + (f", {len(executed)} run" if args.execute is not None else "")
          + (f"; {len(without)} without outputs: `reader notebooks --execute` runs them" if without else ""))
    return 0


def _executed(wanted: dict[str, str], paths: list[str]) -> dict[str, str]:
    """Each notebook of `paths` run top to bottom: its text with its outputs. A cell that fails is
    reported at its notebook, nothing written."""
    from nbclient.exceptions import CellExecutionError

    from reader.children import executed_text

    out = {}
    for path in paths:
        try:
            done = executed_text(wanted[path])
        except CellExecutionError as e:
            lab = Path(path).stem
            raise InputError(f"running it failed: {str(e).strip().splitlines()[-1][:300]}", Location(path),
                             f"run `python -m kernels.{lab}` to see why, fix kernels/{lab}.py") from None
        print(f"ran {path} in {done.seconds:.1f} s", flush=True)
        out[path] = done.notebook
    return out
