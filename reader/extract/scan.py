"""One file's names, scope-aware, from `ast`: its module-level bindings and the name chains it reads.

The tree comes from `parse.parse_ast`: the interpreter's `ast.parse` (fast), or for syntax it
refuses, libcst lowered to the same `ast` (tests/test_parse.py checks both give one summary)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from reader.extract.parse import children, parse_ast
from reader.extract.symbols import definitions_of, module_doc
from reader.model import Head, Span, Symbol

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (*_FUNCS, ast.ClassDef, *_COMPS)
_STMTS = frozenset(ast.stmt.__subclasses__())


@dataclass(frozen=True)
class Binding:
    """A module-level name binding: what the name means after that line."""

    name: str
    line: int
    kind: str
    """`def` (a symbol of this module), `module` (`import a.b as c`), `from` (`from m import x`),
    or `other` (a loop variable, a `with` target: bound, never linked)."""
    module: str = ""
    """For `module`: the module bound; for `from`: the (absolute) module imported from."""
    attr: str = ""
    """For `from`: the name imported."""


class Part(NamedTuple):
    """One identifier of a chain `a.b.c` as it appears in the text (a tuple: a file has tens of
    thousands, made by each scan and each summary read from the cache)."""

    name: str
    line: int
    col: int
    """0-based, in characters of the line."""


class Chain(NamedTuple):
    """A read of `name.attr...`; how its head resolves depends on `head`."""

    head: str
    """`global` (a module-level name), `member` (`self.x` in a method of `owner`), or
    `classvar` (a name read in the body of class `owner`, bound there before)."""
    parts: tuple[Part, ...]
    owner: str = ""
    at_module: bool = True
    """Whether the code runs at import (module level or a class body), so the binding in effect
    at its line is the one that counts; otherwise the module's last binding does."""


@dataclass(frozen=True)
class FileSummary:
    """What one module defines and reads, independent of every other file (so cacheable by blob)."""

    module: str
    is_package: bool
    symbols: tuple[Symbol, ...]
    bindings: dict[str, tuple[Binding, ...]]
    stars: tuple[str, ...]
    bases: dict[str, tuple[str | None, ...]]
    """Class qualname -> its bases as dotted names (None for a base that is not a name chain)."""
    chains: tuple[Chain, ...]
    heads: tuple[Head, ...] = ()
    """Each symbol's `Head` (signature end, body after the docstring, doc line), in `symbols`' order."""
    doc: str = ""
    """The first line of the module's docstring."""

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module, "is_package": self.is_package,
            "symbols": [[s.qualname, s.kind, s.span.start, s.span.end, s.line]
                        for s in self.symbols],
            "bindings": [[b.name, b.line, b.kind, b.module, b.attr]
                         for bs in self.bindings.values() for b in bs],
            "stars": list(self.stars),
            "bases": self.bases,
            "chains": [[c.head, c.owner, c.at_module, [[p.name, p.line, p.col] for p in c.parts]]
                       for c in self.chains],
            "heads": [[h.end, h.body, h.doc, h.signature, h.listed] for h in self.heads],
            "doc": self.doc,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileSummary:
        bindings: dict[str, list[Binding]] = {}
        for name, line, kind, module, attr in data["bindings"]:
            bindings.setdefault(name, []).append(Binding(name, line, kind, module, attr))
        return cls(
            data["module"], data["is_package"],
            tuple(Symbol(q, k, Span(a, b), line) for q, k, a, b, line in data["symbols"]),
            {n: tuple(bs) for n, bs in bindings.items()},
            tuple(data["stars"]),
            {k: tuple(v) for k, v in data["bases"].items()},
            tuple(Chain(head, tuple(map(Part._make, parts)), owner, at_module)
                  for head, owner, at_module, parts in data["chains"]),
            tuple(Head(*h) for h in data.get("heads", ())),
            data.get("doc", ""),
        )


