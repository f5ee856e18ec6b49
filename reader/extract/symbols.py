"""Symbols of one module (classes, functions, methods, module-level names) from `ast`, fast.

Parsed by `parse.parse_ast`: syntax newer than the interpreter goes through libcst; a file no
parser reads raises `parse.ParseError` (located at `where`)."""

from __future__ import annotations

import ast

from reader.extract.parse import parse_ast
from reader.model import Span, Symbol


def symbols_of(text: str, tree: ast.Module | None = None, where: str = "<source>") -> list[Symbol]:
    """Every definition in `text` with its qualified name and exact line span, in source order."""
    tree = tree or parse_ast(text, where)
    out: list[Symbol] = []
    _walk(tree.body, "", False, out)
    return sorted(out, key=lambda s: (s.span.start, s.qualname))


def _walk(body: list[ast.stmt], prefix: str, in_class: bool, out: list[Symbol]) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qual = f"{prefix}{node.name}"
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            kind = "class" if isinstance(node, ast.ClassDef) else ("method" if in_class else "function")
            out.append(Symbol(qual, kind, Span(start, node.end_lineno or node.lineno), node.lineno))
            if isinstance(node, ast.ClassDef):
                _walk(node.body, qual + ".", True, out)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and (not prefix or in_class):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in _names(target):
                    out.append(Symbol(f"{prefix}{name}", "variable",
                                      Span(node.lineno, node.end_lineno or node.lineno), node.lineno))
        elif isinstance(node, ast.TypeAlias) and isinstance(node.name, ast.Name):
            # `type BlockDim = ...` (PEP 695): a module or class name like an assignment's.
            out.append(Symbol(f"{prefix}{node.name.id}", "variable",
                              Span(node.lineno, node.end_lineno or node.lineno), node.lineno))
        elif isinstance(node, (ast.If, ast.Try)) and not prefix:
            # Module-level definitions guarded by `if`/`try` (version checks, optional imports).
            for block in _blocks(node):
                _walk(block, prefix, in_class, out)


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
