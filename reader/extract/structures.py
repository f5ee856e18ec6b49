"""The structures the articles read: pallas_call's signature and the rules of its primitive, the
classes of `core.py` and `mosaic/core.py` (fields, defaults, members), and `mosaic/pipeline.py`
(classes, methods, and the predicates its schedule is made of). All from libcst trees at the pins;
code is given as written there (`"vmem"`, not `'vmem'`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from reader.extract.index import Index
from reader.extract.registrations import BACKEND_REGISTRAR as BACKEND_REGISTRAR
from reader.extract.registrations import (
    PrimitiveRule,
    backend_lowerings,
    per_platform,
    primitive_rules,
)
from reader.extract.tree import Sources, Tree, dotted, is_def, last, positional, statements
from reader.model import QualName

PALLAS_CALL = ("jax._src.pallas.pallas_call", "pallas_call")
PALLAS_CALL_P = QualName("jax._src.pallas.pallas_call", "pallas_call_p")
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


def structures(index: Index, read: Callable[[str], str]) -> Structures:
    """Everything this module extracts, from the pinned files (`read`: module -> text). A file
    the corpus lacks (a small test corpus) leaves its part empty; a file that no longer has
    what is read from it raises ExtractError there."""
    sources = Sources(index, read)
    trees = {m: sources.tree(m) for m in (PALLAS_CALL[0], CORE, TPU_CORE, GPU_CORE, PIPELINE)
             if m in index.files}

    def of(module: str) -> tuple[ClassInfo, ...]:
        return classes(trees[module]) if module in trees else ()

    call = trees.get(PALLAS_CALL[0])
    node = _pallas_call(call) if call else None
    rules = primitive_rules(sources, PALLAS_CALL_P) if node else ()
    pipeline = trees.get(PIPELINE)
    return Structures(
        pallas_call=signature(call, node) if call and node else None,
        pallas_call_rules=(*rules, *per_platform(sources, rules)),
        backend_lowerings=backend_lowerings(sources),
        core_classes=of(CORE), tpu_classes=of(TPU_CORE), gpu_classes=of(GPU_CORE),
        pipeline_classes=of(PIPELINE),
        pipeline_functions=tuple(signature(pipeline, n) for n in statements(pipeline.module.body)
                                 if is_def(n)) if pipeline else (),
        schedule_predicates=schedule(pipeline) if pipeline else (),
    )


def _pallas_call(tree: Tree) -> cst.FunctionDef:
    node = next((n for n in statements(tree.module.body)
                 if is_def(n) and n.name.value == PALLAS_CALL[1]), None)
    if node is None:
        raise tree.fail(f"no module-level `def {PALLAS_CALL[1]}`")
    return node


# signatures and classes ------------------------------------------------------------------
def signature(tree: Tree, node: cst.FunctionDef, prefix: str = "") -> Signature:
    p = node.params
    params = [_param(tree, x, "positional") for x in (*p.posonly_params, *p.params)]
    if isinstance(p.star_arg, cst.Param):
        params.append(_param(tree, p.star_arg, "*args"))
    params += [_param(tree, x, "keyword") for x in p.kwonly_params]
    if p.star_kwarg is not None:
        params.append(_param(tree, p.star_kwarg, "**kwargs"))
    return Signature(prefix + node.name.value, tree.path, tree.line(node), tuple(params),
                     tree.text(node.returns.annotation) if node.returns else "")


def _param(tree: Tree, p: cst.Param, kind: str) -> Param:
    return Param(p.name.value, kind, tree.text(p.annotation.annotation) if p.annotation else "",
                 tree.text(p.default) if p.default is not None else None, tree.line(p.name))


def classes(tree: Tree) -> tuple[ClassInfo, ...]:
    """Every module-level class (and class nested in one), in source order."""
    return tuple(_class(tree, n, prefix) for n, prefix in _walk_classes(tree.module.body, ""))


def _walk_classes(body: Sequence[cst.BaseStatement] | cst.BaseSuite,
                  prefix: str) -> Iterator[tuple[cst.ClassDef, str]]:
    for node in statements(body):
        if isinstance(node, cst.ClassDef):
            yield node, prefix
            yield from _walk_classes(node.body, f"{prefix}{node.name.value}.")


def _class(tree: Tree, node: cst.ClassDef, prefix: str) -> ClassInfo:
    fields, members, methods = [], [], []
    for stmt in statements(node.body):
        if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name):
            fields.append(Field(stmt.target.value, tree.text(stmt.annotation.annotation),
                                _default(tree, stmt.value), tree.line(stmt)))
        elif isinstance(stmt, cst.Assign):
            members += [Field(t.target.value, "", tree.text(stmt.value), tree.line(stmt))
                        for t in stmt.targets if isinstance(t.target, cst.Name)]
        elif isinstance(stmt, cst.FunctionDef):
            methods.append(_method(tree, stmt))
    return ClassInfo(prefix + node.name.value, tree.path, tree.line(node), tree.lines.end(node),
                     tuple(a.star + tree.text(a.value) for a in node.bases),
                     tuple(tree.text(d.decorator) for d in node.decorators),
                     tuple(fields), tuple(members), tuple(methods))


def _method(tree: Tree, node: cst.FunctionDef) -> Method:
    return Method(node.name.value, tree.line(node),
                  tuple(tree.text(d.decorator) for d in node.decorators))


def _default(tree: Tree, value: cst.BaseExpression | None) -> str | None:
    """A field's default: `field(default=X)` -> `X`, `field(default_factory=f)` -> `f()`."""
    if value is None:
        return None
    if isinstance(value, cst.Call) and last(dotted(value.func)) == "field":
        for a in value.args:
            if a.keyword and a.keyword.value == "default":
                return tree.text(a.value)
            if a.keyword and a.keyword.value == "default_factory":
                return f"{tree.text(a.value)}()"
        return None
    return tree.text(value)


