"""What a pin's `context` must hold for the pinned files' names to link: the modules their imports
load (transitively, the code that runs at import: not function bodies), within a package, and the
modules their dotted names resolve through (re-exports such as `jax.numpy`) to a definition.

Pure functions of module texts; `scripts/context` prints the list for pins.toml from a release's
files, and tests/test_closure.py checks the pins' own corpus holds its closure."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from reader.extract.names import Resolver, resolve_chain
from reader.extract.scan import FileSummary, resolve_relative


class Module(NamedTuple):
    """A module's source and whether it is a package's `__init__`."""

    text: str
    is_package: bool


def imports_at_load(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """The absolute names the module's import statements name when it is imported: `import a.b`
    (`a`, `a.b`), `from m import x` (`m` and `m.x`, which may be a submodule); not those inside
    function bodies, which run later if ever."""
    out: set[str] = set()
    for node in _load_time(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                out |= _prefixes(a.name)
        elif isinstance(node, ast.ImportFrom):
            source = resolve_relative(module, is_package, node.level, node.module)
            out |= _prefixes(source)
            out |= {f"{source}.{a.name}" for a in node.names if a.name != "*"}
    return out


def _load_time(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that run at import: the module's, its compound statements' and its classes'."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        yield stmt
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.stmt):
                yield from _load_time([child])
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                yield from _load_time(child.body)


def _prefixes(dotted: str) -> set[str]:
    parts = dotted.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def import_closure(modules: Mapping[str, Module], seeds: set[str], within: str) -> set[str]:
    """The modules of `modules` under package `within` (`jax._src`) that importing `seeds` loads,
    following imports inside `within` only (a package's public `__init__` would pull in all of
    it), seeds excluded; a module that does not parse imports nothing."""
    todo, seen = list(seeds), set(seeds)
    found: set[str] = set()
    while todo:
        name = todo.pop()
        source = modules.get(name)
        if source is None:
            continue
        try:
            tree = ast.parse(source.text)
        except SyntaxError:
            continue
        for imported in imports_at_load(tree, name, source.is_package):
            if imported in seen or imported not in modules or not _inside(imported, within):
                continue
            seen.add(imported)
            todo.append(imported)
            found.add(imported)
    return found


class _Reads(Mapping[str, FileSummary]):
    """The summaries of a resolver, recording which modules a resolution reads."""

    def __init__(self, summaries: Mapping[str, FileSummary]):
        self.summaries = summaries
        self.read: set[str] = set()

    def __getitem__(self, module: str) -> FileSummary:
        self.read.add(module)
        return self.summaries[module]

    def __iter__(self) -> Iterator[str]:
        return iter(self.summaries)

    def __len__(self) -> int:
        return len(self.summaries)

    def __contains__(self, module: object) -> bool:
        return module in self.summaries


def resolved_through(summaries: Mapping[str, FileSummary], readers: set[str], package: str) -> set[str]:
    """The modules that the dotted names read in `readers` (`jax_core.Primitive`, `jnp.float32`:
    a module of `package` and its attributes) resolve through to a definition: the defining module
    and each re-exporting module on the way."""
    reads = _Reads(summaries)
    resolver = Resolver(reads)
    out: set[str] = set()
    for module in sorted(readers):
        fs = summaries.get(module)
        if fs is None:
            continue
        for chain in fs.chains:
            if chain.head != "global" or len(chain.parts) < 2:
                continue
            head = resolver.resolve_name(module, chain.parts[0].name,
                                         chain.parts[0].line if chain.at_module else None, fs)
            if head is None or head.kind not in ("module", "external") or not _inside(head.module, package):
                continue
            resolver.forget()
            reads.read.clear()
            parts = resolve_chain(resolver, fs, chain)
            if len(parts) == len(chain.parts) and resolver.linkable(parts[-1].target):
                out |= reads.read | {parts[-1].target.module}
    return out - readers


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")
