"""The sm90 attention kernel's parameters, read from pinned source with `ast`: its tiling
ladder, heuristic, epilogue tiles, warpgroups, registers, barriers, and the Pallas Mosaic GPU
allocation constants its shared memory depends on."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from itertools import product

from reader.errors import InputError, Location

SM90_PATH = "tokamax/_src/ops/attention/pallas_mosaic_gpu_kernel_sm90.py"
ARG_SPECS_PATH = "tokamax/_src/ops/attention/arg_specs.py"
MGPU_CORE_PATH = "jax/_src/pallas/mosaic_gpu/core.py"


@dataclass(frozen=True, order=True)
class Tiling:
    """One candidate config of the sm90 kernel."""

    block_q: int
    block_kv: int
    num_stages: int


@dataclass(frozen=True)
class Sm90Params:
    """The numbers the sm90 kernel and its Pallas lowering fix, as read from the pinned source."""

    block_qs: tuple[int, ...]
    block_kvs: tuple[int, ...]
    stages: tuple[int, ...]
    heuristic: Tiling
    fallback: Tiling
    budget_bytes: int
    estimate_overhead: int
    min_swizzle: int
    epi_tile_q: int
    epi_tile_bits: int
    max_epi_slots: int
    compute_wgs: int
    num_warpgroups: int
    compute_registers: int
    memory_registers: int
    fixed_barriers: int
    """mbarriers allocated once per compute warpgroup (`q_barrier`)."""
    stage_barriers: int
    """mbarrier arrays of `max_stages` entries that every call allocates."""
    optional_stage_barriers: int
    """mbarrier arrays of `max_stages` entries allocated only with a bias or mask in smem."""
    named_barrier_ids: tuple[int, ...]
    barrier_waits: int
    """Call sites of `plgpu.barrier_wait` in the kernel."""
    barrier_arrives: int
    """Call sites of `plgpu.barrier_arrive` (arrivals a thread makes by hand, not by TMA)."""
    named_barrier_uses: int
    """Places the kernel calls, or hands to `pl.when`, a `bar.arrive`/`bar.sync` partial."""
    head_dims: tuple[int, ...]
    smem_alignment: int
    reduction_scratch_bytes: int

    @property
    def candidates(self) -> list[Tiling]:
        return [Tiling(*t) for t in product(self.block_qs, self.block_kvs, self.stages)]


def _fail(path: str, what: str, node: ast.AST | None = None) -> InputError:
    line = getattr(node, "lineno", None)
    return InputError(f"cannot read {what} from the pinned source", Location(path, line),
                      "the file changed shape; update reader/extract/sm90_source.py")


def _function(tree: ast.Module, name: str, path: str) -> ast.FunctionDef:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise _fail(path, f"function {name}")


def _eval(node: ast.AST, path: str) -> int:
    """An integer constant expression (`227 * 1024`, `128 * 4 * 4`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Add, ast.Sub)):
        a, b = _eval(node.left, path), _eval(node.right, path)
        return a * b if isinstance(node.op, ast.Mult) else a + b if isinstance(node.op, ast.Add) else a - b
    raise _fail(path, "an integer constant", node)


