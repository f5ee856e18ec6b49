"""A source file's scopes for its page: each class and function with its lines and the names local
to it (parameters, assignments, imports, loop and `with` targets), read by docs/assets/scope.js
for the sticky line naming where the reader is and for finding a name's occurrences (a local's in
its function, any other name's in the file).

One script per file, loaded by its page (a `<script>` tag: file:// works):

    readerScopes.add("jax/_src/pallas/core.py",
                     [[start, end, kind, qualname, "local names", body], ...])   # in order of
                                         # start; kind: c, f (def); body: its body's first line
                                         # (a def's header, parameters and defaults, lies before)
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from dataclasses import dataclass

from reader.cache import Cache
from reader.errors import ReaderError
from reader.extract.parse import children, parse_ast
from reader.providers import Blob, Provider, as_json, how, provide
from reader.render.common.model import Asset

SCOPES_DIR = "assets/scopes"
_DEFS = frozenset({ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef})
_STMTS = frozenset(ast.stmt.__subclasses__())
_BINDING = frozenset({*_DEFS, ast.Lambda, ast.Name, ast.alias, ast.Global, ast.Nonlocal,
                      ast.ExceptHandler, ast.MatchAs, ast.MatchStar})
"""The nodes `_locals` reads a name from (or, for a lambda, skips)."""


@dataclass(frozen=True)
class Scope:
    start: int
    """The `def` or `class` line."""
    end: int
    kind: str
    """`c` a class, `f` a function or method."""
    qualname: str
    names: tuple[str, ...]
    """A function's local names (sorted); none for a class (its names are read as `self.x`)."""
    body: int = 0
    """Its body's first line: a def's header (where `name=` is a parameter, not a call's keyword)
    lies before it."""


def scopes_uri(path: str) -> str:
    return f"{SCOPES_DIR}/{path}.js"


def scope_data(text: str, path: str, tree: ast.Module | None = None) -> list[list[object]]:
    """The file's scopes as its script's rows (`tree`: parsed already)."""
    return [[s.start, s.end, s.kind, s.qualname, " ".join(s.names), s.body] for s in scopes(text, path, tree)]


@dataclass(frozen=True)
class Scoped:
    """What a file's scope data reads: its text (by blob); its path only names it in an error."""

    text: Blob
    path: str = how("")


def _scope_data(inputs: Scoped) -> list[list[object]]:
    return scope_data(inputs.text.text, inputs.path)


SCOPES: Provider[Scoped, list] = Provider("scopes", Scoped, _scope_data, as_json(list))
"""A file's scope data (the index's scan computes it beside its summary from the same tree)."""


def scope_script(path: str, blob: str, text: str, cache: Cache | None) -> Asset:
    """The file's scopes as its page's script (kept in the cache by the file's blob)."""
    data = provide(SCOPES, Scoped(Blob(blob, lambda: text), path), cache)
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Asset(scopes_uri(path), f"readerScopes.add({json.dumps(path)},{body});\n".encode())


def scopes(text: str, path: str, tree: ast.Module | None = None) -> list[Scope]:
    """Every class and function of the file, outer before inner; none when it does not parse."""
    try:
        tree = tree or parse_ast(text, path)
    except (ReaderError, SyntaxError, ValueError):
        return []
    return sorted(_walk(tree.body, ""), key=lambda s: (s.start, -s.end))


def _walk(body: list[ast.stmt], outer: str) -> Iterator[Scope]:
    for node in _defs(body):
        qualname = f"{outer}.{node.name}" if outer else node.name
        end = node.end_lineno or node.lineno
        inside = node.body[0].lineno
        if isinstance(node, ast.ClassDef):
            yield Scope(node.lineno, end, "c", qualname, (), inside)
        else:
            yield Scope(node.lineno, end, "f", qualname, tuple(sorted(_locals(node))), inside)
        yield from _walk(node.body, qualname)


def _defs(body: list[ast.stmt]) -> Iterator[ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef]:
    """The classes and functions defined in `body`, at any depth of its compound statements
    (an `if`'s, a `try`'s), not inside other definitions."""
    for stmt in body:
        if stmt.__class__ in _DEFS:
            yield stmt  # type: ignore[misc]
            continue
        for child in children(stmt):
            kind = child.__class__
            if kind in _STMTS:
                yield from _defs([child])  # type: ignore[list-item]
            elif kind is ast.ExceptHandler or kind is ast.match_case:
                yield from _defs(child.body)  # type: ignore[attr-defined]


def _locals(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters, and names the body binds (not those it declares global or nonlocal); names
    bound in nested functions and classes are theirs, comprehensions' are counted here."""
    args = fn.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    declared: set[str] = set()
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        kind = node.__class__
        if kind is ast.Name:  # the commonest node first
            if node.ctx.__class__ is not ast.Load:  # type: ignore[attr-defined]
                names.add(node.id)  # type: ignore[attr-defined]
        elif kind not in _BINDING:
            todo += children(node)
        elif kind in _DEFS:
            names.add(node.name)  # type: ignore[attr-defined]
            todo += node.decorator_list  # type: ignore[attr-defined]  # read here; a def's defaults too
            if kind is not ast.ClassDef:
                todo += [d for d in (*node.args.defaults, *node.args.kw_defaults)  # type: ignore[attr-defined]
                         if d is not None]
        elif kind is ast.Lambda:
            continue
        elif kind is ast.alias:
            names.add((node.asname or node.name).split(".")[0])  # type: ignore[attr-defined]
        elif kind is ast.Global or kind is ast.Nonlocal:
            declared.update(node.names)  # type: ignore[attr-defined]
        else:  # an `except` clause, a match pattern: the name they bind, if any
            if node.name:  # type: ignore[attr-defined]
                names.add(node.name)  # type: ignore[attr-defined]
            todo += children(node)
    return names - declared
