"""A file's outline: its classes (methods nested), functions and notable module-level names, each
with its line, a short signature and its docstring's first line; the source page's outline panel
and the search index's entries come from it."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from reader.extract.parse import ParseError, parse_ast
from reader.model import Symbol

SIGNATURE_CHARS = 60
DOC_CHARS = 80
VALUE_CHARS = 50


@dataclass(frozen=True)
class OutlineItem:
    """One definition of the outline, with those nested in it (a class's methods)."""

    qualname: str
    kind: str
    """class | function | method | variable"""
    line: int
    signature: str = ""
    """`(ctx, x, *, axis)` for a function, `(Base)` for a class, `= value` for a name."""
    doc: str = ""
    """The docstring's first line."""
    children: tuple[OutlineItem, ...] = ()

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Outline:
    items: tuple[OutlineItem, ...]
    doc: str = ""
    """The module docstring's first line."""

    def walk(self) -> list[OutlineItem]:
        """Every item, in source order (a class before its methods)."""
        out: list[OutlineItem] = []
        stack = list(reversed(self.items))
        while stack:
            item = stack.pop()
            out.append(item)
            stack.extend(reversed(item.children))
        return out


def outline(symbols: Sequence[Symbol], text: str, where: str) -> Outline:
    """The outline of a file from its symbols (in source order) and its text."""
    try:
        tree: ast.Module | None = parse_ast(text, where)
    except ParseError:
        tree = None
    nodes = _nodes(tree) if tree is not None else {}
    flat: dict[str, OutlineItem] = {}
    children: dict[str, list[str]] = {}
    for s in symbols:
        node = nodes.get(s.line)
        if s.qualname in flat or not _shown(s, node):
            continue
        flat[s.qualname] = OutlineItem(s.qualname, s.kind, s.line, _signature(node), _doc(node))
        children[s.qualname] = []
        parent = s.qualname.rpartition(".")[0]
        if parent:
            children.setdefault(parent, []).append(s.qualname)

    def build(name: str) -> OutlineItem:
        item = flat[name]
        kids = tuple(build(k) for k in children.get(name, ()) if k in flat)
        return OutlineItem(item.qualname, item.kind, item.line, item.signature, item.doc, kids)

    top = tuple(build(q) for q in flat if "." not in q)
    return Outline(top, _first_line(ast.get_docstring(tree)) if tree is not None else "")


KIND_MARKS = {"class": "c", "function": "f", "method": "m", "variable": "v"}
"""The outline's kind letters (`data-k` of its links; outline.css shows them)."""


def outline_data(items: Sequence[OutlineItem], depth: int = 0) -> str:
    """The outline as outline.js reads it (and builds the panel's list from, when first shown):
    a line per item, `<depth spaces><kind letter><line> <name>` (`f594 aval_to_ir_type`, a
    method ` m20 apply`), so that a page carries ~20 bytes a name and no elements for it."""
    return "".join(f"{' ' * depth}{KIND_MARKS.get(item.kind, 'v')}{item.line} {item.name}\n"
                   + outline_data(item.children, depth + 1) for item in items)


def _nodes(tree: ast.Module) -> dict[int, ast.AST]:
    """Definitions and assignments by the line a `Symbol` names (the first one on a line).
    Statements only hold statements in their bodies, so the walk skips every expression."""
    out: dict[int, ast.AST] = {}
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFINITIONS):
            out.setdefault(node.lineno, node)
        for name in _BODIES:
            inner = getattr(node, name, None)
            if inner:
                stack.extend(reversed(inner))
    return out


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign,
                ast.TypeAlias)
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields of a statement (or handler, or match case) that hold statements."""


def _shown(s: Symbol, node: ast.AST | None) -> bool:
    """Classes, functions and methods; of the names, the module-level ones bound to a value of
    their own (not `map = safe_map`, `partial = functools.partial`, nor a dunder like `__all__`)."""
    if s.kind != "variable":
        return True
    if "." in s.qualname or s.name.startswith("__"):
        return False
    if isinstance(node, ast.TypeAlias):
        return True
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    return value is not None and not _alias(value)


def _alias(value: ast.expr) -> bool:
    if isinstance(value, (ast.Tuple, ast.List)):
        return bool(value.elts) and all(_alias(e) for e in value.elts)
    return isinstance(value, (ast.Name, ast.Attribute))


def _signature(node: ast.AST | None) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _cut("(" + ", ".join(_params(node.args)) + ")", SIGNATURE_CHARS, ")")
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        return _cut("(" + ", ".join(bases) + ")", SIGNATURE_CHARS, ")") if bases else ""
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        return "= " + _value(node.value)
    if isinstance(node, ast.TypeAlias):
        return "= " + _value(node.value)
    return ""


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
        return _cut(ast.unparse(value.func), VALUE_CHARS - 3, "") + "(…)"
    brackets = {ast.Dict: "{…}", ast.Set: "{…}", ast.List: "[…]", ast.Tuple: "(…)"}
    return brackets.get(type(value), "…")


def _doc(node: ast.AST | None) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _first_line(ast.get_docstring(node))
    return ""


def _first_line(doc: str | None) -> str:
    """The first non-blank line, its invisible characters (bidi controls) written as escapes,
    as `ast.unparse` writes them in a value."""
    for line in (doc or "").splitlines():
        if line.strip():
            shown = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in line.strip())
            return _cut(shown, DOC_CHARS, "")
    return ""


def _cut(text: str, limit: int, close: str) -> str:
    """`text` in at most `limit` characters, an ellipsis (and `close`) marking a cut."""
    if len(text) <= limit:
        return text
    return text[:limit - 1 - len(close)].rstrip(", ") + "…" + close
