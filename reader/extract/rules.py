"""The lowering rule tables of the three Pallas backends, read statically from the pinned source.

Each backend keeps a dict from primitive to rule (TPU and Mosaic GPU one per key: core type, or
lowering x primitive semantics), filled at import time by decorators, calls, loops, dict literals
and `.update(...)`, from several modules. The evaluator (evaluate.py) runs those modules'
top-level code symbolically from their libcst trees; the `_Registry` hooks below record every
write into a table, and a registration they cannot read is an `ExtractError` at its line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import libcst as cst

from reader.errors import Location
from reader.extract.evaluate import Call, Evaluator, Hooks, assignment_at
from reader.extract.fact import ExtractError
from reader.extract.index import Index
from reader.extract.names import Target, resolve_chain
from reader.extract.parse import Parses
from reader.extract.ruletable import (
    BACKEND_NAMES,
    BACKENDS,
    Backend,
    PrimRef,
    RuleEntry,
    RuleRef,
    RuleTable,
)
from reader.extract.unparse import one_line
from reader.extract.values import (
    BoundMethod,
    Const,
    Ext,
    Func,
    Keyword,
    Lambda,
    Mapping,
    Obj,
    Opaque,
    Partial,
    Result,
    Seq,
    Value,
    label,
)


@dataclass(frozen=True)
class _Registrar(Value):
    backend: Backend


@dataclass(frozen=True)
class _RegCall(Value):
    backend: Backend
    params: tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class _Table(Value):
    backend: Backend
    key: str | None = None
    """None for the top-level dict of a keyed backend."""


_Signature = tuple[tuple[tuple[str, cst.BaseExpression | None], ...], ...]
"""A registrar's (positional, keyword-only) parameters: (name, default expression) each."""


