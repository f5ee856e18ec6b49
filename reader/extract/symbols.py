"""Symbols of one module (classes, functions, methods, module-level names) from `ast`, fast.

Parsed by `parse.parse_ast`: syntax newer than the interpreter goes through libcst; a file no
parser reads raises `parse.ParseError` (located at `where`)."""

from __future__ import annotations

import ast

from reader.extract.parse import parse_ast
from reader.model import Head, Span, Symbol

DOC_CHARS = 240
"""A docstring's first line is cut to this many characters (a hover card shows it)."""


def symbols_of(text: str, tree: ast.Module | None = None, where: str = "<source>") -> list[Symbol]:
    """Every definition in `text` with its qualified name and exact line span, in source order."""
    return [s for s, _ in definitions_of(text, tree, where)]


def definitions_of(text: str, tree: ast.Module | None = None,
                   where: str = "<source>") -> list[tuple[Symbol, Head]]:
    """`symbols_of`, each symbol with its `Head` (header end, body after the docstring, doc line)."""
    tree = tree or parse_ast(text, where)
    out: list[tuple[Symbol, Head]] = []
    _walk(tree.body, "", False, out)
    return sorted(out, key=lambda d: (d[0].span.start, d[0].qualname))


def _walk(body: list[ast.stmt], prefix: str, in_class: bool, out: list[tuple[Symbol, Head]]) -> None:
    for i, node in enumerate(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qual = f"{prefix}{node.name}"
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            kind = "class" if isinstance(node, ast.ClassDef) else ("method" if in_class else "function")
            out.append((Symbol(qual, kind, Span(start, node.end_lineno or node.lineno), node.lineno),
                        _head(node)))
            if isinstance(node, ast.ClassDef):
                _walk(node.body, qual + ".", True, out)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and (not prefix or in_class):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            head = Head(node.end_lineno or node.lineno, 0, _doc(body[i + 1] if i + 1 < len(body) else None))
            for target in targets:
                for name in _names(target):
                    out.append((Symbol(f"{prefix}{name}", "variable",
                                       Span(node.lineno, node.end_lineno or node.lineno), node.lineno),
                                head))
        elif isinstance(node, ast.TypeAlias) and isinstance(node.name, ast.Name):
            # `type BlockDim = ...` (PEP 695): a module or class name like an assignment's.
            out.append((Symbol(f"{prefix}{node.name.id}", "variable",
                               Span(node.lineno, node.end_lineno or node.lineno), node.lineno),
                        Head(node.end_lineno or node.lineno)))
        elif isinstance(node, (ast.If, ast.Try)) and not prefix:
            # Module-level definitions guarded by `if`/`try` (version checks, optional imports).
            for block in _blocks(node):
                _walk(block, prefix, in_class, out)


def _head(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Head:
    """A def's or class's header end, its body after the docstring, and the docstring's first line."""
    first = node.body[0]
    end = max(node.lineno, first.lineno - 1)
    rest = node.body[1:] if _is_string(first) else node.body
    return Head(end, rest[0].lineno if rest else 0, _doc(first))


def _is_string(node: ast.stmt | None) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _doc(node: ast.stmt | None) -> str:
    """The first non-blank line of a string-literal statement (a docstring), else ''."""
    if not _is_string(node):
        return ""
    assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    for line in str(node.value.value).splitlines():
        if line.strip():
            text = line.strip()
            return text if len(text) <= DOC_CHARS else text[:DOC_CHARS - 1] + "\u2026"
    return ""


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _names(elt)]
    return []


def _blocks(node: ast.If | ast.Try) -> list[list[ast.stmt]]:
    if isinstance(node, ast.If):
        return [node.body, node.orelse]
    return [node.body, *[h.body for h in node.handlers], node.orelse, node.finalbody]
