"""The sm90 attention kernel's parameters, read from pinned source with libcst: its tiling
ladder, heuristic, epilogue tiles, warpgroups, registers, barriers, and the Pallas Mosaic GPU
allocation constants its shared memory depends on. Each value keeps the line it is read from."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import product

import libcst as cst

from reader.errors import Location
from reader.extract.fact import ExtractError
from reader.extract.parse import parse_module
from reader.extract.sm90_model import (
    ARG_SPECS_PATH,
    COMMON_PATH,
    MGPU_CORE_PATH,
    SM90_PATH,
    Sm90Params,
    Tiling,
)
from reader.extract.tree import Position, Positions


@lru_cache(maxsize=8)
def source(text: str, path: str) -> Source:
    """The pinned file parsed once per text: the sm90 kernel is read by the barrier facts and by
    `sm90_params` alike."""
    return Source(text, path)


class Source:
    """One parsed file: its tree, each node's line, its walks, and errors located in it."""

    def __init__(self, text: str, path: str, extractor: str = "reader/extract/sm90_source.py"):
        self.path = path
        self.extractor = extractor
        """The module to update when the file changes shape (named in every error)."""
        self.tree = parse_module(text, path)
        self._pos = Positions(self.tree)

    @cached_property
    def _walked(self) -> _Preorder:
        return _Preorder.of(self.tree)

    def walk(self, node: cst.CSTNode | None = None) -> list[cst.CSTNode]:
        """`walk(node)` as a list, `node` the module by default: a slice of one walk of the
        whole tree, made on the first call (the kernel's functions are searched many times)."""
        start, end = self._walked.spans[self.tree if node is None else node]
        return self._walked.order[start:end]

    @property
    def parents(self) -> Mapping[cst.CSTNode, cst.CSTNode]:
        """Each node's parent, over the whole tree."""
        return self._walked.parents

    def calls(self, scope: cst.CSTNode, name: str) -> list[cst.Call]:
        """The calls of `name` in `scope` (see `callee`), in source order."""
        return [n for n in self.walk(scope) if isinstance(n, cst.Call) and callee(n) == name]

    def assigned(self, scope: cst.CSTNode, name: str) -> cst.BaseExpression | None:
        """The value of the first `name = ...` in `scope`."""
        for n in self.walk(scope):
            if isinstance(n, cst.Assign) and any(isinstance(t.target, cst.Name)
                                                 and t.target.value == name for t in n.targets):
                return n.value
        return None

    def position(self, node: cst.CSTNode) -> Position:
        """Where `node` starts."""
        return self._pos.start(node)

    def line(self, node: cst.CSTNode) -> int:
        return self._pos.line(node)

    def at(self, node: cst.CSTNode) -> Location:
        return Location(self.path, self.line(node))

    def fail(self, what: str, node: cst.CSTNode | None = None) -> ExtractError:
        return ExtractError(f"cannot read {what} from the pinned source",
                            self.at(node) if node is not None else Location(self.path),
                            f"the file changed shape; update {self.extractor}")

    def function(self, name: str) -> cst.FunctionDef:
        found = next((n for n in walk(self.tree) if isinstance(n, cst.FunctionDef)
                      and n.name.value == name), None)
        if found is None:
            raise self.fail(f"function {name}")
        return found

    def cls(self, name: str) -> cst.ClassDef:
        found = next((n for n in walk(self.tree) if isinstance(n, cst.ClassDef)
                      and n.name.value == name), None)
        if found is None:
            raise self.fail(f"class {name}")
        return found

    def constants(self) -> dict[str, int]:
        """Module-level `NAME = <integer expression>`."""
        out: dict[str, int] = {}
        for stmt in self.tree.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Name):
                    value = evaluate(small.value, out)
                    if value is not None:
                        out[small.targets[0].target.value] = value
        return out

    def int_of(self, node: cst.BaseExpression, env: Mapping[str, int], what: str) -> int:
        value = evaluate(node, env)
        if value is None:
            raise self.fail(what, node)
        return value


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it, in source order (libcst's `children`, the costly part,
    is read as the walk reaches each node: a search that stops early reads few)."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo += reversed(n.children)


