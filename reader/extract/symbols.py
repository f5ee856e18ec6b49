"""Symbols of one module (classes, functions, methods, module-level names) from `ast`, fast.

Parsed by `parse.parse_ast`: syntax newer than the interpreter goes through libcst; a file no
parser reads raises `parse.ParseError` (located at `where`)."""

from __future__ import annotations

import ast
from typing import NamedTuple

from reader.extract.parse import parse_ast
from reader.model import Head, Span, Symbol

DOC_CHARS = 240
"""A docstring's first line is cut to this many characters (a hover card shows it)."""
SIGNATURE_CHARS = 60
VALUE_CHARS = 50


class Defined(NamedTuple):
    """A definition and its `Head` (header end, body after the docstring, doc line)."""

    symbol: Symbol
    head: Head


def symbols_of(text: str, tree: ast.Module | None = None, where: str = "<source>") -> list[Symbol]:
    """Every definition in `text` with its qualified name and exact line span, in source order."""
    return [s for s, _ in definitions_of(text, tree, where)]


def definitions_of(text: str, tree: ast.Module | None = None,
                   where: str = "<source>") -> list[Defined]:
    """`symbols_of`, each symbol with its `Head`."""
    tree = tree or parse_ast(text, where)
    out: list[Defined] = []
    _walk(tree.body, "", False, out)
    return sorted(out, key=lambda d: (d.symbol.span.start, d.symbol.qualname))


def _walk(body: list[ast.stmt], prefix: str, in_class: bool, out: list[Defined]) -> None:
    for i, node in enumerate(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qual = f"{prefix}{node.name}"
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            kind = "class" if isinstance(node, ast.ClassDef) else ("method" if in_class else "function")
            out.append(Defined(Symbol(qual, kind, Span(start, node.end_lineno or node.lineno), node.lineno),
                               _head(node)))
            if isinstance(node, ast.ClassDef):
                _walk(node.body, qual + ".", True, out)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and (not prefix or in_class):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            own = value is not None and not _alias(value)
            doc = _doc(body[i + 1] if i + 1 < len(body) else None)
            for target in targets:
                for name in _names(target):
                    out.append(Defined(Symbol(f"{prefix}{name}", "variable",
                                              Span(node.lineno, node.end_lineno or node.lineno), node.lineno),
                                       Head(node.end_lineno or node.lineno, 0, doc,
                                            "= " + _value(value) if value is not None else "",
                                            own and not prefix and not name.startswith("__"))))
        elif isinstance(node, ast.TypeAlias) and isinstance(node.name, ast.Name):
            # `type BlockDim = ...` (PEP 695): a module or class name like an assignment's.
            name = node.name.id
            out.append(Defined(Symbol(f"{prefix}{name}", "variable",
                                      Span(node.lineno, node.end_lineno or node.lineno), node.lineno),
                               Head(node.end_lineno or node.lineno, 0, "", "= " + _value(node.value),
                                    not prefix and not name.startswith("__"))))
        elif isinstance(node, (ast.If, ast.Try)) and not prefix:
            # Module-level definitions guarded by `if`/`try` (version checks, optional imports).
            for block in _blocks(node):
                _walk(block, prefix, in_class, out)


def _head(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Head:
    """A def's or class's header end, its body after the docstring, and the docstring's first line."""
    first = node.body[0]
    end = max(node.lineno, first.lineno - 1)
    rest = node.body[1:] if _is_string(first) else node.body
    return Head(end, rest[0].lineno if rest else 0, _doc(first), _signature(node))


def module_doc(tree: ast.Module) -> str:
    """The first line of the module's docstring, else ''."""
    return _doc(tree.body[0] if tree.body else None)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        return cut("(" + ", ".join(bases) + ")", SIGNATURE_CHARS, ")") if bases else ""
    return cut("(" + ", ".join(_params(node.args)) + ")", SIGNATURE_CHARS, ")")


def _params(args: ast.arguments) -> list[str]:
    """Parameter names as a call site sees them: `/`, `*` and `*args`, `**kwargs`; no annotations
    or defaults."""
    out = [a.arg for a in args.posonlyargs] + (["/"] if args.posonlyargs else [])
    out += [a.arg for a in args.args]
    if args.vararg is not None:
        out.append("*" + args.vararg.arg)
    elif args.kwonlyargs:
        out.append("*")
    out += [a.arg for a in args.kwonlyargs]
    if args.kwarg is not None:
        out.append("**" + args.kwarg.arg)
    return out


def _value(value: ast.expr) -> str:
    """A value in one short line: as written when it fits, else its outer shape (`Primitive(…)`)."""
    if value.end_lineno == value.lineno:
        text = ast.unparse(value)
        if len(text) <= VALUE_CHARS:
            return text
    if isinstance(value, ast.Call):
        return cut(ast.unparse(value.func), VALUE_CHARS - 3, "") + "(…)"
    brackets = {ast.Dict: "{…}", ast.Set: "{…}", ast.List: "[…]", ast.Tuple: "(…)"}
    return brackets.get(type(value), "…")


def _alias(value: ast.expr) -> bool:
    """A name, an attribute, or a tuple of them: `map = safe_map`, `partial = functools.partial`."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return bool(value.elts) and all(_alias(e) for e in value.elts)
    return isinstance(value, (ast.Name, ast.Attribute))


def cut(text: str, limit: int, close: str = "") -> str:
    """`text` in at most `limit` characters, an ellipsis (and `close`) marking a cut."""
    if len(text) <= limit:
        return text
    return text[:limit - 1 - len(close)].rstrip(", ") + "…" + close



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
