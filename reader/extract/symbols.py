"""Symbols of one module (classes, functions, methods, module-level names) from `ast`, fast."""

from __future__ import annotations

import ast

from reader.model import Span, Symbol


def symbols_of(text: str, tree: ast.Module | None = None) -> list[Symbol]:
    """Every definition in `text` with its qualified name and exact line span, in source order."""
    tree = tree or ast.parse(text)
    out: list[Symbol] = []
    _walk(tree.body, "", False, text.splitlines(), out)
    return sorted(out, key=lambda s: (s.span.start, s.qualname))


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> str:
    """The header as written, from the `def`/`class` line to the colon that opens the body."""
    last = max(node.lineno, node.body[0].lineno - 1)
    header = " ".join(line.strip() for line in lines[node.lineno - 1:last])
    cut = header.rfind(":")
    return header[: cut + 1] if cut >= 0 else header


def _walk(body: list[ast.stmt], prefix: str, in_class: bool, text: list[str],
          out: list[Symbol]) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qual = f"{prefix}{node.name}"
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            kind = "class" if isinstance(node, ast.ClassDef) else ("method" if in_class else "function")
            out.append(Symbol(qual, kind, Span(start, node.end_lineno or node.lineno), node.lineno,
                              _header(node, text)))
            if isinstance(node, ast.ClassDef):
                _walk(node.body, qual + ".", True, text, out)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and (not prefix or in_class):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in _names(target):
                    out.append(Symbol(f"{prefix}{name}", "variable",
                                      Span(node.lineno, node.end_lineno or node.lineno), node.lineno))
        elif isinstance(node, (ast.If, ast.Try)) and not prefix:
            # Module-level definitions guarded by `if`/`try` (version checks, optional imports).
            for block in _blocks(node):
                _walk(block, prefix, in_class, text, out)


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