# the schedule's predicates ---------------------------------------------------------------
def schedule(tree: Tree) -> tuple[Method, ...]:
    """The predicates of pipeline.py's `Scheduler`: the article's schedule. ExtractError when
    the class or its predicates are gone (the pipeline was rewritten)."""
    node = next((n for n in statements(tree.module.body)
                 if isinstance(n, cst.ClassDef) and n.name.value == SCHEDULER), None)
    found = predicates(tree, SCHEDULER)
    if not found:
        what = f"no yes-or-no method in class {SCHEDULER}" if node else f"no class {SCHEDULER}"
        raise tree.fail(what, node, "the pipeline's schedule changed shape; update "
                        "structures.predicates and the pipeline article")
    return found


def predicates(tree: Tree, cls: str) -> tuple[Method, ...]:
    """Methods of `cls` whose every `return` gives a boolean: comparisons, `not`, `and`/`or`,
    bool literals, `jnp.bool(...)`, a `functools.reduce` from a bool, or another predicate
    (a method through `self.`, or a module-level function), found to a fixed point."""
    body = statements(tree.module.body)
    node = next((n for n in body if isinstance(n, cst.ClassDef) and n.name.value == cls), None)
    if node is None:
        return ()
    methods = {n.name.value: n for n in statements(node.body) if is_def(n)}
    returns = {f"self.{n}": _returns(m) for n, m in methods.items()}
    returns |= {n.name.value: _returns(n) for n in body if is_def(n)}
    known: set[str] = set()
    while True:
        found = {n for n, values in returns.items()
                 if values and all(v is not None and _boolean(v, known) for v in values)}
        if found == known:
            break
        known = found
    return tuple(_method(tree, m) for n, m in methods.items()
                 if f"self.{n}" in known)


class _Returns(cst.CSTVisitor):
    """The values of a function's own `return`s (not those of functions nested in it)."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression | None] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.values.append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _returns(fn: cst.FunctionDef) -> list[cst.BaseExpression | None]:
    visitor = _Returns()
    fn.body.visit(visitor)
    return visitor.values


def _boolean(e: cst.BaseExpression, known: set[str]) -> bool:
    if isinstance(e, cst.Name):
        return e.value in ("True", "False")
    if isinstance(e, cst.Comparison) or (isinstance(e, cst.UnaryOperation)
                                         and isinstance(e.operator, cst.Not)):
        return True
    if isinstance(e, cst.BooleanOperation) or (isinstance(e, cst.BinaryOperation) and isinstance(
            e.operator, (cst.BitOr, cst.BitAnd, cst.BitXor))):
        return _boolean(e.left, known) and _boolean(e.right, known)
    if isinstance(e, cst.Call):
        name, args = dotted(e.func), positional(e)
        if last(name) in ("bool", "bool_"):
            return True
        if last(name) == "reduce" and len(args) == 3:
            return _boolean(args[2], known)
        return bool(name) and name in known
    return False