@dataclass(frozen=True)
class _Preorder:
    """A whole tree walked once: its nodes in source order, each node's slice of them (itself
    and its descendants), and each node's parent."""

    order: list[cst.CSTNode]
    spans: dict[cst.CSTNode, tuple[int, int]]
    parents: dict[cst.CSTNode, cst.CSTNode]

    @classmethod
    def of(cls, root: cst.CSTNode) -> _Preorder:
        order: list[cst.CSTNode] = []
        spans: dict[cst.CSTNode, tuple[int, int]] = {}
        parents: dict[cst.CSTNode, cst.CSTNode] = {}
        todo: list[cst.CSTNode | int] = [root]
        while todo:
            item = todo.pop()
            if isinstance(item, int):  # every descendant of the node at `item` is in `order`
                spans[order[item]] = (item, len(order))
                continue
            children = item.children
            parents.update(dict.fromkeys(children, item))
            todo.append(len(order))
            order.append(item)
            todo += reversed(children)
        return cls(order, spans, parents)


_OPS = {cst.Add: int.__add__, cst.Subtract: int.__sub__, cst.Multiply: int.__mul__,
        cst.FloorDivide: int.__floordiv__}


def evaluate(node: cst.BaseExpression, env: Mapping[str, int]) -> int | None:
    """An integer expression over literals and the names in `env`, or None."""
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.Name):
        return env.get(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = evaluate(node.expression, env)
        return None if inner is None else -inner
    if isinstance(node, cst.BinaryOperation) and type(node.operator) in _OPS:
        a, b = evaluate(node.left, env), evaluate(node.right, env)
        return None if a is None or b is None else _OPS[type(node.operator)](a, b)
    return None


def callee(call: cst.Call) -> str:
    """The last name of what is called: `plgpu.Barrier(...)` -> `Barrier`."""
    f = call.func
    return f.attr.value if isinstance(f, cst.Attribute) else f.value if isinstance(f, cst.Name) else ""


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword and a.keyword.value == name), None)


def _values(src: Source, scope: cst.CSTNode,
            node: cst.BaseExpression) -> tuple[int | bool, ...] | None:
    """What a loop of the tuner runs over: a literal list, either arm of a conditional list, a sum
    of lists, a comprehension over one, or a name assigned one of these in `scope`."""
    if isinstance(node, (cst.List, cst.Tuple)):
        out = [True if isinstance(e.value, cst.Name) and e.value.value == "True" else
               False if isinstance(e.value, cst.Name) and e.value.value == "False" else
               evaluate(e.value, {}) for e in node.elements]
        return None if any(v is None for v in out) else tuple(v for v in out if v is not None)
    if isinstance(node, cst.IfExp):
        parts = [_values(src, scope, node.body), _values(src, scope, node.orelse)]
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        parts = [_values(src, scope, node.left), _values(src, scope, node.right)]
    elif isinstance(node, (cst.ListComp, cst.GeneratorExp)):
        return _values(src, scope, node.for_in.iter)
    elif isinstance(node, cst.Name) and (value := src.assigned(scope, node.value)) is not None:
        return _values(src, scope, value)
    else:
        return None
    if any(p is None for p in parts):
        return None
    return tuple(dict.fromkeys(v for p in parts if p is not None for v in p))


def _loop(src: Source, scope: cst.CSTNode, target: str) -> tuple[cst.For, tuple[int | bool, ...]]:
    for n in src.walk(scope):
        if isinstance(n, cst.For) and isinstance(n.target, cst.Name) and n.target.value == target:
            values = _values(src, scope, n.iter)
            if values:
                return n, values
            raise src.fail(f"the values of loop variable {target}", n)
    raise src.fail(f"a loop over {target}", scope)


def _config(src: Source, call: cst.Call, base: Tiling | None) -> Tiling:
    """A `Config(...)`, or `dataclasses.replace(config, ...)` of `base`; `persistent=not
    <mask>.is_causal` is read for the non-causal attention the facts describe."""
    values = dict(vars(base)) if base else {}
    for arg in call.args:
        if not arg.keyword or arg.keyword.value not in ("block_q", "block_kv", "num_stages",
                                                         "persistent"):
            continue
        v = arg.value
        if arg.keyword.value != "persistent":
            values[arg.keyword.value] = src.int_of(v, {}, f"Config {arg.keyword.value}")
        elif isinstance(v, cst.Name) and v.value in ("True", "False"):
            values["persistent"] = v.value == "True"
        elif isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Not) \
                and isinstance(v.expression, cst.Attribute) and v.expression.attr.value == "is_causal":
            values["persistent"] = True
        else:
            raise src.fail("Config persistent", v)
    if {"block_q", "block_kv", "num_stages"} - set(values):
        raise src.fail("a Config's tiling", call)
    return Tiling(**values)