def _assigned(scope: ast.AST, name: str, path: str) -> ast.expr:
    """The value of the first `name = ...` in `scope`."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                for t in node.targets):
            return node.value
    raise _fail(path, f"assignment to {name}")


def _literal_ints(node: ast.AST, path: str) -> tuple[int, ...]:
    if isinstance(node, (ast.List, ast.Tuple)):
        return tuple(_eval(e, path) for e in node.elts)
    raise _fail(path, "a literal list of integers", node)


def _loop_values(scope: ast.AST, target: str, path: str) -> tuple[int, ...]:
    """The literal list a `for target in [...]` loop or comprehension runs over."""
    for node in ast.walk(scope):
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) \
                and node.target.id == target and isinstance(node.iter, (ast.List, ast.Tuple)):
            return _literal_ints(node.iter, path)
    raise _fail(path, f"the values of loop variable {target}")


def _calls(scope: ast.AST, attr: str) -> list[ast.Call]:
    return [n for n in ast.walk(scope) if isinstance(n, ast.Call)
            and isinstance(n.func, (ast.Attribute, ast.Name))
            and (n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id) == attr]


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _tiling(call: ast.Call, path: str) -> Tiling:
    if call.args:
        return Tiling(*(_eval(a, path) for a in call.args[1:4]))
    return Tiling(*(_eval(_keyword(call, k) or call, path) for k in ("block_q", "block_kv", "num_stages")))


def _module_int(tree: ast.Module, name: str, path: str) -> int:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                for t in node.targets):
            return _eval(node.value, path)
    raise _fail(path, f"module constant {name}")


def _field_default(tree: ast.Module, cls: str, field: str, path: str) -> int:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                        and stmt.target.id == field and stmt.value is not None:
                    return _eval(stmt.value, path)
    raise _fail(path, f"the default of {cls}.{field}")


def _barrier_size(fn: ast.FunctionDef, value: ast.expr, path: str) -> str | None:
    """The `num_barriers=` name of the `plgpu.Barrier` a scratch entry resolves to, if any."""
    if isinstance(value, ast.Call) and _calls(value, "Barrier"):
        size = _keyword(value, "num_barriers")
        if isinstance(size, ast.Name):
            return size.id
        raise _fail(path, "num_barriers of a barrier", value)
    if isinstance(value, ast.Name):
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == value.id
                                                    for t in node.targets):
                if (found := _barrier_size(fn, node.value, path)) is not None:
                    return found
    return None


def _top_level_barrier(fn: ast.FunctionDef, value: ast.expr, path: str) -> bool:
    """Whether a scratch entry is a barrier on every call (assigned outside any `if`)."""
    if isinstance(value, ast.Call):
        return True
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == getattr(value, "id", "")
                                                for t in stmt.targets):
            return _barrier_size(fn, stmt.value, path) is not None
    return False


def _barriers(fn: ast.FunctionDef, compute_wgs: int, path: str) -> tuple[int, int, int]:
    """(fixed, per-stage, optional per-stage) mbarrier arrays in the kernel's `scratch_shapes`."""
    scratch = _assigned(fn, "scratch_shapes", path)
    if not isinstance(scratch, ast.Call):
        raise _fail(path, "scratch_shapes", scratch)
    fixed = stages = optional = 0
    for kw in scratch.keywords:
        size = _barrier_size(fn, kw.value, path)
        if size == "compute_wgs":
            fixed += compute_wgs
        elif size == "max_stages" and _top_level_barrier(fn, kw.value, path):
            stages += 1
        elif size == "max_stages":
            optional += 1
    return fixed, stages, optional


def _named_barrier_ids(fn: ast.FunctionDef, compute_wgs: int, path: str) -> tuple[int, ...]:
    """Hardware barrier ids passed to `bar.arrive`/`bar.sync`, over every compute warpgroup."""
    ids: set[int] = set()
    for call in _calls(fn, "partial"):
        expr = _keyword(call, "barrier_id")
        if expr is None:
            continue
        for wg in range(compute_wgs):
            node = ast.fix_missing_locations(_Substitute("wg", wg).visit(ast.parse(ast.unparse(expr), mode="eval")))
            ids.add(_eval(node.body, path))
    if not ids:
        raise _fail(path, "the named barrier ids", fn)
    return tuple(sorted(ids))


def _named_barrier_uses(fn: ast.FunctionDef) -> int:
    """Uses of the names bound to `functools.partial(common.bar_*, barrier_id=...)`."""
    names = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name)
             and any(_keyword(c, "barrier_id") is not None for c in _calls(n.value, "partial"))}
    return sum(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
               for n in ast.walk(fn))


class _Substitute(ast.NodeTransformer):
    def __init__(self, name: str, value: int):
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Constant(self.value) if node.id == self.name else node


def _registers(fn: ast.FunctionDef, path: str) -> tuple[int, int]:
    """(per-thread registers of a compute warpgroup, of the memory warpgroup)."""
    by_action = {}
    for call in _calls(fn, "set_max_registers"):
        action = _keyword(call, "action")
        if isinstance(action, ast.Constant):
            by_action[action.value] = _eval(call.args[0], path)
    if set(by_action) != {"increase", "decrease"}:
        raise _fail(path, "set_max_registers calls", fn)
    return by_action["increase"], by_action["decrease"]


