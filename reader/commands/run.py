"""`reader run LAB [ARGS...]`: run one lab's `main` (the same as `python -m kernels.LAB`);
`reader run LAB --check FILE`: a learner's blind kernel against the reference, then diffed."""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from reader.errors import InputError, Location

if TYPE_CHECKING:
    from kernels import Blind, Lab


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a lab of the track (its kernels, checked against a reference)")
    p.add_argument("--list", action="store_true", help="list the labs and exit")
    p.add_argument("--check", metavar="FILE", help="a lab written blind: check FILE's kernel against the "
                   "reference (exit 0 match, 1 not, 2 bad FILE), then diff it against the pinned kernel")
    p.add_argument("lab", metavar="LAB", nargs="?", help="the lab's name (`reader run --list`)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed on to the lab")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kernels import LABS

    if args.list or args.lab is None:
        for lab in LABS.values():
            print(f"{lab.name:20} {lab.heading}" + ("  (blind: --check FILE)" if lab.blind else ""))
        return 0
    if args.lab not in LABS:
        close = difflib.get_close_matches(args.lab, LABS, n=1)
        hint = f"did you mean {close[0]!r}?" if close else "`reader run --list` lists the labs"
        raise InputError(f"no lab named {args.lab!r}", hint=hint)
    lab, check = LABS[args.lab], args.check
    if args.args[:1] == ["--check"]:        # `reader run LAB --check FILE`: after LAB, argparse leaves it
        if len(args.args) != 2:
            raise InputError("--check takes one FILE and nothing else", hint=f"reader run {lab.name} --check FILE")
        check = args.args[1]
    if check is not None:
        return check_blind(lab, Path(check), Path(args.project))
    module = importlib.import_module(lab.module)
    return int(module.main(list(args.args)) or 0)


@dataclass(frozen=True)
class LearnerKernel:
    """The learner's kernel: the function, its file and its source lines."""

    path: Path
    name: str
    fn: Any
    lines: tuple[str, ...]


def check_blind(lab: Lab, path: Path, root: Path) -> int:
    """Run the learner's kernel through the lab's `check_kernel`, print each case, then the diff."""
    if lab.blind is None:
        raise InputError(f"lab {lab.name!r} is not written blind: it has no --check",
                         hint="`reader run --list` marks the labs that have one")
    learner = load_learner(path, lab.blind)
    cases = _run_cases(lab, learner)
    print()
    print_diff(learner, lab.blind, root)
    if cases is None or not all(c.ok for c in cases):
        print(f"\n{path}: {lab.blind.kernel} does not match the reference yet", file=sys.stderr)
        return 1
    return 0


def load_learner(path: Path, blind: Blind) -> LearnerKernel:
    """Import FILE and find the kernel; InputError naming FILE:line when it cannot be done."""
    if not path.is_file():
        raise InputError(f"no such file {str(path)!r}", hint=f"copy kernels/{blind.scaffold}.py and fill it in")
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, str(path))
    except SyntaxError as e:
        raise InputError(f"syntax error: {e.msg}", Location(str(path), e.lineno)) from None
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == blind.kernel), None)
    if node is None:
        raise InputError(f"no top-level function {blind.kernel!r}", Location(str(path), 1),
                         hint=f"kernels/{blind.scaffold}.py has its signature")
    module = _import(path)
    return LearnerKernel(path, blind.kernel, getattr(module, blind.kernel), _source(text, tree, node))


def _source(text: str, tree: ast.Module, node: ast.FunctionDef) -> tuple[str, ...]:
    """The function's lines, with the comments that trail its last statement (a scaffold's TODOs)."""
    after = [n.lineno for n in tree.body if n.lineno > node.lineno]
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    lines = text.splitlines()[first - 1:(min(after) - 1 if after else None)]
    body_end = (node.end_lineno or node.lineno) - first + 1
    while len(lines) > body_end and not lines[-1].startswith((" ", "\t")):   # blank or top level
        lines.pop()
    return tuple(lines)


def _import(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_learner_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the learner's module-level code: anything can happen there
        raise InputError(f"importing it raised {type(e).__name__}: {e}", _where(e, path)) from None
    return module


def _where(e: BaseException, path: Path) -> Location:
    """The deepest line of `path` in the exception's traceback (the file's first line if none)."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if Path(f.filename).resolve() == path.resolve()]
    return Location(str(path), frames[-1].lineno if frames else 1)


def _run_cases(lab: Lab, learner: LearnerKernel) -> list[Any] | None:
    """Each case's verdict printed; None when the kernel raised (printed, located, as a FAIL)."""
    module = importlib.import_module(lab.module)
    print(f"{lab.heading}: {learner.path}::{learner.name} against the jnp reference")
    try:
        cases = module.check_kernel(learner.fn)
    except Exception as e:  # a learner's kernel fails to trace or run: a failed check, located
        message = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print(f"FAIL  {_where(e, learner.path)}: {learner.name} raised {type(e).__name__}: {message}")
        return None
    for case in cases:
        print(case.describe())
    return list(cases)


def print_diff(learner: LearnerKernel, blind: Blind, root: Path) -> None:
    """The learner's kernel against the pinned function, line by line (read from the corpus)."""
    from reader.corpus import Corpus, Project
    from reader.extract.symbols import symbols_of

    project = Project.load(root)
    pin_name = next((n for n, p in project.pins.items() if p.covers(blind.upstream_path)), None)
    if pin_name is None:
        raise InputError(f"{blind.upstream_path} is in no pin", Location(str(root / "pins.toml")))
    corpus = Corpus.open(project, names=[pin_name])
    text = corpus.read_text(pin_name, blind.upstream_path)
    symbol = next(s for s in symbols_of(text) if s.qualname == blind.upstream_symbol)
    theirs = text.splitlines()[symbol.span.start - 1:symbol.span.end]
    pin = project.pins[pin_name]
    print(f"your {learner.name} beside the pinned {blind.upstream_symbol} ({pin_name} {pin.release or pin.short}, "
          f"commit {pin.commit[:12]}, {blind.upstream_path}:{symbol.span.start}-{symbol.span.end}; "
          f"indentation rescaled to 4 spaces):")
    diff = difflib.unified_diff(_reindent(learner.lines), _reindent(theirs), lineterm="",
                                fromfile=f"{learner.path}::{learner.name}",
                                tofile=f"{pin_name}@{pin.commit[:12]}:{blind.upstream}",
                                n=max(len(learner.lines), len(theirs)))
    for line in diff:
        print(line)


def _reindent(lines: tuple[str, ...] | list[str]) -> list[str]:
    """Leading spaces rescaled so one indentation level is 4 spaces (the pinned jax uses 2)."""
    indents = [len(s) - len(s.lstrip(" ")) for s in lines if s.strip()]
    unit = min((i for i in indents if i), default=4)
    out = []
    for s in lines:
        n = len(s) - len(s.lstrip(" "))
        out.append(" " * ((n // unit) * 4 + n % unit) + s.lstrip(" ") if s.strip() else "")
    return out
