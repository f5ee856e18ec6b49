"""The labs (`kernels/`) as the site shows them: registry, docstrings, and build-time artifacts.

A lab's artifacts (jaxprs, MLIR, a roofline or a timeline) are produced by running its
`artifacts(out_dir)` in one child process for all labs that need it (started by the command's
`LabChildren`, `reader.children.Children`), and cached by the hash of the lab's file and the
`kernels/` helpers it shares, so an unchanged lab never runs again.
"""

from __future__ import annotations

import ast
import base64
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import NamedTuple, Protocol

from reader import __version__
from reader.cache import Cache
from reader.errors import BuildError, InputError, LabError, Location
from reader.labs.records import RUNS, LabRecord, records_of
from reader.providers import Provider, as_json, keep, kept, provide
from reader.versions import installed_versions

ARTIFACTS_KIND = "lab-artifacts-v1"
"""Kept across code versions (`derived/kept/`), so not covered by `code_version()`: bump the
suffix when the artifacts' format changes."""
ARTIFACT_TIMEOUT_S = 900


class Exercised(NamedTuple):
    """A pinned file and a symbol in it that a lab's docstring says it exercises."""

    path: str
    symbol: str


@dataclass(frozen=True)
class LabInfo:
    """One registered lab: its module name, title, phase, file and docstring."""

    name: str
    heading: str
    phase: int
    path: str
    """Relative to the project root: `kernels/tiled_matmul.py`."""
    text: str
    docstring: str
    exercises: tuple[Exercised, ...]
    has_artifacts: bool
    exercises_line: int | None = None
    """The line of the docstring's `Exercises:` line in the file."""
    records: tuple[LabRecord, ...] = ()
    """Its committed runs on a chip (`kernels/runs/<chip>/<lab>.json`), one per chip."""


@dataclass(frozen=True)
class Artifact:
    name: str
    data: bytes

    @property
    def is_image(self) -> bool:
        return self.name.endswith((".svg", ".png"))


@dataclass(frozen=True)
class LabArtifacts:
    files: tuple[Artifact, ...] = ()
    error: str = ""
    """Why the lab's `artifacts(out_dir)` failed (the exception's last line); empty when it ran."""
    line: int | None = None
    """The line of the lab's file nearest the raise, when it raised there."""


def description(docstring: str) -> str:
    """The docstring without its title line and its `Exercises:` line."""
    lines = docstring.splitlines()
    body = lines[1:] if lines else []
    return "\n".join(line for line in body if not line.startswith("Exercises:")).strip()


def lab_failure(lab: LabInfo, artifacts: LabArtifacts) -> LabError | None:
    """The failed run of a lab's artifacts as an error located in the lab's file (None: it ran)."""
    if not artifacts.error:
        return None
    return LabError(f"lab {lab.name!r} failed: {artifacts.error}", Location(lab.path, artifacts.line),
                    f"fix it (run it alone: python -m kernels.{lab.name}), or build anyway with "
                    "reader build --keep-going (its page then says it failed)")


def load_labs(root: Path, cache: Cache | None = None) -> list[LabInfo]:
    """The labs registered in `root/kernels` (none when the project has no `kernels/`). A registered
    lab without its module, or a module that does not parse, is an input error at its line.
    `cache`: each module's docstring kept by its text (`_head`), so that a build with the labs
    unchanged parses none of them."""
    folder = root / "kernels"
    if not (folder / "__init__.py").is_file():
        return []
    registry = _registry(root)
    out = []
    for lab in registry.LABS.values():
        rel = f"kernels/{lab.name}.py"
        if not (root / rel).is_file():
            raise InputError(f"lab {lab.name!r} is registered but {rel} does not exist",
                             _registered_at(folder / "__init__.py", lab.name),
                             f"add {rel}, or remove the lab from kernels.LABS")
        text = (root / rel).read_text(encoding="utf-8")
        doc, exercises, line = _docstring(text, rel, cache)
        out.append(LabInfo(lab.name, lab.heading, lab.phase, rel, text, doc, exercises,
                           "\ndef artifacts(" in text or "\ndef lowerings(" in text, line,
                           records_of(root, lab.name)))
    return out


def _docstring(text: str, rel: str, cache: Cache | None = None) -> tuple[str, tuple[Exercised, ...], int | None]:
    """A lab's docstring, the pinned symbols its `Exercises:` line lists, and that line."""
    try:
        doc = _head(text, cache).doc
    except SyntaxError as e:
        raise InputError(e.msg, Location(rel, e.lineno),
                         f"fix the lab's code (python -m kernels.{Path(rel).stem} shows the same)") from None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("Exercises:") and line in doc:
            items = [item.strip() for item in line.removeprefix("Exercises:").split(",")]
            return doc, tuple(Exercised(*item.partition("::")[::2]) for item in items if item), n
    return doc, (), None


class _Head(NamedTuple):
    """What reader reads of a lab's module besides its code: the docstring (cleaned, as
    `ast.get_docstring` gives it; "" for none) and the lines of its statement (`code_of`)."""

    doc: str
    lines: tuple[int, int] | None