def sm90_params(sm90: str, arg_specs: str, mgpu_core: str) -> Sm90Params:
    """Parse the sm90 kernel, tokamax's attention arg specs and Pallas Mosaic GPU's core."""
    tree = ast.parse(sm90)
    tuner = _function(tree, "get_autotuning_configs", SM90_PATH)
    heur = _function(tree, "get_heuristics_config", SM90_PATH)
    est = _function(tree, "_estimate_shared_mem_usage_bytes", SM90_PATH)
    kern = _function(tree, "flash_attention_kernel", SM90_PATH)
    compare = next((n for n in ast.walk(heur) if isinstance(n, ast.Compare)), None)
    configs = sorted(_calls(heur, "Config"), key=lambda c: c.lineno)
    ret = next((n for n in ast.walk(est) if isinstance(n, ast.Return)), None)
    if compare is None or not isinstance(compare.left, ast.Call) or len(configs) < 2 \
            or ret is None or not isinstance(ret.value, ast.BinOp):
        raise _fail(SM90_PATH, "the heuristic and its estimate", heur)
    compute_wgs = _eval(_assigned(kern, "compute_wgs", SM90_PATH), SM90_PATH)
    epi_d = _assigned(kern, "epi_tile_d", SM90_PATH)
    slots = _assigned(kern, "num_epi_slots", SM90_PATH)
    kernel_call = _calls(kern, "kernel")
    if not isinstance(epi_d, ast.BinOp) or not isinstance(slots, ast.Call) or not kernel_call:
        raise _fail(SM90_PATH, "the epilogue tiles and the launch", kern)
    fixed, stages, optional = _barriers(kern, compute_wgs, SM90_PATH)
    compute_regs, memory_regs = _registers(kern, SM90_PATH)
    specs = _function(ast.parse(arg_specs), "_flash_attention_v3_specs", ARG_SPECS_PATH)
    core = ast.parse(mgpu_core)
    return Sm90Params(
        block_qs=_literal_ints(_loop_iter(_assigned(tuner, "block_qs", SM90_PATH)), SM90_PATH),
        block_kvs=_literal_ints(_loop_iter(_assigned(tuner, "block_kvs", SM90_PATH)), SM90_PATH),
        stages=_loop_values(tuner, "num_stages", SM90_PATH),
        heuristic=_tiling(compare.left, SM90_PATH), fallback=_tiling(configs[-1], SM90_PATH),
        budget_bytes=_eval(compare.comparators[0], SM90_PATH),
        estimate_overhead=_eval(ret.value.right, SM90_PATH),
        min_swizzle=_module_int(tree, "_MIN_SWIZZLE", SM90_PATH),
        epi_tile_q=_eval(_assigned(kern, "epi_tile_q", SM90_PATH), SM90_PATH),
        epi_tile_bits=_eval(epi_d.left, SM90_PATH), max_epi_slots=_eval(slots.args[0], SM90_PATH),
        compute_wgs=compute_wgs,
        num_warpgroups=_eval(_keyword(kernel_call[0], "num_threads") or kern, SM90_PATH),
        compute_registers=compute_regs, memory_registers=memory_regs,
        fixed_barriers=fixed, stage_barriers=stages, optional_stage_barriers=optional,
        named_barrier_ids=_named_barrier_ids(kern, compute_wgs, SM90_PATH),
        barrier_waits=len(_calls(kern, "barrier_wait")),
        barrier_arrives=len(_calls(kern, "barrier_arrive")),
        named_barrier_uses=_named_barrier_uses(kern),
        head_dims=_loop_values(specs, "head_dim", ARG_SPECS_PATH),
        smem_alignment=_module_int(core, "SMEM_ALIGNMENT", MGPU_CORE_PATH),
        reduction_scratch_bytes=_field_default(core, "CompilerParams", "reduction_scratch_bytes",
                                               MGPU_CORE_PATH),
    )


def _loop_iter(node: ast.expr) -> ast.AST:
    """The iterable of the first comprehension in `node` (`set([... for x in [64, 128]])`)."""
    comp = next((n for n in ast.walk(node) if isinstance(n, ast.comprehension)), None)
    return comp.iter if comp is not None else node