def summarize(text: str, module: str, is_package: bool = False, where: str = "",
              tree: ast.Module | None = None) -> FileSummary:
    """Scan `text` (the source of `module`) into a FileSummary; a ParseError names the file
    `where` (`pin:path`; default the module) when no parser reads it. `tree`: parsed already."""
    tree = tree or parse_ast(text, where or module)
    found = definitions_of(text, tree)
    symbols = [s for s, _ in found]
    builder = _Builder(module, is_package, {(s.qualname, s.line) for s in symbols})
    builder.bind_module(tree)
    reader = _Reader(text.splitlines())
    reader.read_all(builder.reads)
    bases = {qual: tuple(_dotted(b) for b in node.bases) for qual, node in builder.classes.items()}
    bindings: dict[str, tuple[Binding, ...]] = {}
    for b in builder.bindings:
        bindings[b.name] = (*bindings.get(b.name, ()), b)
    return FileSummary(module, is_package, tuple(symbols), bindings, tuple(builder.stars), bases,
                       tuple(reader.chains), tuple(h for _, h in found), module_doc(tree))


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module of `from <level dots><target> import ...` written in `module`."""
    if level == 0:
        return target or ""
    package = module if is_package else module.rpartition(".")[0]
    parts = package.split(".") if package else []
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, *([target] if target else [])])


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


@dataclass
class _Scope:
    kind: str
    """`module`, `class`, `function` or `comprehension`."""
    parent: _Scope | None
    qualname: str = ""
    """For a class: its qualname when it has a symbol (a class at module level or in a class)."""
    locals: dict[str, int] = field(default_factory=dict)
    """Name -> how many times it is bound in this scope (for a class: the first line instead)."""
    declared_global: set[str] = field(default_factory=set)
    self_name: str = ""
    """For a method: its first parameter, when the body never rebinds it."""
    owner: str = ""
    """For a method: the qualname of its class."""


class _Read(NamedTuple):
    """A name chain `a.b.c` read: its head (a loaded name), its attributes, the scope it is in."""

    base: ast.Name
    attrs: list[ast.Attribute]
    scope: _Scope


class _Builder:
    """The one walk: build the scopes and what each binds (Python decides locals per whole scope),
    and keep each name chain read, in the order of the text, for `_Reader` to resolve once every
    scope's locals are known."""

    def __init__(self, module: str, is_package: bool, symbol_keys: set[tuple[str, int]]):
        self.module = module
        self.is_package = is_package
        self.symbol_keys = symbol_keys
        self.reads: list[_Read] = []
        self.bindings: list[Binding] = []
        self.stars: list[str] = []
        self.classes: dict[str, ast.ClassDef] = {}
        self._stmt_line = 0

    def bind_module(self, tree: ast.Module) -> _Scope:
        root = _Scope("module", None)
        for stmt in tree.body:
            self._bind(stmt, root)
        return root

    def _add(self, scope: _Scope, name: str, line: int, kind: str = "", module: str = "",
             attr: str = "") -> None:
        if scope.kind == "module":
            if not kind:
                kind = "def" if (name, self._stmt_line) in self.symbol_keys else "other"
            self.bindings.append(Binding(name, line, kind, module, attr))
        elif scope.kind == "class":
            scope.locals.setdefault(name, line)
        else:
            scope.locals[name] = scope.locals.get(name, 0) + 1

    def _bind(self, node: ast.AST, scope: _Scope) -> None:
        kind = node.__class__  # (`children` leaves out the leaves: constants, operators)
        if kind in _STMTS:
            self._stmt_line = node.lineno  # type: ignore[attr-defined]
        how = _BINDS.get(kind)
        if how is None or how(self, node, scope):
            for child in children(node):
                if child.__class__ is ast.Name:  # the commonest node: `_bind_name` inline
                    if child.ctx.__class__ is ast.Load:
                        self.reads.append(_Read(child, [], scope))
                    else:
                        self._add(scope, child.id, child.lineno)
                else:
                    self._bind(child, scope)

    def _bind_name(self, node: ast.Name, scope: _Scope) -> bool:
        if node.ctx.__class__ is ast.Load:
            self.reads.append(_Read(node, [], scope))
        else:
            self._add(scope, node.id, node.lineno)
        return False  # its one child is its context

    def _bind_attribute(self, node: ast.Attribute, scope: _Scope) -> bool:
        """`a.b.c`: one read of a chain when its head is a name; otherwise its children are
        visited (`f().b`: `f`). Anything else inside a chain (a subscript, a call) is not a link:
        `a.b` holds only names, so nothing else to visit."""
        attrs = [node]
        base = node.value
        while base.__class__ is ast.Attribute:
            attrs.append(base)
            base = base.value
        if base.__class__ is ast.Name and base.ctx.__class__ is ast.Load:
            attrs.reverse()
            self.reads.append(_Read(base, attrs, scope))
            return False
        return True

    def _bind_augassign(self, node: ast.AugAssign, scope: _Scope) -> bool:
        if node.target.__class__ is not ast.Name:
            return True
        if scope.kind != "module":  # `x += 1` at module level keeps x's meaning
            self._add(scope, node.target.id, node.lineno)
        self._bind(node.value, scope)
        return False

    def _bind_import(self, node: ast.Import, scope: _Scope) -> bool:
        for a in node.names:
            if a.asname:
                self._add(scope, a.asname, node.lineno, "module", a.name)
            else:
                head = a.name.split(".")[0]
                self._add(scope, head, node.lineno, "module", head)
        return False

    def _bind_importfrom(self, node: ast.ImportFrom, scope: _Scope) -> bool:
        source = resolve_relative(self.module, self.is_package, node.level, node.module)
        for a in node.names:
            if a.name == "*":
                if scope.kind == "module":
                    self.stars.append(source)
                continue
            self._add(scope, a.asname or a.name, node.lineno, "from", source, a.name)
        return False

    def _bind_global(self, node: ast.Global, scope: _Scope) -> bool:
        scope.declared_global.update(node.names)
        return False

    def _bind_named(self, node: ast.ExceptHandler | ast.MatchAs | ast.MatchStar, scope: _Scope) -> bool:
        if node.name:
            self._add(scope, node.name, node.lineno)
        return True

    def _bind_rest(self, node: ast.MatchMapping, scope: _Scope) -> bool:
        if node.rest:
            self._add(scope, node.rest, node.lineno)
        return True

    def _bind_walrus(self, node: ast.NamedExpr, scope: _Scope) -> bool:
        target = scope
        while target.kind == "comprehension" and target.parent:
            target = target.parent
        self._add(target, node.target.id, node.lineno)
        self._bind(node.value, scope)
        return False

    def _bind_scope_node(self, node: ast.AST, scope: _Scope) -> bool:
        self._bind_scope(node, scope)
        return False

    def _bind_scope(self, node: ast.AST, scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._add(scope, node.name, node.lineno)
        for part in _outer_parts(node):
            self._bind(part, scope)
        if isinstance(node, ast.ClassDef):
            qual = ""
            if scope.kind == "module" or (scope.kind == "class" and scope.qualname):
                qual = f"{scope.qualname}.{node.name}" if scope.qualname else node.name
                self.classes[qual] = node
            inner = _Scope("class", scope, qual)
        elif isinstance(node, _FUNCS):
            inner = _Scope("function", scope)
            for a in _params(node.args):
                inner.locals[a.arg] = inner.locals.get(a.arg, 0) + 1
        else:
            inner = _Scope("comprehension", scope)
        saved = self._stmt_line
        for part in _scope_body(node):
            self._bind(part, inner)
        self._stmt_line = saved
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope.kind == "class":
            _mark_method(node, scope, inner)


_BINDS: dict[type, Callable[[_Builder, Any, _Scope], bool]] = {
    **dict.fromkeys(_SCOPES, _Builder._bind_scope_node),
    ast.Name: _Builder._bind_name, ast.Attribute: _Builder._bind_attribute, ast.AugAssign: _Builder._bind_augassign,
    ast.Import: _Builder._bind_import, ast.ImportFrom: _Builder._bind_importfrom,
    ast.Global: _Builder._bind_global, ast.Nonlocal: lambda b, node, scope: False,
    ast.ExceptHandler: _Builder._bind_named, ast.MatchAs: _Builder._bind_named,
    ast.MatchStar: _Builder._bind_named, ast.MatchMapping: _Builder._bind_rest,
    ast.NamedExpr: _Builder._bind_walrus,
}
"""What the walk does at a node of each kind besides (when it returns True) visiting its
children: what it binds where."""


def _mark_method(node: ast.FunctionDef | ast.AsyncFunctionDef, cls: _Scope, inner: _Scope) -> None:
    """A method's first parameter stands for its class, unless it is a staticmethod or rebound."""
    if not cls.qualname:
        return
    if any(_dotted(d) in ("staticmethod", "builtins.staticmethod") for d in node.decorator_list):
        return
    params = [*node.args.posonlyargs, *node.args.args]
    if params and inner.locals.get(params[0].arg) == 1:
        inner.self_name = params[0].arg
        inner.owner = cls.qualname


def _params(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a scope-making node that are evaluated in the enclosing scope."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        annotations = [a.annotation for a in _params(node.args) if a.annotation]
        return [*node.decorator_list, *node.args.defaults,
                *[d for d in node.args.kw_defaults if d is not None], *annotations,
                *([node.returns] if node.returns else [])]
    if isinstance(node, ast.Lambda):
        return [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    if isinstance(node, _COMPS):
        return [node.generators[0].iter]
    return []


def _scope_body(node: ast.AST) -> list[ast.AST]:
    """The parts of a scope-making node that are evaluated inside its own scope."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return list(node.body)
    if isinstance(node, ast.Lambda):
        return [node.body]
    if isinstance(node, _COMPS):
        gens = node.generators
        parts: list[ast.AST] = []
        for i, g in enumerate(gens):
            parts += [g.target, *([g.iter] if i else []), *g.ifs]
        if isinstance(node, ast.DictComp):
            return [*parts, node.key, node.value]
        return [*parts, node.elt]
    return []


class _Reader:
    """After the walk: each name chain read, with how its head resolves (global, member, classvar)."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.chains: list[Chain] = []

    def read_all(self, reads: list[_Read]) -> None:
        for base, attrs, scope in reads:
            self._chain(base, attrs, scope)

    def _chain(self, base: ast.Name, attrs: list[ast.Attribute], scope: _Scope) -> None:
        head, owner, at_module = self._lookup(base.id, base.lineno, scope)
        if not head:
            return
        col = self._col(base.id, base.lineno, base.col_offset)
        if col < 0:
            return
        parts = [Part(base.id, base.lineno, col)]
        for a in attrs:
            line, end = a.end_lineno, a.end_col_offset
            if line is None or end is None:
                break
            col = self._col(a.attr, line, end, end=True)
            if col < 0:
                return
            parts.append(Part(a.attr, line, col))
        self.chains.append(Chain(head, tuple(parts), owner, at_module))

    def _col(self, name: str, line: int, byte_col: int, end: bool = False) -> int:
        """The column in characters of `name` at `byte_col` (where it ends when `end`), or -1
        when the text does not show the name there."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():  # a name it shows is ASCII too
            col = byte_col - len(name) if end else byte_col
        else:
            start = byte_col - len(name.encode("utf-8")) if end else byte_col
            col = len(text.encode("utf-8")[:start].decode("utf-8", errors="replace"))
        return col if text[col:col + len(name)] == name else -1

    def _lookup(self, name: str, line: int, scope: _Scope) -> tuple[str, str, bool]:
        """(head, owner, at_module) for a read of `name`; head "" when it is a local."""
        s: _Scope | None = scope
        direct = True
        at_module = True
        while s is not None:
            if s.kind == "module" or name in s.declared_global:
                return "global", "", at_module and s.kind == "module"
            if s.kind == "class":
                first = s.locals.get(name)
                if direct and first is not None and first < line:
                    return ("classvar", s.qualname, at_module) if s.qualname else ("", "", False)
            elif name in s.locals:
                if s.self_name == name:
                    return "member", s.owner, False
                return "", "", False
            if s.kind == "function":
                at_module = False
            direct = False  # a class body's names are invisible to the scopes nested in it
            s = s.parent
        return "", "", False
