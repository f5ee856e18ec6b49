"""The structures the articles read: pallas_call's signature and the rules of its primitive, the
classes of `core.py` and `mosaic/core.py` (fields, defaults, members), and `mosaic/pipeline.py`
(classes, methods, and the predicates its schedule is made of). All from `ast` at the pins."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from reader.extract.index import Index
from reader.extract.references import Target

PALLAS_CALL = ("jax._src.pallas.pallas_call", "pallas_call")
PALLAS_CALL_P = ("jax._src.pallas.pallas_call", "pallas_call_p")
CORE = "jax._src.pallas.core"
TPU_CORE = "jax._src.pallas.mosaic.core"
GPU_CORE = "jax._src.pallas.mosaic_gpu.core"
PIPELINE = "jax._src.pallas.mosaic.pipeline"
SCHEDULER = "Scheduler"


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    """`positional`, `keyword` (keyword-only), `*args` or `**kwargs`."""
    annotation: str
    default: str | None
    line: int


@dataclass(frozen=True)
class Signature:
    qualname: str
    path: str
    line: int
    params: tuple[Param, ...]
    returns: str


@dataclass(frozen=True)
class Field:
    """A class-level name: a dataclass field (annotated), an enum member or a class variable."""

    name: str
    annotation: str
    default: str | None
    """The default as written (`dataclasses.field(default=X)` gives `X`, a factory `f()`)."""
    line: int


@dataclass(frozen=True)
class Method:
    name: str
    line: int
    decorators: tuple[str, ...]


@dataclass(frozen=True)
class ClassInfo:
    qualname: str
    path: str
    line: int
    end: int
    bases: tuple[str, ...]
    decorators: tuple[str, ...]
    fields: tuple[Field, ...]
    """Annotated class-level names, in order (a dataclass's fields)."""
    members: tuple[Field, ...]
    """Unannotated class-level assignments, in order (an enum's members)."""
    methods: tuple[Method, ...]

    @property
    def is_enum(self) -> bool:
        return any(b.rsplit(".", 1)[-1] in ("Enum", "IntEnum", "StrEnum") for b in self.bases)


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


@dataclass(frozen=True)
class Structures:
    pallas_call: Signature | None
    pallas_call_rules: tuple[PrimitiveRule, ...]
    """Registered for `pallas_call_p`, then the platforms its lowering rule dispatches to."""
    backend_lowerings: tuple[PrimitiveRule, ...]
    """`pallas_core.register_lowering_rule(<CompilerParams class>, rule, platform)` calls: the
    backend a pallas_call lowers through, chosen by its compiler params (kind: the class)."""
    core_classes: tuple[ClassInfo, ...]
    tpu_classes: tuple[ClassInfo, ...]
    gpu_classes: tuple[ClassInfo, ...]
    pipeline_classes: tuple[ClassInfo, ...]
    pipeline_functions: tuple[Signature, ...]
    schedule_predicates: tuple[Method, ...]
    """The Scheduler's methods that answer yes or no: every `return` gives a boolean."""

    def find(self, path: str, qualname: str) -> ClassInfo | None:
        """The class `qualname` of the file `path`."""
        every = (*self.core_classes, *self.tpu_classes, *self.gpu_classes, *self.pipeline_classes)
        return next((c for c in every if c.path == path and c.qualname == qualname), None)


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


def structures(index: Index, read: Callable[[str], str]) -> Structures:
    """Everything this module extracts, from the pinned files (`read`: module -> text). A file
    the corpus lacks (a small test corpus) leaves its part empty."""
    trees = {m: ast.parse(read(m)) for m in (PALLAS_CALL[0], CORE, TPU_CORE, GPU_CORE, PIPELINE)
             if m in index.files}
    path = {m: index.files[m][1] for m in trees}

    def of(module: str) -> tuple[ClassInfo, ...]:
        return classes(trees[module], path[module]) if module in trees else ()

    call = trees.get(PALLAS_CALL[0])
    node = _function(call, PALLAS_CALL[1]) if call else None
    rules = primitive_rules(index, read, PALLAS_CALL_P) if node else ()
    pipeline = trees.get(PIPELINE)
    return Structures(
        pallas_call=signature(node, path[PALLAS_CALL[0]]) if node else None,
        pallas_call_rules=(*rules, *per_platform(index, read, rules)),
        backend_lowerings=backend_lowerings(index, read),
        core_classes=of(CORE), tpu_classes=of(TPU_CORE), gpu_classes=of(GPU_CORE),
        pipeline_classes=of(PIPELINE),
        pipeline_functions=tuple(signature(n, path[PIPELINE]) for n in pipeline.body
                                 if isinstance(n, ast.FunctionDef)) if pipeline else (),
        schedule_predicates=predicates(pipeline, SCHEDULER) if pipeline else (),
    )


# signatures and classes ------------------------------------------------------------------
def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def signature(node: ast.FunctionDef, path: str, prefix: str = "") -> Signature:
    a = node.args
    pos = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    params = [_param(p, "positional", d) for p, d in zip(pos, defaults, strict=True)]
    if a.vararg:
        params.append(_param(a.vararg, "*args", None))
    params += [_param(p, "keyword", d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    if a.kwarg:
        params.append(_param(a.kwarg, "**kwargs", None))
    return Signature(prefix + node.name, path, node.lineno, tuple(params),
                     ast.unparse(node.returns) if node.returns else "")


def _param(arg: ast.arg, kind: str, default: ast.expr | None) -> Param:
    return Param(arg.arg, kind, ast.unparse(arg.annotation) if arg.annotation else "",
                 ast.unparse(default) if default is not None else None, arg.lineno)


def classes(tree: ast.Module, path: str) -> tuple[ClassInfo, ...]:
    """Every module-level class (and class nested in one), in source order."""
    return tuple(_class(n, path, prefix) for n, prefix in _walk_classes(tree.body, ""))


def _walk_classes(body: list[ast.stmt], prefix: str) -> Iterator[tuple[ast.ClassDef, str]]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield node, prefix
            yield from _walk_classes(node.body, f"{prefix}{node.name}.")


def _class(node: ast.ClassDef, path: str, prefix: str) -> ClassInfo:
    fields, members, methods = [], [], []
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            fields.append(Field(stmt.target.id, ast.unparse(stmt.annotation),
                                _default(stmt.value), stmt.lineno))
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    members.append(Field(t.id, "", ast.unparse(stmt.value), stmt.lineno))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods.append(Method(stmt.name, stmt.lineno,
                                  tuple(ast.unparse(d) for d in stmt.decorator_list)))
    return ClassInfo(prefix + node.name, path, node.lineno, node.end_lineno or node.lineno,
                     tuple(ast.unparse(b) for b in node.bases),
                     tuple(ast.unparse(d) for d in node.decorator_list),
                     tuple(fields), tuple(members), tuple(methods))


def _default(value: ast.expr | None) -> str | None:
    """A field's default: `field(default=X)` -> `X`, `field(default_factory=f)` -> `f()`."""
    if value is None:
        return None
    if isinstance(value, ast.Call) and ast.unparse(value.func).rsplit(".", 1)[-1] == "field":
        for k in value.keywords:
            if k.arg == "default":
                return ast.unparse(k.value)
            if k.arg == "default_factory":
                return f"{ast.unparse(k.value)}()"
        return None
    return ast.unparse(value)


# the schedule's predicates ---------------------------------------------------------------
def predicates(tree: ast.Module, cls: str) -> tuple[Method, ...]:
    """Methods of `cls` whose every `return` gives a boolean: comparisons, `not`, `and`/`or`,
    bool literals, `jnp.bool(...)`, a `functools.reduce` from a bool, or another predicate
    (a method through `self.`, or a module-level function), found to a fixed point."""
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
    if node is None:
        return ()
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
    known: set[str] = set()
    while True:
        found = {f"self.{n}" for n, m in methods.items() if _all_boolean(m, known)}
        found |= {n for n, f in funcs.items() if _all_boolean(f, known)}
        if found == known:
            break
        known = found
    return tuple(Method(m.name, m.lineno, tuple(ast.unparse(d) for d in m.decorator_list))
                 for m in methods.values() if f"self.{m.name}" in known)


def _all_boolean(fn: ast.FunctionDef, known: set[str]) -> bool:
    returns = [n for n in _own_nodes(fn) if isinstance(n, ast.Return)]
    return bool(returns) and all(r.value is not None and _boolean(r.value, known) for r in returns)


def _own_nodes(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of `fn` outside its nested functions."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        stack += [c for c in ast.iter_child_nodes(node)
                  if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]


def _boolean(e: ast.expr, known: set[str]) -> bool:
    if isinstance(e, ast.Constant):
        return isinstance(e.value, bool)
    if isinstance(e, ast.Compare) or (isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not)):
        return True
    if isinstance(e, ast.BoolOp):
        return all(_boolean(v, known) for v in e.values)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.BitOr, ast.BitAnd, ast.BitXor)):
        return _boolean(e.left, known) and _boolean(e.right, known)
    if isinstance(e, ast.Call):
        name = ast.unparse(e.func)
        if name.rsplit(".", 1)[-1] in ("bool", "bool_"):
            return True
        if name.rsplit(".", 1)[-1] == "reduce" and len(e.args) == 3:
            return _boolean(e.args[2], known)
        return name in known
    return False