def _heuristic(src: Source, env: Mapping[str, int]) -> tuple[tuple[Tiling, ...], int, cst.CSTNode]:
    """The configs `get_heuristics_config` tries in order, and the budget each must stay under."""
    heur = src.function("get_heuristics_config")
    steps: list[Tiling] = []
    for call in (n for n in src.walk(heur) if isinstance(n, cst.Call)):
        if callee(call) == "Config":
            steps.append(_config(src, call, None))
        elif callee(call) == "replace" and steps:
            steps.append(_config(src, call, steps[-1]))
    budget = next((c.comparator for n in src.walk(heur) if isinstance(n, cst.Comparison)
                   for c in n.comparisons if isinstance(c.operator, cst.LessThan)), None)
    if len(steps) < 2 or budget is None:
        raise src.fail("the heuristic and its budget", heur)
    return tuple(steps), src.int_of(budget, env, "the heuristic's budget"), heur


def bound_name(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> str:
    """The name a value is assigned to (`x = v`, `d["x"] = v`) or passed as (`x=v`), if any."""
    up = parents.get(node)
    if isinstance(up, cst.Arg) and up.keyword:
        return up.keyword.value
    if isinstance(up, cst.Assign) and len(up.targets) == 1:
        t = up.targets[0].target
        if isinstance(t, cst.Name):
            return t.value
        if isinstance(t, cst.Subscript) and len(t.slice) == 1 \
                and isinstance(t.slice[0].slice, cst.Index) \
                and isinstance(key := t.slice[0].slice.value, cst.SimpleString):
            return str(key.evaluated_value)
    return ""


def _barriers(src: Source, fn: cst.FunctionDef) -> tuple[int, int, int]:
    """(single, per-stage, optional per-stage) mbarriers among the kernel's scratch types: a
    `Barrier` without `num_barriers` is one, with `num_barriers=num_stages` an array per stage;
    one made under an `if` exists only for some calls. Any other size is an error."""
    parents = src.parents
    fixed = stages = optional = 0
    for call in src.calls(fn, "Barrier"):
        size = keyword(call, "num_barriers")
        under_if = False
        node: cst.CSTNode | None = call
        while node is not None and node is not fn:
            under_if = under_if or isinstance(node, cst.If)
            node = parents.get(node)
        if size is None:
            fixed += 1
        elif isinstance(size, cst.Name) and size.value == "num_stages":
            optional, stages = (optional + 1, stages) if under_if else (optional, stages + 1)
        else:
            name = bound_name(call, parents) or "a barrier"
            raise src.fail(f"the size of {name} (num_barriers={cst.Module([]).code_for_node(size)})",
                           call)
    return fixed, stages, optional


_NAMED = ("bar_arrive", "bar_sync")


def _named_barrier_ids(src: Source, fn: cst.FunctionDef, env: Mapping[str, int],
                       compute_wgs: int, num_stages: int) -> tuple[int, ...]:
    """Hardware barrier ids of every `bar_arrive`/`bar_sync` (called, or bound by a partial),
    evaluated over each compute warpgroup `wg` and stage `si`."""
    scope = {**env, "num_stages": num_stages}
    for n in src.walk(fn):  # `schedule_barrier = 4`, `k_consumed_barrier = q_consumed_barrier + 1`
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name):
            value = evaluate(n.value, scope)
            if value is not None:
                scope[n.targets[0].target.value] = value
    exprs = [c.args[0].value for c in src.calls(fn, "bar_arrive") + src.calls(fn, "bar_sync")
             if c.args]
    exprs += [c.args[1].value for c in src.calls(fn, "partial") if len(c.args) > 1
              and isinstance(f := c.args[0].value, (cst.Attribute, cst.Name))
              and (f.attr.value if isinstance(f, cst.Attribute) else f.value) in _NAMED]
    ids: set[int] = set()
    for expr in exprs:
        for wg, si in product(range(compute_wgs), range(num_stages)):
            value = evaluate(expr, {**scope, "wg": wg, "si": si})
            if value is None:
                raise src.fail("a named barrier id", expr)
            ids.add(value)
    if not ids:
        raise src.fail("the named barrier ids", fn)
    return tuple(sorted(ids))


