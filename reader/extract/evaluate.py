"""A static evaluator of module-level code: the values names hold, without importing anything.

It understands what registration code is made of (literals, loops over them, `functools.partial`,
enum members, aliases across modules) and hands every call to a `Hooks` object, which is how
`rules.py` sees registrations happen. Anything else becomes an opaque value, never a guess.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from reader.extract.index import Index
from reader.extract.references import Target


class Value:
    """Base of the evaluator's values."""


@dataclass(frozen=True)
class Obj(Value):
    """A definition of the corpus that is its own identity: a function, class, or a variable
    whose value is not one of the shapes below (e.g. `load_p = Primitive("load")`)."""

    module: str
    qualname: str
    kind: str


@dataclass(frozen=True)
class Ext(Value):
    """Something outside the corpus, by the dotted path it was reached through."""

    dotted: str


@dataclass(frozen=True)
class Mod(Value):
    module: str


@dataclass(frozen=True)
class Member(Value):
    """`Cls.NAME` of a class (an enum member when the class is an enum)."""

    cls: Obj
    name: str


@dataclass(frozen=True)
class Seq(Value):
    items: tuple[Value, ...]


@dataclass(frozen=True)
class Mapping(Value):
    items: tuple[tuple[Value, Value], ...]


@dataclass(frozen=True)
class Func(Value):
    """A function defined where it has no symbol (in a loop body)."""

    module: str
    name: str
    line: int
    start: int


@dataclass(frozen=True)
class Lambda(Value):
    module: str
    line: int


@dataclass(frozen=True)
class Partial(Value):
    func: Value
    args: tuple[Value, ...]
    kwargs: tuple[tuple[str, Value], ...]
    text: str


@dataclass(frozen=True)
class Result(Value):
    """What a call returned, when nothing more is known about it."""

    func: Value
    text: str
    line: int


@dataclass(frozen=True)
class BoundMethod(Value):
    owner: Value
    name: str


@dataclass(frozen=True)
class Const(Value):
    value: str


@dataclass(frozen=True)
class Opaque(Value):
    text: str


@dataclass(frozen=True)
class Call:
    """A call as the evaluator saw it, for the hooks."""

    func: Value
    args: tuple[Value, ...]
    kwargs: tuple[tuple[str, Value], ...]
    module: str
    line: int
    text: str
    form: str = "call"
    """`call`, or `decorator` when the call is a decorator applied to a function."""


class Hooks:
    """What a client of the evaluator may intercept; the defaults intercept nothing."""

    def special(self, target: Target) -> Value | None:
        """A value to use for a definition instead of evaluating it (a registry, a registrar)."""
        return None

    def call(self, ev: Evaluator, call: Call) -> Value | None:
        """The value of a call, or None to let the evaluator decide."""
        return None

    def store(self, ev: Evaluator, container: Value, key: Value, value: Value, module: str,
              line: int) -> None:
        """`container[key] = value` at module level."""

    def subscript(self, container: Value, key: Value) -> Value | None:
        """The value of `container[key]`, or None to let the evaluator decide."""
        return None