_heads: dict[str, _Head] = {}
"""A module's text -> its `_Head`, once read in this process (a build reads each twice)."""


@dataclass(frozen=True)
class Headed:
    """What a module's `_Head` reads: its text."""

    text: str


def _parsed_head(inputs: Headed) -> _Head:
    tree = ast.parse(inputs.text)
    first = tree.body[0] if tree.body else None
    is_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str)
    lines = (first.lineno, first.end_lineno) if is_doc and first is not None \
        and first.end_lineno is not None else None
    return _Head(ast.get_docstring(tree) or "", lines)


HEAD: Provider[Headed, _Head] = Provider(
    "lab-head", Headed, _parsed_head,
    as_json(list, lambda head: [head.doc, list(head.lines) if head.lines else None],
            lambda data: _Head(data[0], (int(data[1][0]), int(data[1][1])) if data[1] else None)))
"""A module's docstring and its lines."""


def _head(text: str, cache: Cache | None = None) -> _Head:
    """The `_Head` of a module, kept in `cache` by its text: a text kept there parsed once, so a
    build whose labs are unchanged parses none of them (11 labs: 0.04 s of every warm build's
    CPU). A syntax error raises `SyntaxError`."""
    head = _heads.get(text)
    if head is not None:
        return head
    head = provide(HEAD, Headed(text), cache)
    if len(_heads) >= 64:
        _heads.clear()
    _heads[text] = head
    return head


def _registered_at(init: Path, name: str) -> Location:
    """Where `kernels/__init__.py` registers lab `name` (its `Lab("name", ...)` call)."""
    rel = "kernels/__init__.py"
    try:
        tree = ast.parse(init.read_text(encoding="utf-8"))
    except SyntaxError:
        return Location(rel)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value == name:
            return Location(rel, node.lineno)
    return Location(rel)


def unknown_exercises(labs: Sequence[LabInfo], has: Callable[[str, str], bool]) -> None:
    """Refuse a lab whose `Exercises:` line names a pinned file or symbol that `has(path, symbol)`
    says is not there (an input error at that line)."""
    for lab in labs:
        wrong = [e for e in lab.exercises if not has(e.path, e.symbol)]
        if wrong:
            names = ", ".join(f"{e.path}::{e.symbol}" if e.symbol else e.path for e in wrong)
            raise InputError(f"lab {lab.name!r} exercises {names}, not in the pinned files",
                             Location(lab.path, lab.exercises_line),
                             "name a pinned file and a symbol in it (path::Qualname), or remove it")


def canonical_lab() -> LabInfo:
    """The pseudo-lab `canonical` (reader/ir/canonical.py): the pinned kernels the articles read,
    lowered with locations, one `<kernel>.json` each. Pass it to `ArtifactRun` with the labs; its
    key is the runner, reader/ir and the jax/jaxlib/tokamax/triton versions (`_runtime`)."""
    return LabInfo("canonical", "Canonical kernels, lowered", 0, "reader/ir/canonical.py", "", "", (), True)


