"""The rules registered for a primitive (`prim.def_impl(f)`, `ad.primitive_jvps[prim] = f`,
`@register_discharge_rule(prim)`, ...), the platforms a lowering rule dispatches to, and the
backend lowerings `core.register_lowering_rule` registers: all read from libcst trees."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from reader.errors import Location
from reader.extract.fact import ExtractError
from reader.extract.index import Index
from reader.extract.names import Target
from reader.extract.tree import (
    Sources,
    Tree,
    dotted,
    is_def,
    keyword,
    last,
    positional,
    statements,
    string,
)
from reader.model import QualName

BACKEND_REGISTRAR = ("jax._src.pallas.core", "register_lowering_rule")


@dataclass(frozen=True)
class PrimitiveRule:
    """One rule registered for a primitive: what kind, through what, which function, where."""

    kind: str
    """`impl`, `abstract_eval`, `jvp`, `transpose`, `batching`, `lowering`, `dce`, ... or the
    name of the registry when it has no usual kind."""
    registry: str
    """How it is registered, as written: `ad.primitive_jvps`, `pallas_call_p.def_impl`."""
    rule: str
    rule_path: str
    rule_line: int
    """The rule's `def` line (0 when it is not a corpus definition)."""
    path: str
    line: int
    platform: str = ""


_KINDS = {
    "def_impl": "impl", "def_abstract_eval": "abstract_eval",
    "def_effectful_abstract_eval": "abstract_eval", "primitive_jvps": "jvp",
    "primitive_transposes": "transpose", "primitive_batchers": "batching",
    "fancy_primitive_batchers": "batching", "register_lowering": "lowering",
    "dce_rules": "dce", "custom_typechecks": "typecheck", "register_discharge_rule": "discharge",
    "to_lojax": "to_lojax", "is_high": "is_high",
}


def _kind(name: str) -> str:
    """A registry's kind: the usual name, else the registry without `_` and `_rules`."""
    return _KINDS.get(name, name.strip("_").removesuffix("_rules"))


def primitive_rules(sources: Sources, prim: QualName) -> tuple[PrimitiveRule, ...]:
    """Every module-level registration of a rule for `prim` anywhere in the corpus: method calls
    on it, `registry[prim] = rule`, `prim.attr = rule`, calls and decorators taking it."""
    index = sources.index
    target = Target("def", *prim)
    out: list[PrimitiveRule] = []
    for module in sorted(sources.referring(prim)):
        tree = sources.tree(module)
        for stmt in _top_level(statements(tree.module.body)):
            out += _registrations(index, module, tree, stmt, target)
    return tuple(out)