class Evaluator:
    """Evaluates module-level statements of corpus modules, in source order."""

    def __init__(self, index: Index, read: Callable[[str], str], hooks: Hooks | None = None):
        self.index = index
        self.read = read
        """module -> its source text."""
        self.hooks = hooks or Hooks()
        self._trees: dict[str, ast.Module] = {}
        self._vars: dict[tuple[str, str], Value] = {}
        self._env: dict[str, dict[str, Value]] = {}

    def tree(self, module: str) -> ast.Module:
        if module not in self._trees:
            self._trees[module] = ast.parse(self.read(module))
        return self._trees[module]

    # running modules ---------------------------------------------------------------
    def run_module(self, module: str) -> None:
        """Execute `module`'s top-level statements for their effects on the hooks."""
        self._env[module] = {}
        self._exec(self.tree(module).body, module)

    def _exec(self, body: list[ast.stmt], module: str) -> None:
        for stmt in body:
            self._stmt(stmt, module)

    def _stmt(self, stmt: ast.stmt, module: str) -> None:
        env = self._env.setdefault(module, {})
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            value = self._decorate(stmt, module)
            env[stmt.name] = self._defined(module, stmt.name, stmt.lineno) or value
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            value = self.eval(stmt.value, module)
            for target in _targets(stmt):
                named = isinstance(target, ast.Name) and self._defined(module, target.id, stmt.lineno)
                self._assign(target, named or value, module)
        elif isinstance(stmt, ast.Expr):
            self.eval(stmt.value, module)
        elif isinstance(stmt, ast.For):
            items = self.eval(stmt.iter, module)
            for item in items.items if isinstance(items, Seq) else ():
                self._assign(stmt.target, item, module)
                self._exec(stmt.body, module)
            self._exec(stmt.orelse, module)
        elif isinstance(stmt, (ast.If, ast.With)):
            # No pinned registration is conditional; both branches are read.
            self._exec(stmt.body, module)
            self._exec(getattr(stmt, "orelse", []), module)
        elif isinstance(stmt, ast.Try):
            self._exec(stmt.body, module)
            self._exec(stmt.orelse, module)
            self._exec(stmt.finalbody, module)

    def _defined(self, module: str, name: str, line: int) -> Value | None:
        """The identity of a module-level definition made at `line`, when its value says no more:
        a hooked definition (a registry), or a variable holding an opaque value."""
        sym = self.index.symbol(module, name)
        if sym is None or sym.line != line:
            return None
        special = self.hooks.special(Target("def", module, name))
        if special is not None:
            return special
        return None if sym.kind != "variable" else self.variable(module, name, line)

    def _decorate(self, node: ast.FunctionDef | ast.AsyncFunctionDef, module: str) -> Value:
        sym = self.index.symbol(module, node.name)
        start = min([d.lineno for d in node.decorator_list] + [node.lineno])
        value: Value = Obj(module, node.name, "function") if sym and sym.line == node.lineno \
            else Func(module, node.name, node.lineno, start)
        for dec in reversed(node.decorator_list):
            deco = self.eval(dec, module)
            result = self.apply(deco, (value,), (), module, dec.lineno, ast.unparse(dec),
                                "decorator")
            if not isinstance(result, (Result, Opaque)):
                value = result
        return value

    def _assign(self, target: ast.expr, value: Value, module: str) -> None:
        env = self._env.setdefault(module, {})
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.items if isinstance(value, Seq) else ()
            for i, elt in enumerate(target.elts):
                self._assign(elt, items[i] if i < len(items) else Opaque(ast.unparse(elt)), module)
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value, module)
            key = self.eval(target.slice, module)
            self.hooks.store(self, container, key, value, module, target.lineno)

    # expressions ---------------------------------------------------------------------
    def eval(self, node: ast.expr, module: str) -> Value:
        if isinstance(node, ast.Name):
            return self.name(module, node.id, node.lineno)
        if isinstance(node, ast.Attribute):
            return self.attr(self.eval(node.value, module), node.attr)
        if isinstance(node, ast.Call):
            return self._call(node, module)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return Seq(tuple(v for elt in node.elts for v in self._spread(elt, module)))
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                return Opaque(ast.unparse(node))
            return Mapping(tuple((self.eval(k, module), self.eval(v, module))  # type: ignore[arg-type]
                                 for k, v in zip(node.keys, node.values, strict=True)))
        if isinstance(node, ast.Lambda):
            return Lambda(module, node.lineno)
        if isinstance(node, ast.Constant):
            return Const(repr(node.value))
        if isinstance(node, ast.Subscript):
            base, key = self.eval(node.value, module), self.eval(node.slice, module)
            hooked = self.hooks.subscript(base, key)
            if hooked is not None:
                return hooked
            if isinstance(base, Mapping):
                return next((v for k, v in base.items if k == key), Opaque(ast.unparse(node)))
            return Opaque(ast.unparse(node))
        return Opaque(ast.unparse(node))

    def _spread(self, node: ast.expr, module: str) -> tuple[Value, ...]:
        if isinstance(node, ast.Starred):
            value = self.eval(node.value, module)
            if isinstance(value, Seq):
                return value.items
            if isinstance(value, Obj) and value.kind == "class":
                return self.members(value)
            return (Opaque(ast.unparse(node)),)
        return (self.eval(node, module),)

    def _call(self, node: ast.Call, module: str) -> Value:
        func = self.eval(node.func, module)
        args = tuple(v for a in node.args for v in self._spread(a, module))
        kwargs = tuple((k.arg, self.eval(k.value, module)) for k in node.keywords if k.arg)
        return self.apply(func, args, kwargs, module, node.lineno, ast.unparse(node))

    def apply(self, func: Value, args: tuple[Value, ...], kwargs: tuple[tuple[str, Value], ...],
              module: str, line: int, text: str, form: str = "call") -> Value:
        """The value of calling `func`; hooks first, then partial and dict methods."""
        hooked = self.hooks.call(self, Call(func, args, kwargs, module, line, text, form))
        if hooked is not None:
            return hooked
        if isinstance(func, Ext) and func.dotted == "functools.partial" and args:
            return Partial(args[0], args[1:], kwargs, text)
        if isinstance(func, BoundMethod) and isinstance(func.owner, Mapping) and func.name == "items":
            return Seq(tuple(Seq((k, v)) for k, v in func.owner.items))
        return Result(func, text, line)

    # names --------------------------------------------------------------------------
    def name(self, module: str, name: str, line: int | None) -> Value:
        env = self._env.get(module, {})
        if name in env:
            return env[name]
        target = self.index.resolve_name(module, name, line)
        return self.value_of(target) if target else Opaque(name)

    def attr(self, base: Value, attr: str) -> Value:
        if isinstance(base, Mod):
            target = self.index.resolve_attr(Target("module", base.module), attr)
            return self.value_of(target) if target else Opaque(f"{base.module}.{attr}")
        if isinstance(base, Ext):
            return Ext(f"{base.dotted}.{attr}")
        if isinstance(base, Obj) and base.kind == "class":
            target = self.index.member(base.module, base.qualname, attr)
            sym = self.index.symbol(target.module, target.qualname) if target else None
            if target and sym and sym.kind == "variable":
                owner = target.qualname.rpartition(".")[0]
                return Member(Obj(target.module, owner, "class"), attr)
            if target:
                return self.value_of(target)
        return BoundMethod(base, attr)

    def value_of(self, target: Target) -> Value:
        """The value a resolved name holds."""
        special = self.hooks.special(target)
        if special is not None:
            return special
        if target.kind == "external":
            return Ext(target.module)
        if target.kind == "module":
            return Mod(target.module)
        sym = self.index.symbol(target.module, target.qualname)
        if sym is None:
            return Opaque(target.qualname)
        if sym.kind != "variable":
            return Obj(target.module, target.qualname, sym.kind)
        if "." in target.qualname:
            owner = target.qualname.rpartition(".")[0]
            return Member(Obj(target.module, owner, "class"), sym.name)
        return self.variable(target.module, target.qualname, sym.line)

    def variable(self, module: str, name: str, line: int) -> Value:
        """A module-level variable: what its assignment at `line` holds when that has a shape
        the evaluator knows (an alias, a literal, a partial); otherwise the variable itself."""
        key = (module, name)
        if key in self._vars:
            return self._vars[key]
        self._vars[key] = Obj(module, name, "variable")  # a self-reference stays opaque
        value: Value = Obj(module, name, "variable")
        stmt = assignment_at(self.tree(module), line)
        if stmt is not None and stmt.value is not None and all(
                isinstance(t, ast.Name) for t in _targets(stmt)):
            saved = self._env.pop(module, None)
            found = self.eval(stmt.value, module)
            if saved is not None:
                self._env[module] = saved
            if not isinstance(found, (Result, Opaque, Const, BoundMethod)):
                value = found  # an alias or a shape the evaluator knows
        self._vars[key] = value
        return value

    def members(self, cls: Obj) -> tuple[Value, ...]:
        """The members of an enum class, in order (its class-level assignments)."""
        return tuple(Member(cls, s.name) for s in self.index.summaries[cls.module].symbols
                     if s.kind == "variable" and s.qualname.rpartition(".")[0] == cls.qualname
                     and not s.name.startswith("_"))


def _targets(stmt: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return list(stmt.targets) if isinstance(stmt, ast.Assign) else [stmt.target]


def assignment_at(tree: ast.Module, line: int) -> ast.Assign | ast.AnnAssign | None:
    """The module-level (or `if`/`try`-nested) assignment statement starting at `line`."""
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.lineno == line:
            return stmt
        if isinstance(stmt, ast.If):
            stack += [*stmt.body, *stmt.orelse]
        elif isinstance(stmt, ast.Try):
            stack += [*stmt.body, *[s for h in stmt.handlers for s in h.body], *stmt.orelse,
                      *stmt.finalbody]
    return None


def label(value: Value) -> str:
    """A short name for a key value: an enum member's name, a tuple's names joined by `/`."""
    if isinstance(value, Member):
        return value.name
    if isinstance(value, Ext):
        return value.dotted.rsplit(".", 1)[-1]
    if isinstance(value, Seq):
        return "/".join(label(v) for v in value.items)
    if isinstance(value, Obj):
        return value.qualname
    return "?"