def _registry(root: Path) -> ModuleType:
    """The project's `kernels` package (importing it imports no jax), replacing any other one
    imported before (a different project, or a test's fixture)."""
    init = (root / "kernels" / "__init__.py").resolve()
    current = sys.modules.get("kernels")
    if current is not None and Path(current.__file__ or "").resolve() == init:
        return current
    for name in [n for n in sys.modules if n == "kernels" or n.startswith("kernels.")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location("kernels", init,
                                                  submodule_search_locations=[str(init.parent)])
    if spec is None or spec.loader is None:
        raise InputError("cannot import the labs' package", Location(str(init)))
    module = importlib.util.module_from_spec(spec)
    sys.modules["kernels"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules["kernels"]
        raise InputError(f"importing kernels failed: {e}", Location(str(init))) from None
    return module


@dataclass(frozen=True)
class Ran:
    """What a lab's artifacts read: the format (`ARTIFACTS_KIND`'s suffix) and reader's version, the
    lab's name and code (`code_of`), the shared helpers (`kernels/_*.py`, by their bytes' sha1),
    the chip's records its figures draw, and the runner with what it runs on (`_runtime`)."""

    version: str
    name: str
    code: str
    helpers: tuple[tuple[str, str], ...]
    records: tuple[tuple[str, str], ...]
    runtime: str


def ran(root: Path, lab: LabInfo) -> Ran:
    """The inputs of the lab's artifacts: kept across changes to the rest of reader."""
    def digests(paths: list[Path], name: Callable[[Path], str]) -> tuple[tuple[str, str], ...]:
        return tuple((name(p), hashlib.sha1(p.read_bytes()).hexdigest()) for p in paths)
    return Ran(f"{ARTIFACTS_KIND}:{__version__}", lab.name, code_of(lab.text),
               digests(sorted((root / "kernels").glob("_*.py")), lambda p: p.name),
               digests(sorted((root / RUNS).glob(f"*/{lab.name}.json")), lambda p: p.parent.name), _runtime())


def _unrun(inputs: Ran) -> LabArtifacts:
    raise BuildError(f"lab {inputs.name!r}: its artifacts come from the artifact run (`ArtifactRun`), which keeps them",
                     Location(__file__), "read them with `kept`")


ARTIFACTS: Provider[Ran, LabArtifacts] = Provider("lab-artifacts", Ran, _unrun, as_json(
    list, lambda found: [[a.name, base64.b64encode(a.data).decode()] for a in found.files],
    lambda data: LabArtifacts(tuple(Artifact(n, base64.b64decode(d)) for n, d in data)), frozen=True), lasting=True)
"""A lab's artifacts (a jax run in a child process: kept across reader's code versions; held in
memory while their file is unchanged: decoding every lab's images again cost each of `reader
serve`'s builds 0.1 s)."""


def code_of(text: str) -> str:
    """A lab's file without its docstring's words (its lines kept: `lowered.json` locates ops by
    line): what its artifacts come from (`main`'s help reads the docstring, `artifacts` does not)."""
    try:
        span = _head(text).lines
    except SyntaxError:
        return text
    if span is None:
        return text
    start, end = span
    lines = text.splitlines(keepends=True)
    return "".join(lines[:start - 1]) + "\n" * (end - start + 1) + "".join(lines[end:])


@functools.cache
def _runtime() -> str:
    """The artifact runner's source and the versions of what the labs run on (read without
    importing): jax, jaxlib, tokamax, numpy (which prints the arrays), triton (finding_the_spill
    compiles with it) and Python."""
    runner = Path(__file__).with_name("child.py").read_bytes()
    for lowering in sorted(Path(__file__).parents[1].joinpath("ir").glob("*.py")):  # lowered.json
        runner += lowering.name.encode() + b"\0" + lowering.read_bytes()
    installed = installed_versions(("jax", "jaxlib", "tokamax", "numpy", "triton"))
    versions = [platform.python_version(), *(v if v != "absent" else "-" for v in installed.values())]
    return f"{hashlib.sha1(runner).hexdigest()}:{':'.join(versions)}"


class Running(Protocol):
    """A child process started now (`reader.children.Running`)."""

    def wait(self, timeout: float) -> str | None:
        """What it printed once it ended; None when it ran past `timeout` seconds (it is killed)."""
        ...

    def kill(self) -> None:
        ...


class LabChildren(Protocol):
    """The child process the labs' artifacts come from, and the folder it writes, as the command
    starts and makes them (`reader.children.Children`)."""

    def folder(self, prefix: str) -> Path:
        """A new temporary folder for the child to write into."""
        ...

    def remove(self, folder: Path) -> None:
        ...

    def start(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> Running:
        """`argv` started in `cwd`, `env` on top of this process's environment."""
        ...


class ArtifactRun:
    """Artifacts from the cache, and one child process (started at once by `children`) for the rest."""

    def __init__(self, root: Path, labs: list[LabInfo], cache: Cache | None, children: LabChildren):
        self.root, self.cache, self.children = root, cache, children
        self.keys = {lab.name: ran(root, lab) for lab in labs if lab.has_artifacts}
        self.ready: dict[str, LabArtifacts] = {}
        todo = []
        for name, inputs in self.keys.items():
            hit = kept(ARTIFACTS, inputs, cache)
            if hit is None:
                todo.append(name)
            else:
                self.ready[name] = hit
        self.out = children.folder("reader-artifacts-") if todo else None
        self.proc: Running | None = None
        if todo and self.out is not None:
            path = os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH", "")])])
            self.proc = children.start([sys.executable, "-m", "reader.labs.child", str(self.out), *todo],
                                       root, {"PYTHONPATH": path})

    @property
    def running(self) -> bool:
        """Whether the child process is still to be waited for."""
        return self.proc is not None

    def stop(self) -> None:
        """End the child process, its results unwanted (the build failed before it was done)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc = None
        if self.out is not None:
            self.children.remove(self.out)

    def results(self) -> Mapping[str, LabArtifacts]:
        """Wait for the child process; cache what it produced."""
        if self.proc is not None and self.out is not None:
            try:
                output = self.proc.wait(ARTIFACT_TIMEOUT_S)
                if output is None:
                    for name in self.keys:
                        self.ready.setdefault(name, LabArtifacts(
                            error=f"artifacts took longer than {ARTIFACT_TIMEOUT_S} s"))
                else:
                    self._collect(output)
            finally:
                self.proc = None
                self.children.remove(self.out)
        return self.ready

    def _collect(self, output: str) -> None:
        assert self.out is not None
        try:
            manifest = json.loads((self.out / "manifest.json").read_text())
        except (FileNotFoundError, ValueError):
            tail = output.strip().splitlines()[-1:] or ["no output"]
            manifest = {n: {"files": [], "error": f"the artifact run failed: {tail[0]}"}
                        for n in self.keys if n not in self.ready}
        for name, entry in manifest.items():
            if entry["error"]:
                self.ready[name] = LabArtifacts(error=entry["error"], line=entry.get("line"))
                continue
            files = tuple(Artifact(Path(f).name, (self.out / name / f).read_bytes())
                          for f in entry["files"])
            self.ready[name] = LabArtifacts(files)
            keep(ARTIFACTS, self.keys[name], self.ready[name], self.cache)