def _named_barrier_uses(src: Source, fn: cst.FunctionDef) -> int:
    """Calls of `bar_arrive`/`bar_sync`, and uses of names bound to a partial of them."""
    bound = {t.target.value for n in src.walk(fn) if isinstance(n, cst.Assign)
             for t in n.targets if isinstance(t.target, cst.Name)
             and isinstance(n.value, cst.Call) and callee(n.value) == "partial"
             and any(isinstance(a.value, (cst.Attribute, cst.Name))
                     and cst.Module([]).code_for_node(a.value).endswith(_NAMED) for a in n.value.args)}
    names = [n for n in src.walk(fn) if isinstance(n, cst.Name) and n.value in bound]
    return len(src.calls(fn, "bar_arrive")) + len(src.calls(fn, "bar_sync")) + len(names) - len(bound)


def _registers(src: Source, fn: cst.FunctionDef) -> tuple[int, int]:
    """(per-thread registers of a compute warpgroup, of the memory warpgroup)."""
    by_action: dict[str, int] = {}
    for call in src.calls(fn, "set_max_registers"):
        action = keyword(call, "action")
        if isinstance(action, cst.SimpleString) and call.args:
            by_action[str(action.evaluated_value)] = src.int_of(call.args[0].value, {}, "registers")
    if set(by_action) != {"increase", "decrease"}:
        raise src.fail("set_max_registers calls", fn)
    return by_action["increase"], by_action["decrease"]


def _field_default(src: Source, cls: str, name: str) -> tuple[int, cst.CSTNode]:
    for n in walk(src.tree):  # once, and it stops early: Pallas's core.py is large
        if isinstance(n, cst.ClassDef) and n.name.value == cls:
            for stmt in n.body.body:
                for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                            and small.target.value == name and small.value is not None:
                        return src.int_of(small.value, {}, f"the default of {cls}.{name}"), small
    raise src.fail(f"the default of {cls}.{name}")


def _epilogue(src: Source, fn: cst.FunctionDef) -> tuple[int, int, int, cst.CSTNode]:
    """(epi_tile_q, the bits an `epi_tile_d` row holds, the most epilogue slots)."""
    q, d, slots = (src.assigned(fn, n) for n in ("epi_tile_q", "epi_tile_d", "num_epi_slots"))
    if q is None or not isinstance(d, cst.BinaryOperation) or not isinstance(slots, cst.Call) \
            or not slots.args:
        raise src.fail("the epilogue tiles", fn)
    return (src.int_of(q, {}, "epi_tile_q"), src.int_of(d.left, {}, "epi_tile_d"),
            src.int_of(slots.args[0].value, {}, "num_epi_slots"), q)


def _kernel_launch(src: Source, fn: cst.FunctionDef, env: Mapping[str, int],
                   default_reduction: int) -> tuple[int, int, cst.CSTNode]:
    """(warpgroups the kernel launches, the reduction scratch its CompilerParams reserves)."""
    launch = next((c for c in src.walk(fn) if isinstance(c, cst.Call)
                   and keyword(c, "num_threads") is not None and keyword(c, "scratch_types")), None)
    if launch is None:
        raise src.fail("the kernel launch (num_threads=, scratch_types=)", fn)
    threads = src.int_of(keyword(launch, "num_threads") or launch, env, "num_threads")
    params = next((c for c in src.calls(fn, "CompilerParams")), None)
    reduction = keyword(params, "reduction_scratch_bytes") if params else None
    return (threads, default_reduction if reduction is None
            else src.int_of(reduction, env, "reduction_scratch_bytes"), launch)