# the rules of a primitive ------------------------------------------------------------------
def primitive_rules(index: Index, read: Callable[[str], str],
                    prim: tuple[str, str]) -> tuple[PrimitiveRule, ...]:
    """Every module-level registration of a rule for `prim` anywhere in the corpus: method calls
    on it, `registry[prim] = rule`, `prim.attr = rule`, calls and decorators taking it."""
    target = Target("def", *prim)
    modules = sorted({m for m, (pin, p) in index.files.items()
                      if any((r.target_module, r.target_qualname) == prim
                             for r in index.references(pin, p))})
    out: list[PrimitiveRule] = []
    for module in modules:
        for stmt in _top_level(ast.parse(read(module)).body):
            out += _registrations(index, module, stmt, target)
    return tuple(out)


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body + stmt.orelse + stmt.finalbody)
        else:
            yield stmt


def _registrations(index: Index, module: str, stmt: ast.stmt, prim: Target) -> list[PrimitiveRule]:
    def is_prim(e: ast.expr) -> bool:
        return _resolve(index, module, e, stmt.lineno) == prim

    def rule(kind: str, registry: str, value: ast.expr, platform: str = "",
             line: int = stmt.lineno) -> PrimitiveRule:
        text = ast.unparse(value)
        t = _resolve(index, module, value, stmt.lineno)
        sym = index.symbol(t.module, t.qualname) if t and t.kind == "def" else None
        rpath = index.files[t.module][1] if sym and t else ""
        return PrimitiveRule(_kind(kind), registry, text, rpath, sym.line if sym else 0,
                             index.files[module][1], line, platform)

    out = []
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and is_prim(call.func.value) and call.args:
            out.append(rule(call.func.attr, ast.unparse(call.func), call.args[0]))
        elif call.args and is_prim(call.args[0]) and len(call.args) > 1:
            platform = next((ast.literal_eval(k.value) for k in call.keywords
                             if k.arg == "platform"), "")
            name = ast.unparse(call.func)
            out.append(rule(name.rsplit(".", 1)[-1], name, call.args[1], platform))
    elif isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            if isinstance(t, ast.Subscript) and is_prim(t.slice):
                name = ast.unparse(t.value)
                out.append(rule(name.rsplit(".", 1)[-1], name, stmt.value))
            elif isinstance(t, ast.Attribute) and is_prim(t.value) and not isinstance(
                    stmt.value, ast.Constant):  # `p.multiple_results = True` is no rule
                out.append(rule(t.attr, ast.unparse(t), stmt.value))
    elif isinstance(stmt, ast.FunctionDef):
        for d in stmt.decorator_list:
            if isinstance(d, ast.Call) and d.args and is_prim(d.args[0]):
                name = ast.unparse(d.func)
                out.append(rule(name.rsplit(".", 1)[-1], name, ast.Name(stmt.name), "", d.lineno))
    return out