def _top_level(body: list[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Module-level statements, those under `if` and `try` (not `except`) included."""
    for stmt in body:
        if isinstance(stmt, cst.If):
            yield from _top_level([*statements(stmt.body), *_orelse(stmt.orelse)])
        elif isinstance(stmt, cst.Try):
            yield from _top_level([*statements(stmt.body), *_orelse(stmt.orelse),
                                   *_orelse(stmt.finalbody)])
        else:
            yield stmt


def _orelse(node: cst.If | cst.Else | cst.Finally | None) -> list[cst.CSTNode]:
    if node is None:
        return []
    return [node] if isinstance(node, cst.If) else statements(node.body)


def _registrations(index: Index, module: str, tree: Tree, stmt: cst.CSTNode,
                   prim: Target) -> list[PrimitiveRule]:
    line = tree.line(stmt)

    def is_prim(e: cst.CSTNode) -> bool:
        return _resolve(index, module, e, line) == prim

    def rule(kind: str, registry: str, value: cst.BaseExpression, platform: str = "",
             at: int = line) -> PrimitiveRule:
        t = _resolve(index, module, value, line)
        sym = index.symbol(t.module, t.qualname) if t and t.kind == "def" else None
        rpath = index.files[t.module][1] if sym and t else ""
        return PrimitiveRule(_kind(kind), registry, tree.text(value), rpath,
                             sym.line if sym else 0, tree.path, at, platform)

    out = []
    if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
        call, args = stmt.value, positional(stmt.value)
        if isinstance(call.func, cst.Attribute) and is_prim(call.func.value) and args:
            out.append(rule(call.func.attr.value, tree.text(call.func), args[0]))
        elif len(args) > 1 and is_prim(args[0]):
            platform = keyword(call, "platform")
            name = tree.text(call.func)
            out.append(rule(last(name), name, args[1], string(tree, platform) if platform else ""))
    elif isinstance(stmt, cst.Assign):
        for t in (t.target for t in stmt.targets):
            key = t.slice[0].slice if isinstance(t, cst.Subscript) and len(t.slice) == 1 else None
            if isinstance(t, cst.Subscript) and isinstance(key, cst.Index) and is_prim(key.value):
                name = tree.text(t.value)
                out.append(rule(last(name), name, stmt.value))
            elif isinstance(t, cst.Attribute) and is_prim(t.value) and not _constant(stmt.value):
                out.append(rule(t.attr.value, tree.text(t), stmt.value))  # not `p.x = True`
    elif isinstance(stmt, cst.FunctionDef):
        for d in (d.decorator for d in stmt.decorators):
            args = positional(d) if isinstance(d, cst.Call) else []
            if isinstance(d, cst.Call) and args and is_prim(args[0]):
                name = tree.text(d.func)
                out.append(rule(last(name), name, stmt.name, "", tree.line(d)))
    return out


def _constant(e: cst.BaseExpression) -> bool:
    """A literal number, string, `True`, `False`, `None` or `...`."""
    return isinstance(e, (cst.BaseNumber, cst.SimpleString, cst.ConcatenatedString,
                          cst.Ellipsis)) or (isinstance(e, cst.Name)
                                             and e.value in ("True", "False", "None"))


def per_platform(sources: Sources, rules: tuple[PrimitiveRule, ...]) -> tuple[PrimitiveRule, ...]:
    """The platforms a lowering rule dispatches to: the `dict(cpu=..., tpu=...)` it passes to
    `mlir.lower_per_platform`."""
    out = []
    for r in rules:
        if r.kind != "lowering" or not r.rule_path:
            continue
        module = next(m for m, (_, p) in sources.index.files.items() if p == r.rule_path)
        tree = sources.tree(module)
        fn = next((n for n in _defs(tree.module.body) if tree.line(n) == r.rule_line), None)
        if fn is None:
            raise ExtractError(f"no `def {r.rule}` on this line",
                               Location(r.rule_path, r.rule_line),
                               "the index and the libcst tree disagree; report it")
        for call in _calls(fn):
            if not tree.text(call.func).endswith("lower_per_platform"):
                continue
            for arg in positional(call):
                out += [PrimitiveRule("lowering", tree.text(call.func), tree.text(value),
                                      r.rule_path, r.rule_line, r.rule_path, line, key)
                        for key, value, line in _dict_items(tree, arg)]
    return tuple(out)


_BLOCKS = (cst.BaseCompoundStatement, cst.BaseSuite, cst.Else, cst.Finally, cst.ExceptHandler,
           cst.ExceptStarHandler, cst.MatchCase)


def _defs(body: Sequence[cst.CSTNode]) -> Iterator[cst.FunctionDef]:
    """Every `def` among these statements and in the blocks under them."""
    for node in body:
        if is_def(node):
            yield node
        if isinstance(node, _BLOCKS):
            yield from _defs([c for c in node.children if isinstance(c, (cst.BaseStatement,
                                                                         *_BLOCKS))])


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    """Every call under `node`, in source order."""
    visitor = _Calls()
    node.visit(visitor)
    return visitor.calls


def _dict_items(tree: Tree, e: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression, int]]:
    """(key, value, line) of `dict(a=x)` (the value's line) or `{"a": x}` (the key's)."""
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "dict":
        return [(a.keyword.value, a.value, tree.line(a.value)) for a in e.args if a.keyword]
    if isinstance(e, cst.Dict):
        return [(k.key.evaluated_value, k.value, tree.line(k.key)) for k in e.elements
                if isinstance(k, cst.DictElement) and isinstance(k.key, cst.SimpleString)
                and isinstance(k.key.evaluated_value, str)]
    return []


def backend_lowerings(sources: Sources) -> tuple[PrimitiveRule, ...]:
    """Every top-level `register_lowering_rule(params_cls, rule, platform)` of `core.py`."""
    index, out = sources.index, []
    for module in sorted(sources.referring(QualName(*BACKEND_REGISTRAR)), key=index.files.__getitem__):
        path = index.files[module][1]
        tree = sources.tree(module)
        for stmt in _top_level(statements(tree.module.body)):
            call = stmt.value if isinstance(stmt, cst.Expr) else None
            if not isinstance(call, cst.Call) or len(positional(call)) != 3:
                continue
            line = tree.line(stmt)
            t = _resolve(index, module, call.func, line)
            if t is None or (t.module, t.qualname) != BACKEND_REGISTRAR:
                continue
            params, rule, platform = positional(call)
            r = _resolve(index, module, rule, line)
            sym = index.symbol(r.module, r.qualname) if r and r.kind == "def" else None
            out.append(PrimitiveRule(
                tree.text(params), tree.text(call.func), tree.text(rule),
                index.files[r.module][1] if sym and r else "", sym.line if sym else 0,
                path, line, string(tree, platform)))
    return tuple(out)


def _resolve(index: Index, module: str, e: cst.CSTNode, line: int) -> Target | None:
    name = dotted(e)
    return index.resolve_dotted(module, name, line) if name else None