@dataclass
class _Registry(Hooks):
    """Evaluator hooks that record every registration into a backend table."""

    index: Index
    paths: dict[str, str]
    log: list[RuleEntry] = field(default_factory=list)
    _signatures: dict[str, _Signature] = field(default_factory=dict)

    def special(self, target: Target) -> Value | None:
        for b in BACKENDS:
            if target.kind == "def" and target.module == b.module:
                if target.qualname == b.table:
                    return _Table(b, None if b.key_params else "")
                if target.qualname == b.registrar:
                    return _Registrar(b)
        return None

    def subscript(self, container: Value, key: Value) -> Value | None:
        if isinstance(container, _Table) and container.key is None:
            return _Table(container.backend, label(key))
        return None

    def call(self, ev: Evaluator, call: Call) -> Value | None:
        func = call.func
        if isinstance(func, Partial) and isinstance(func.func, _Registrar):
            kwargs = {**dict(func.kwargs), **dict(call.kwargs)}  # the call's keywords win
            call = replace(call, func=func.func, args=func.args + call.args,
                           kwargs=tuple(map(Keyword._make, kwargs.items())))
            func = func.func
        if isinstance(func, _Registrar):
            return _RegCall(func.backend, self._bind(ev, func.backend, call))
        if isinstance(func, _RegCall) and call.args:
            params = dict(func.params)
            for key in self._keys(ev, func.backend, params, call):
                self._record(ev, func.backend, key, params.get(func.backend.prim_param),
                             call.args[0], call.module, call.line, call.form)
            return call.args[0]  # a registrar's decorator returns the rule unchanged
        if (isinstance(func, BoundMethod) and isinstance(func.owner, _Table)
                and func.name == "update" and call.args):
            table, mapping = func.owner, call.args[0]
            if not isinstance(mapping, Mapping) or table.key is None:
                raise self._error(f"cannot read this update of {table.backend}'s table: "
                                  f"{call.text}", call.module, call.line)
            for prim, rule in mapping.items:
                self._record(ev, table.backend, table.key, prim, rule, call.module, call.line,
                             "update")
            return Const("None")
        return None

    def store(self, ev: Evaluator, container: Value, key: Value, value: Value, module: str,
              line: int) -> None:
        if isinstance(container, _Table) and container.key is not None:
            self._record(ev, container.backend, container.key, key, value, module, line, "store")

    # binding a registrar's arguments ---------------------------------------------------
    def _bind(self, ev: Evaluator, b: Backend, call: Call) -> tuple[tuple[str, Value], ...]:
        positional, keyword_only = self._signature(ev, b)
        bound: dict[str, Value] = dict(zip([name for name, _ in positional], call.args,
                                           strict=False))
        bound.update(call.kwargs)
        for name, default in (*positional, *keyword_only):
            if name not in bound and default is not None:
                bound[name] = ev.eval(default, b.module)
        return tuple(bound.items())

    def _signature(self, ev: Evaluator, b: Backend) -> _Signature:
        """The registrar's positional and keyword-only parameters with their default
        expressions, read from its `def` (`*args` and `**kwargs` left out)."""
        if b.name not in self._signatures:
            sym = self.index.symbol(b.module, b.registrar)
            tree = ev.tree(b.module)
            node = next((n for n in tree.module.body if isinstance(n, cst.FunctionDef)
                         and sym is not None and tree.line(n) == sym.line), None)
            if node is None:
                raise self._error(f"no module-level `def {b.registrar}` for the {b.name} "
                                  "registrar", b.module, sym.line if sym else None)
            p = node.params
            self._signatures[b.name] = (
                tuple((q.name.value, q.default) for q in (*p.posonly_params, *p.params)),
                tuple((q.name.value, q.default) for q in p.kwonly_params))
        return self._signatures[b.name]

    def _keys(self, ev: Evaluator, b: Backend, params: dict[str, Value], call: Call) -> list[str]:
        if not b.key_params:
            return [""]
        if b.keys_are_a_collection:
            items = ev.iterate(params.get(b.key_params[0], Opaque(b.key_params[0])))
            if items is None:
                raise self._error(f"cannot tell which {b.name} tables `{b.key_params[0]}` "
                                  f"names in {call.text}", call.module, call.line)
            return [label(v) for v in items]
        return [label(Seq(tuple(params.get(p, Opaque(p)) for p in b.key_params)))]

    # recording -----------------------------------------------------------------------
    def _record(self, ev: Evaluator, b: Backend, key: str, prim: Value | None, rule: Value,
                module: str, line: int, form: str) -> None:
        if "?" in key.split("/"):
            raise self._error(f"cannot tell which {b.name} table this registers into "
                              f"(key {key!r})", module, line)
        self.log.append(RuleEntry(b.name, key, self._prim(ev, prim, module, line),
                                  self._rule(rule, module, line), self._path(module), line, form))

    def _prim(self, ev: Evaluator, value: Value | None, module: str, line: int) -> PrimRef:
        if isinstance(value, Obj) and value.kind == "variable":
            return PrimRef(value.module, value.qualname, _prim_name(ev, value), True)
        if isinstance(value, Ext):
            dotted, _, var = value.dotted.rpartition(".")
            return PrimRef(dotted, var, var.removesuffix("_p"), False)
        raise self._error(f"cannot tell which primitive this registers: {value!r}", module, line)

    def _rule(self, value: Value, module: str, line: int, text: str = "", kind: str = "") -> RuleRef:
        """The rule `value` comes down to; `module` and `line` locate the registration."""
        if isinstance(value, (Partial, Result)):
            default = "partial" if isinstance(value, Partial) else "call"
            return self._rule(value.func, module, line, text or one_line(str(value.text)),
                              kind or default)
        if isinstance(value, Obj) and (sym := self.index.symbol(value.module, value.qualname)):
            return RuleRef(text or value.qualname, kind or _KINDS.get(value.kind, "variable"),
                           value.module, self._path(value.module), value.qualname, sym.line,
                           sym.span.start)
        if isinstance(value, Func):
            return RuleRef(text or value.name, kind or "function", value.module,
                           self._path(value.module), value.name, value.line, value.start)
        if isinstance(value, Lambda):
            return RuleRef(text or "lambda", kind or "lambda", value.module,
                           self._path(value.module), "<lambda>", value.line, value.line)
        raise self._error(f"cannot tell which function this registers: {text or repr(value)}",
                          module, line)

    def _path(self, module: str) -> str:
        return self.paths.get(module, module)

    def _error(self, message: str, module: str, line: int | None) -> ExtractError:
        return ExtractError(message, Location(self._path(module), line),
                            "teach reader/extract/evaluate.py this shape of registration")


_KINDS = {"function": "function", "method": "function", "class": "class"}


def _prim_name(ev: Evaluator, value: Obj) -> str:
    """The name a primitive is created with (`Primitive("load")`), else its variable sans `_p`."""
    sym = ev.index.symbol(value.module, value.qualname)
    stmt = assignment_at(ev.tree(value.module), sym.line, value.qualname) if sym else None
    call = stmt.value if stmt is not None else None
    first = call.args[0] if isinstance(call, cst.Call) and call.args else None
    if first is not None and first.keyword is None and not first.star and isinstance(
            first.value, (cst.SimpleString, cst.ConcatenatedString)):
        name = first.value.evaluated_value
        if isinstance(name, str):
            return name
    return value.qualname.removesuffix("_p")


