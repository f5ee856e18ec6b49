"""A static evaluator of module-level code: the values names hold, without importing anything.

It reads libcst trees (tree.py), and understands what registration code is made of
(literals, loops over them and over enum classes, `functools.partial`, enum members, aliases across
modules); it hands every call to a `Hooks` object, which is how `rules.py` sees registrations
happen. Anything else becomes an opaque value, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import partial

import libcst as cst

from reader.extract.index import Index
from reader.extract.names import Target
from reader.extract.parse import ParseError, Parses, located
from reader.extract.tree import Kept, Tree, assignments, skeleton_kept
from reader.extract.values import (
    BoundMethod,
    Const,
    Entry,
    Ext,
    Func,
    Keyword,
    Lambda,
    Mapping,
    Member,
    Mod,
    Obj,
    Opaque,
    Partial,
    Result,
    Seq,
    Source,
    Value,
)


@dataclass(frozen=True)
class Call:
    """A call as the evaluator saw it, for the hooks."""

    func: Value
    args: tuple[Value, ...]
    kwargs: tuple[Keyword, ...]
    module: str
    line: int
    text: Source
    """Its source text, as written (made when first read)."""
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

    def __init__(self, index: Index, read: Callable[[str], str], hooks: Hooks | None = None,
                 runs: Collection[str] | None = None, parses: Parses | None = None):
        self.index = index
        self.read = read
        """module -> its source text."""
        self.hooks = hooks or Hooks()
        self.runs = runs
        """The modules `run_module` may run (None: any); of the others it reads only the
        module-level assignments (`tree.assignments`)."""
        self.parses = parses
        """Trees shared with the evaluators before this one (None: each parsed here)."""
        self._trees: dict[str, Tree] = {}
        self._vars: dict[tuple[str, str], Value] = {}
        self._env: dict[str, dict[str, Value]] = {}

    def tree(self, module: str) -> Tree:
        """The tree of a module it runs: its skeleton (without the bodies of defs: it runs
        module-level code only); of a module it only looks variables up in: their assignments'
        lines, when they parse alone. Shared through `parses` by the lines parsed: a release's
        file often changes only in bodies or lines it does not read."""
        if module not in self._trees:
            pin, path = self.index.files[module]
            text, name = self.read(module), located(pin, path)
            looked_up = None if self.runs is None or module in self.runs else assignments(
                text, [(s.span.start, s.span.end) for s in self.index.summaries[module].symbols
                       if s.kind == "variable" and "." not in s.qualname])
            try:
                tree = self._parse(looked_up, path, name) if looked_up is not None else None
            except ParseError:
                tree = None  # the whole file's parse says where
            self._trees[module] = tree or self._parse(skeleton_kept(text), path, name)
        return self._trees[module]

    def _parse(self, kept: Kept, path: str, name: str) -> Tree:
        """The tree of `kept`, shared by its text (the lines kept are often the same lines of
        code at other places in another release's file: numbered here as they are in this)."""
        if self.parses is None:
            return Tree.parse(kept, path, name)
        return self.parses.get((path, kept.text), partial(Tree.parse, kept, path, name)).numbered(kept.numbers)

    # running modules ---------------------------------------------------------------
    def run_module(self, module: str) -> None:
        """Execute `module`'s top-level statements for their effects on the hooks."""
        assert self.runs is None or module in self.runs, f"{module} is not among the modules to run"
        self._env[module] = {}
        self._exec(self.tree(module).module.body, module)

    def _exec(self, body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], module: str) -> None:
        for stmt in body:
            self._stmt(stmt, module)

    def _stmt(self, stmt: cst.BaseStatement | cst.BaseSmallStatement, module: str) -> None:
        env = self._env.setdefault(module, {})
        if isinstance(stmt, cst.SimpleStatementLine):
            self._exec(stmt.body, module)
        elif isinstance(stmt, cst.FunctionDef):
            value = self._decorate(stmt, module)
            line = self.tree(module).line(stmt)
            env[stmt.name.value] = self._defined(module, stmt.name.value, line) or value
        elif isinstance(stmt, (cst.Assign, cst.AnnAssign)) and stmt.value is not None:
            value = self.eval(stmt.value, module)
            line = self.tree(module).line(stmt)
            for target in targets(stmt):
                named = isinstance(target, cst.Name) and self._defined(module, target.value, line)
                self._assign(target, named or value, module)
        elif isinstance(stmt, cst.Expr):
            self.eval(stmt.value, module)
        elif isinstance(stmt, cst.For):
            for item in self.iterate(self.eval(stmt.iter, module)) or ():
                self._assign(stmt.target, item, module)
                self._exec(suite(stmt.body), module)
            self._exec(orelse(stmt.orelse), module)
        elif isinstance(stmt, (cst.If, cst.With)):
            # No pinned registration is conditional; both branches are read.
            self._exec(suite(stmt.body), module)
            self._exec(orelse(stmt.orelse) if isinstance(stmt, cst.If) else (), module)
        elif isinstance(stmt, cst.Try):
            self._exec(suite(stmt.body), module)
            self._exec(orelse(stmt.orelse), module)
            self._exec(suite(stmt.finalbody.body) if stmt.finalbody else (), module)

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

    def _decorate(self, node: cst.FunctionDef, module: str) -> Value:
        tree, name = self.tree(module), node.name.value
        sym = self.index.symbol(module, name)
        line = tree.line(node)
        start = min([tree.line(d.decorator) for d in node.decorators] + [line])
        value: Value = Obj(module, name, "function") if sym and sym.line == line \
            else Func(module, name, line, start)
        for dec in reversed(node.decorators):
            deco = self.eval(dec.decorator, module)
            result = self.apply(deco, (value,), (), module, tree.line(dec.decorator),
                                Source(partial(tree.text, dec.decorator)), "decorator")
            if not isinstance(result, (Result, Opaque)):
                value = result
        return value

    def _assign(self, target: cst.BaseExpression, value: Value, module: str) -> None:
        env = self._env.setdefault(module, {})
        if isinstance(target, cst.Name):
            env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = value.items if isinstance(value, Seq) else ()
            for i, elt in enumerate(target.elements):
                item = items[i] if i < len(items) else Opaque(self.tree(module).text(elt.value))
                self._assign(elt.value, item, module)
        elif isinstance(target, cst.Subscript):
            container = self.eval(target.value, module)
            key = self._key(target, module)
            self.hooks.store(self, container, key, value, module, self.tree(module).line(target))

    # expressions ---------------------------------------------------------------------
    def eval(self, node: cst.BaseExpression, module: str) -> Value:
        if isinstance(node, cst.Name):
            if node.value in _KEYWORDS:
                return Const(node.value)
            return self.name(module, node.value, self.tree(module).line(node))
        if isinstance(node, cst.Attribute):
            return self.attr(self.eval(node.value, module), node.attr.value)
        if isinstance(node, cst.Call):
            return self._call(node, module)
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            return Seq(tuple(v for elt in node.elements for v in self._spread(elt, module)))
        if isinstance(node, cst.Dict):
            return self._dict(node, module)
        if isinstance(node, cst.Lambda):
            return Lambda(module, self.tree(module).line(node))
        if isinstance(node, _LITERALS) and node.evaluated_value is not None:
            return Const(repr(node.evaluated_value))
        if isinstance(node, cst.Ellipsis):
            return Const(repr(...))
        if isinstance(node, cst.Subscript):
            return self._subscript(node, module)
        return Opaque(self.tree(module).text(node))

    def _dict(self, node: cst.Dict, module: str) -> Value:
        elements = [e for e in node.elements if isinstance(e, cst.DictElement)]
        if len(elements) < len(node.elements):  # `**other` among them
            return Opaque(self.tree(module).text(node))
        return Mapping(tuple(Entry(self.eval(e.key, module), self.eval(e.value, module))
                             for e in elements))

    def _subscript(self, node: cst.Subscript, module: str) -> Value:
        base, key = self.eval(node.value, module), self._key(node, module)
        hooked = self.hooks.subscript(base, key)
        if hooked is not None:
            return hooked
        if isinstance(base, Mapping):
            return next((v for k, v in base.items if k == key), Opaque(self.tree(module).text(node)))
        return Opaque(self.tree(module).text(node))

    def _key(self, node: cst.Subscript, module: str) -> Value:
        """The value inside `x[...]`: one index, or a tuple of them (`x[a, b]`)."""
        indexes = [e.slice for e in node.slice]
        if not all(isinstance(i, cst.Index) and i.star is None for i in indexes):
            return Opaque(self.tree(module).text(node))  # a slice, or `x[*a]`
        values = tuple(self.eval(i.value, module) for i in indexes if isinstance(i, cst.Index))
        one = len(node.slice) == 1 and not isinstance(node.slice[0].comma, cst.Comma)
        return values[0] if one else Seq(values)

    def _spread(self, elt: cst.BaseElement | cst.Arg, module: str) -> tuple[Value, ...]:
        """The values an element adds to a literal or an argument list (`*xs` adds several)."""
        if isinstance(elt, cst.StarredElement) or (isinstance(elt, cst.Arg) and elt.star == "*"):
            items = self.iterate(self.eval(elt.value, module))
            return items if items is not None else (Opaque(self.tree(module).text(elt.value)),)
        return (self.eval(elt.value, module),)

    def _call(self, node: cst.Call, module: str) -> Value:
        func = self.eval(node.func, module)
        positional = [a for a in node.args if a.keyword is None and a.star != "**"]
        args = tuple(v for a in positional for v in self._spread(a, module))
        kwargs = tuple(Keyword(a.keyword.value, self.eval(a.value, module))
                       for a in node.args if a.keyword is not None)
        tree = self.tree(module)
        return self.apply(func, args, kwargs, module, tree.line(node), Source(partial(tree.text, node)))

    def apply(self, func: Value, args: tuple[Value, ...], kwargs: tuple[Keyword, ...],
              module: str, line: int, text: Source, form: str = "call") -> Value:
        """The value of calling `func`; hooks first, then partial and dict methods."""
        hooked = self.hooks.call(self, Call(func, args, kwargs, module, line, text, form))
        if hooked is not None:
            return hooked
        if isinstance(func, Ext) and func.dotted == "functools.partial" and args:
            return Partial(args[0], args[1:], kwargs, text)
        if isinstance(func, BoundMethod) and isinstance(func.owner, Mapping) and func.name == "items":
            return Seq(tuple(Seq((k, v)) for k, v in func.owner.items))
        return Result(func, text, line)

    def iterate(self, value: Value) -> tuple[Value, ...] | None:
        """What a `for` over `value` (or `*value`) yields: a literal's items, an enum class's
        members; None when that is not known."""
        if isinstance(value, Seq):
            return value.items
        if isinstance(value, Obj) and value.kind == "class":
            return self.members(value)
        return None

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
        stmt = assignment_at(self.tree(module), line, name)
        if stmt is not None and stmt.value is not None and all(
                isinstance(t, cst.Name) for t in targets(stmt)):
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