def per_platform(index: Index, read: Callable[[str], str],
                 rules: tuple[PrimitiveRule, ...]) -> tuple[PrimitiveRule, ...]:
    """The platforms a lowering rule dispatches to: the `dict(cpu=..., tpu=...)` it passes to
    `mlir.lower_per_platform`."""
    out = []
    for r in rules:
        if r.kind != "lowering" or not r.rule_path:
            continue
        module = next(m for m, (_, p) in index.files.items() if p == r.rule_path)
        fn = next(n for n in ast.walk(ast.parse(read(module)))
                  if isinstance(n, ast.FunctionDef) and n.lineno == r.rule_line)
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            if not ast.unparse(call.func).endswith("lower_per_platform"):
                continue
            for arg in call.args:
                for key, value, line in _dict_items(arg):
                    out.append(PrimitiveRule("lowering", ast.unparse(call.func), ast.unparse(value),
                                             r.rule_path, r.rule_line, r.rule_path, line, key))
    return tuple(out)


def _dict_items(e: ast.expr) -> list[tuple[str, ast.expr, int]]:
    """(key, value, line) of `dict(a=x)` or `{"a": x}` with string keys."""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "dict":
        return [(k.arg, k.value, k.value.lineno) for k in e.keywords if k.arg]
    if isinstance(e, ast.Dict):
        return [(k.value, v, k.lineno) for k, v in zip(e.keys, e.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return []


BACKEND_REGISTRAR = (CORE, "register_lowering_rule")


def backend_lowerings(index: Index, read: Callable[[str], str]) -> tuple[PrimitiveRule, ...]:
    """Every top-level `register_lowering_rule(params_cls, rule, platform)` of `core.py`."""
    out = []
    for module, (pin, path) in sorted(index.files.items(), key=lambda kv: kv[1]):
        if not any((r.target_module, r.target_qualname) == BACKEND_REGISTRAR
                   for r in index.references(pin, path)):
            continue
        for stmt in _top_level(ast.parse(read(module)).body):
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not isinstance(call, ast.Call) or len(call.args) != 3:
                continue
            t = _resolve(index, module, call.func, stmt.lineno)
            if t is None or (t.module, t.qualname) != BACKEND_REGISTRAR:
                continue
            params, rule, platform = call.args
            r = _resolve(index, module, rule, stmt.lineno)
            sym = index.symbol(r.module, r.qualname) if r and r.kind == "def" else None
            out.append(PrimitiveRule(
                ast.unparse(params), ast.unparse(call.func), ast.unparse(rule),
                index.files[r.module][1] if sym and r else "", sym.line if sym else 0,
                path, stmt.lineno, ast.literal_eval(platform)))
    return tuple(out)


def _resolve(index: Index, module: str, e: ast.expr, line: int) -> Target | None:
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if not isinstance(e, ast.Name):
        return None
    return index.resolve_dotted(module, ".".join([e.id, *reversed(parts)]), line)