def registering_modules(index: Index, read: Callable[[str], str]) -> list[str]:
    """Corpus modules that reach a registrar or a table, in an order where each module comes
    after the corpus modules it imports (the order Python would have run them in).

    The order is that of the modules whose text mentions a registrar's or a table's name; of
    those, the ones that run are those that reach one (`_reaching`): jax's own modules mention
    `register_lowering` as `mlir.register_lowering`, and running them (52 of the pins' 61)
    registers nothing."""
    names = {b.registrar for b in BACKENDS} | {b.table for b in BACKENDS}
    chosen = {m for m in index.summaries if any(n in read(m) for n in names)}
    reaching = _reaching(index, chosen, names)
    return [m for m in _import_order(index, chosen) if m in reaching]


def _reaching(index: Index, chosen: set[str], names: set[str]) -> set[str]:
    """The modules of `chosen` that are a backend's own module or read a name chain that resolves
    (as the index resolves it) to a registrar, a table, or a module-level variable assigned from
    such a chain (`register_lowering_rule = functools.partial(tc_lowering.register_lowering_rule,
    ...)`), through any number of such variables."""
    wanted = {Target("def", b.module, n) for b in BACKENDS for n in (b.registrar, b.table)}
    found = {b.module for b in BACKENDS} & chosen
    read = set(names)
    # each chain's names, and what it resolves to once resolved: the same on every pass
    parts = {m: [frozenset(p.name for p in c.parts) for c in index.summaries[m].chains]
             for m in sorted(chosen)}
    resolved: dict[tuple[str, int], set[Target]] = {}
    grew = True
    while grew:
        grew = False
        for m in sorted(chosen):
            fs = index.summaries[m]
            for i, chain in enumerate(fs.chains):
                if read.isdisjoint(parts[m][i]):
                    continue
                targets = resolved.get((m, i))
                if targets is None:
                    targets = resolved[m, i] = {t for _, t in resolve_chain(index, fs, chain)}
                if wanted.isdisjoint(targets):
                    continue
                found.add(m)
                line = chain.parts[0].line
                for s in fs.symbols:
                    alias = Target("def", m, s.qualname)
                    if (s.kind == "variable" and "." not in s.qualname and alias not in wanted
                            and s.span.start <= line <= s.span.end):
                        wanted.add(alias)
                        read.add(s.name)
                        grew = True
    return found


def _import_order(index: Index, chosen: set[str]) -> list[str]:
    """`chosen`, each module after the corpus modules it imports (first visited in sorted order)."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(m: str) -> None:
        if m in seen:
            return
        seen.add(m)
        for dep in sorted(_imports(index, m)):
            visit(dep)
        if m in chosen:
            order.append(m)

    for m in sorted(chosen):
        visit(m)
    return order


def _imports(index: Index, module: str) -> set[str]:
    deps = set()
    for bindings in index.summaries[module].bindings.values():
        for b in bindings:
            for m in (b.module, f"{b.module}.{b.attr}"):
                if b.kind in ("module", "from") and m in index.summaries and m != module:
                    deps.add(m)
    return deps


def rule_tables(index: Index, read: Callable[[str], str], parses: Parses | None = None) -> list[RuleTable]:
    """Every backend's tables, each the state after all registering modules ran, by key; the
    trees shared through `parses` when given."""
    registry = _Registry(index, {m: p for m, (_, p) in index.files.items()})
    order = registering_modules(index, read)
    ev = Evaluator(index, read, registry, runs=frozenset(order), parses=parses)
    for module in order:
        ev.run_module(module)
    return _tables(registry.log)


def _tables(log: list[RuleEntry]) -> list[RuleTable]:
    """The final tables from the registration log: a later registration replaces an earlier one.
    Backends come in BACKENDS order, keys in the order they were first registered into."""
    final: dict[tuple[str, str], dict[str, RuleEntry]] = {}
    overridden: dict[tuple[str, str], list[RuleEntry]] = {}
    for e in log:
        table = final.setdefault((e.backend, e.key), {})
        if e.primitive.key in table:
            overridden.setdefault((e.backend, e.key), []).append(table[e.primitive.key])
        table[e.primitive.key] = e
    first = {k: i for i, k in enumerate(final)}
    order = {n: i for i, n in enumerate(BACKEND_NAMES)}
    return [RuleTable(b, k, tuple(sorted(t.values(), key=lambda e: (e.path, e.line))),
                      tuple(overridden.get((b, k), ())))
            for (b, k), t in sorted(final.items(), key=lambda kv: (order[kv[0][0]], first[kv[0]]))]