_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)
"""Literals whose value libcst computes (a concatenation with an f-string in it: None)."""

_KEYWORDS = frozenset({"None", "True", "False"})
"""Names libcst keeps as names and `ast` as constants."""


def targets(stmt: cst.Assign | cst.AnnAssign) -> list[cst.BaseAssignTargetExpression]:
    """What an assignment binds (`a = b = v`: `a` and `b`)."""
    return [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]


def suite(body: cst.BaseSuite) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    """The statements of an indented block, or of one on the same line (`if x: y = 1`)."""
    return body.body


def orelse(node: cst.If | cst.Else | None) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    """An `else:` block's statements; an `elif` as the one statement it is; none."""
    if isinstance(node, cst.If):
        return (node,)
    return suite(node.body) if node is not None else ()


def assignment_at(tree: Tree, line: int, name: str) -> cst.Assign | cst.AnnAssign | None:
    """The module-level (or `if`/`try`-nested) assignment to `name` that starts at `line`."""
    table = tree.memo.get("assignments")
    if table is None:
        table = tree.memo["assignments"] = _assignments(tree)
    return table.get((line, name))


def _assignments(tree: Tree) -> dict[tuple[int, str], cst.Assign | cst.AnnAssign]:
    """(line, name) -> the module-level (or `if`/`try`-nested) assignment to the name starting at
    the line: one walk of the module for all lookups (a walk each took 13 % of the rule tables)."""
    out: dict[tuple[int, str], cst.Assign | cst.AnnAssign] = {}
    stack: list[cst.BaseStatement | cst.BaseSmallStatement] = list(tree.module.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            stack += stmt.body
        elif isinstance(stmt, (cst.Assign, cst.AnnAssign)):
            line = tree.line(stmt)
            for t in targets(stmt):
                if isinstance(t, cst.Name):
                    out.setdefault((line, t.value), stmt)
        elif isinstance(stmt, cst.If):
            stack += [*suite(stmt.body), *orelse(stmt.orelse)]
        elif isinstance(stmt, cst.Try):
            stack += [*suite(stmt.body), *[s for h in stmt.handlers for s in suite(h.body)],
                      *orelse(stmt.orelse), *(suite(stmt.finalbody.body) if stmt.finalbody else ())]
    return out