@lru_cache(maxsize=2)
def sm90_params(sm90: str, common: str, arg_specs: str, mgpu_core: str) -> Sm90Params:
    """Parse the sm90 kernel, its common helpers, tokamax's attention arg specs and Pallas
    Mosaic GPU's core. Once per texts: the facts and the `sm90-budget` figure both read them
    (the result is frozen, and a build's page workers fork after the facts)."""
    src, core = source(sm90, SM90_PATH), source(mgpu_core, MGPU_CORE_PATH)
    specs, shared = source(arg_specs, ARG_SPECS_PATH), source(common, COMMON_PATH)
    env = src.constants()
    tuner = src.function("get_autotuning_configs")
    scratch = src.function("_get_scratch_types")
    kern = src.function("flash_attention_kernel")
    heuristic, budget, heur = _heuristic(src, env)
    loops = {t: _loop(src, tuner, t) for t in ("block_q", "block_kv", "persistent", "num_stages")}
    if "_COMPUTE_WGS" not in env:
        raise src.fail("module constant _COMPUTE_WGS")
    compute_wgs = env["_COMPUTE_WGS"]
    epi_q, epi_bits, slots, epi_at = _epilogue(src, scratch)
    fixed, stages, optional = _barriers(src, scratch)
    compute_regs, memory_regs = _registers(src, kern)
    reduction, reduction_at = _field_default(core, "CompilerParams", "reduction_scratch_bytes")
    threads, kernel_reduction, launch = _kernel_launch(src, kern, env, reduction)
    swizzle, alignment = shared.constants().get("MIN_SWIZZLE"), core.constants().get("SMEM_ALIGNMENT")
    if swizzle is None or alignment is None:
        raise (shared.fail("MIN_SWIZZLE") if swizzle is None else core.fail("SMEM_ALIGNMENT"))
    head_loop, head_dims = _loop(specs, specs.function("_flash_attention_v3_specs"), "head_dim")
    barrier_calls = src.calls(scratch, "Barrier")
    at = {"heuristic": src.at(heur), "budget_bytes": src.at(heur), "epilogue": src.at(epi_at),
          "candidates": src.at(loops["block_q"][0]), "barriers": src.at(barrier_calls[0]),
          "registers": src.at(src.calls(kern, "set_max_registers")[0]), "launch": src.at(launch),
          "named_barriers": src.at(kern), "head_dims": specs.at(head_loop),
          "reduction_scratch_bytes": core.at(reduction_at),
          "smem_alignment": Location(MGPU_CORE_PATH, _constant_line(core, "SMEM_ALIGNMENT")),
          "min_swizzle": Location(COMMON_PATH, _constant_line(shared, "MIN_SWIZZLE"))}
    return Sm90Params(
        block_qs=_ints(src, loops["block_q"]), block_kvs=_ints(src, loops["block_kv"]),
        stages=_ints(src, loops["num_stages"]),
        persistents=tuple(bool(v) for v in loops["persistent"][1]),
        heuristic=heuristic, budget_bytes=budget, min_swizzle=swizzle,
        epi_tile_q=epi_q, epi_tile_bits=epi_bits, max_epi_slots=slots,
        compute_wgs=compute_wgs, num_warpgroups=threads,
        compute_registers=compute_regs, memory_registers=memory_regs,
        fixed_barriers=fixed, stage_barriers=stages, optional_stage_barriers=optional,
        named_barrier_ids=_named_barrier_ids(src, kern, env, compute_wgs, heuristic[0].num_stages),
        barrier_waits=len(src.calls(kern, "barrier_wait")),
        barrier_arrives=len(src.calls(kern, "barrier_arrive")),
        named_barrier_uses=_named_barrier_uses(src, kern),
        head_dims=tuple(int(d) for d in head_dims), smem_alignment=alignment,
        reduction_scratch_bytes=reduction, kernel_reduction_scratch_bytes=kernel_reduction, at=at)


def _ints(src: Source, loop: tuple[cst.For, tuple[int | bool, ...]]) -> tuple[int, ...]:
    if any(isinstance(v, bool) for v in loop[1]):
        raise src.fail("a loop over integers", loop[0])
    return tuple(int(v) for v in loop[1])


def _constant_line(src: Source, name: str) -> int:
    for stmt in src.tree.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name)
                                                     and t.target.value == name for t in small.targets):
                return src.line(stmt)
    raise src.fail(f"module constant {name}")
