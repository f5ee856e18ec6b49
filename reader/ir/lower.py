"""Lower a kernel for one backend and return the format's modules (imports jax: child process only).

A `Lowering` (kernels/_platform.py) names a function that makes one or more `pallas_call`s, its
arguments and backends; `building(backend)` is the context the function is traced in (a native
kernel for that backend, an abstract GPU where the host has none). The Mosaic TPU module is the
`tpu_custom_call`'s `body` (bytecode, locations kept in it), the Mosaic GPU module the
`mosaic_gpu_v2` call's `module`, both read back through their serde pass; the Triton module the
`__gpu$xla.gpu.triton` call's `ir`. The "jaxpr" backend gives each kernel jaxpr, one op a line.

A module's `error` is the backend's refusal of a kernel built for it, in the backend's words. A
failure of the lowering itself is no refusal but a build error (`MisbuiltKernel`): the function
does not trace, a `pallas_call` carries another backend's compiler parameters or has no lowering
for the backend at all (at jax 0.12.0.1 Mosaic GPU takes `plgpu.kernel`s only), or the lowered
module holds no kernel call for the backend.
"""

from __future__ import annotations

import base64
import functools
import importlib
import inspect
import json
import linecache
import re
import site
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jax
from jax._src import config as jax_config
from jax._src.interpreters import mlir
from jax._src.lib.mlir import ir, passmanager

from reader.errors import BuildError, Location
from reader.ir import FORMAT_VERSION, SourceFile, source_file
from reader.ir.mlir_ops import Locate, module_ops

TITLES = {"jaxpr": "kernel jaxpr", "mosaic_tpu": "Mosaic TPU", "mosaic_gpu": "Mosaic GPU", "triton": "Triton"}
PLATFORMS = {"jaxpr": "tpu", "mosaic_tpu": "tpu", "mosaic_gpu": "cuda", "triton": "cuda"}
CALL_TARGETS = {"mosaic_tpu": "tpu_custom_call", "mosaic_gpu": "mosaic_gpu_v2", "triton": "__gpu$xla.gpu.triton"}
PARAMS = {"mosaic_tpu": ("jax._src.pallas.mosaic", "tpu"), "triton": ("jax._src.pallas.triton", "gpu"),
          "mosaic_gpu": ("jax._src.pallas.mosaic_gpu", "gpu")}
"""Each compiler backend's package (its `core.CompilerParams`; its `pallas_call_registration`
registers its rules when imported, as `pallas_call` lowering does), and the platform of its rule."""
_COMMENT = re.compile(r"\s+#(?: .*)?$")


class MisbuiltKernel(BuildError):
    """The page's own lowering failed (not the backend's refusal): located at the `Lowering`'s function."""


def locator(root: Path) -> Locate:
    """Location file names -> `SourceFile`: the project's files and the installed pinned packages."""
    packages = tuple(Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]
                     if Path(p).is_dir())
    packages += tuple(Path(jax.__file__).resolve().parents[1:2])
    resolved = root.resolve()

    @functools.cache  # a module's ops name a few files thousands of times
    def locate(filename: str) -> SourceFile | None:
        return source_file(filename, resolved, packages)
    return locate


INCLUDED = ("experimental/pallas/ops/", "_src/pallas/mosaic/pipeline.py", "_src/pallas/mosaic_gpu/pipeline.py")
"""Pinned jax files counted as user code, so their frames become locations (jax leaves its own
files out): the kernels in `ops/` and the pipeline emitters a lab's kernel calls."""


def include_pinned() -> None:
    """Register `INCLUDED` with jax as user code (once per process)."""
    from jax._src import source_info_util
    base = Path(jax.__file__).resolve().parent
    for part in INCLUDED:
        if str(base / part) not in source_info_util._include_paths:
            source_info_util.register_inclusion(str(base / part))
    source_info_util.is_user_filename.cache_clear()


def document(modules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": FORMAT_VERSION, "jax": jax.__version__, "modules": modules}


def lower_all(lowerings: list[Any], locate: Locate) -> list[dict[str, Any]]:
    """Every backend of every `Lowering`, in order; a backend that refuses gives an error module."""
    include_pinned()
    _find_triton_dialect()
    return [m for lowering in lowerings for backend in lowering.backends
            for m in lower(lowering, backend, locate)]


def _find_triton_dialect() -> None:
    """Make the Triton dialect's Python module importable where MLIR looks for a dialect's ops
    (`jaxlib.mlir.dialects.<namespace>`; jaxlib keeps it in `jaxlib.triton.dialect`): each Triton
    op read back tried four imports that failed, about 1,300 ops and 5,400 imports (1.7 s of
    the labs' run's CPU, a tenth of it)."""
    from jax._src.lib.triton import dialect as tt_dialect
    sys.modules.setdefault("jaxlib.mlir.dialects.tt", tt_dialect)


def lower(lowering: Any, backend: str, locate: Locate) -> list[dict[str, Any]]:
    """The modules `lowering` gives for `backend` (one per kernel), or one carrying the error."""
    fn = lowering.variants.get(backend, lowering.fn)
    kernel = getattr(lowering.kernel, "__name__", str(lowering.kernel))
    base = f"{lowering.name}-{backend.replace('_', '-')}"
    try:
        found = list(_jaxprs(fn, lowering, backend, locate) if backend == "jaxpr"
                     else _lowered(fn, lowering, backend, locate))
    except MisbuiltKernel:
        raise
    except Exception as e:  # noqa: BLE001 - a refusal is what the page shows
        return [{"id": base, "title": _title(kernel, backend), "backend": backend,
                 "kernel": kernel, "text": "", "ops": [], "error": refusal(e, locate)}]
    if not found:
        raise misbuilt(lowering, backend, fn, f"the lowered module holds no {CALL_TARGETS.get(backend, 'pallas_call')}")
    out = []
    for k, (name, text, ops, key) in enumerate(found):
        out.append({"id": base if len(found) == 1 else f"{base}-{k + 1}",
                    "title": _title(name or kernel, backend), "backend": backend,
                    "kernel": name or kernel, "text": text, "ops": ops, **({"rule_key": key} if key else {})})
    return out


def _title(kernel: str, backend: str) -> str:
    return f"{kernel}: its kernel jaxpr" if backend == "jaxpr" else f"{kernel} lowered for {TITLES[backend]}"


def refusal(e: BaseException, locate: Locate) -> str:
    """The exception's first line, its paths shortened and then cut at 600 characters (cut first, a
    path's length, so the folder the project was built in, would decide what is kept); for one
    without a message, the line that raised it."""
    message = str(e).strip().splitlines()
    if message:
        return f"{type(e).__name__}: {_relative_paths(message[0], locate)[:600]}"
    frame = traceback.extract_tb(e.__traceback__)[-1]
    where = locate(frame.filename)
    place = f"{where[0]}:{frame.lineno}" if where else f"{Path(frame.filename).name}:{frame.lineno}"
    code = linecache.getline(frame.filename, frame.lineno or 0).strip()
    return f"{type(e).__name__} at {place}" + (f": {code}" if code else "")


def _relative_paths(text: str, locate: Locate) -> str:
    """`text` with each absolute `.py` path written as the project or pin path it maps to."""
    def short(m: re.Match[str]) -> str:
        where = locate(m.group(0))
        return where[0] if where else Path(m.group(0)).name
    return re.sub(r"/[^\s:'\"()]+\.py", short, text)


def misbuilt(lowering: Any, backend: str, fn: Any, why: str) -> MisbuiltKernel:
    """The build error for `lowering`'s `backend`, located at the function that makes its kernels."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    where = None
    if code is not None:
        path = Path(code.co_filename).resolve()
        where = Location(path.relative_to(Path.cwd().resolve()).as_posix() if path.is_relative_to(Path.cwd().resolve())
                         else path.name, code.co_firstlineno)
    return MisbuiltKernel(f"the page's lowering of {lowering.name!r} for {TITLES[backend]} failed: {why}", where,
                          f"build the kernel for {TITLES[backend]}, or leave {backend!r} out of its Lowering's "
                          "backends with the reason")


def _traced(fn: Any, lowering: Any, backend: str) -> Any:
    """`fn` traced for `backend`; a `MisbuiltKernel` when it does not trace."""
    try:
        return jax.jit(fn).trace(*lowering.args)
    except Exception as e:  # noqa: BLE001 - the lab's function, not the backend, failed
        raise misbuilt(lowering, backend, fn, f"it does not trace: {type(e).__name__}: {str(e)[:300]}") from e


def _check_built(jaxpr: Any, lowering: Any, backend: str, fn: Any) -> None:
    """A `MisbuiltKernel` unless every `pallas_call` in `jaxpr` is one `backend` lowers: its
    compiler parameters `backend`'s (or none), and a `pallas_call` rule registered for them."""
    from jax._src.pallas import core as pallas_core
    package, platform = PARAMS[backend]
    importlib.import_module(f"{package}.pallas_call_registration")
    expected = importlib.import_module(f"{package}.core").CompilerParams
    for eqn in _equations(jaxpr):
        if eqn.primitive.name != "pallas_call":
            continue
        params = eqn.params.get("compiler_params")
        name = _jaxpr_name(eqn) or "?"
        if params is not None and type(params) is not expected:
            raise misbuilt(lowering, backend, fn, f"its pallas_call {name} carries {type(params).__module__}"
                           f".CompilerParams, built for another backend")
        if pallas_core.get_lowering_rule(expected, platform) is None:
            raise misbuilt(lowering, backend, fn, f"{TITLES[backend]} has no pallas_call lowering at jax "
                           f"{jax.__version__} (no rule registered for {package}.core.CompilerParams), and {name} "
                           "is a pallas_call")


def _lowered(fn: Any, lowering: Any, backend: str, locate: Locate) -> Iterator[tuple[str | None, str, list, str]]:
    with lowering.building(backend), jax_config.jax_mosaic_unzip_debug_locations(False):
        traced = _traced(fn, lowering, backend)
        _check_built(traced.jaxpr.jaxpr, lowering, backend, fn)
        stablehlo = traced.lower(lowering_platforms=(PLATFORMS[backend],)).compiler_ir("stablehlo")
    key = _rule_key(traced.jaxpr.jaxpr) if backend == "mosaic_gpu" else ""
    for call in _walk(stablehlo.operation):
        if call.name == "stablehlo.custom_call" and \
                ir.StringAttr(call.attributes["call_target_name"]).value == CALL_TARGETS[backend]:
            module = _embedded(call, backend)
            text, ops = module_ops(module, locate)
            name = module.operation.attributes["sym_name"] if "sym_name" in module.operation.attributes else None
            yield (ir.StringAttr(name).value if name is not None else None), text, ops, key


def _rule_key(jaxpr: Any) -> str:
    """The Mosaic GPU rule table the kernel's ops come from, as reader/extract/rules.py keys it:
    `<lowering semantics>/<thread semantics>` from the kernel's compiler parameters (threads:
    warpgroups, the kernel's own level; '' when no parameters say)."""
    from jax._src.pallas.mosaic_gpu import core as gpu_core
    for eqn in _equations(jaxpr):
        if eqn.primitive.name in ("mpmd_map", "pallas_call") and "compiler_params" in eqn.params:
            params = eqn.params["compiler_params"] or gpu_core.CompilerParams()  # what the rule takes
            semantics = getattr(params, "lowering_semantics", None)
            if semantics is not None:
                return f"{semantics.name}/Warpgroup"
    return ""


def _embedded(call: Any, backend: str) -> ir.Module:
    """The kernel module a custom call carries, parsed into a fresh context."""
    ctx = mlir.make_ir_context()
    ctx.allow_unregistered_dialects = True
    if backend == "mosaic_tpu":
        from jax._src.lib import tpu
        tpu.register_dialect(ctx)
        config = json.loads(ir.StringAttr(call.attributes["backend_config"]).value)
        data, serde = base64.b64decode(config["custom_call_config"]["body"]), "mosaic-serde"
    elif backend == "mosaic_gpu":
        from jax._src.lib import mosaic_gpu_dialect
        mosaic_gpu_dialect.register_dialect(ctx)
        data = ir.StringAttr(ir.DictAttr(call.attributes["mhlo.backend_config"])["module"]).value_bytes
        serde = "mosaic_gpu-serde"
    else:
        from jax._src.lib.triton import dialect as tt_dialect
        tt_dialect.register_dialect(ctx)
        data = ir.StringAttr(ir.DictAttr(call.attributes["mhlo.backend_config"])["ir"]).value_bytes
        serde = ""
    with ctx:
        module = ir.Module.parse(data)
        if serde:
            passmanager.PassManager.parse(f"builtin.module({serde}{{serialize=false}})").run(module.operation)
    return module


def _walk(op: Any) -> Iterator[Any]:
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _walk(inner.operation)


def _jaxprs(fn: Any, lowering: Any, backend: str, locate: Locate) -> Iterator[tuple[str | None, str, list, str]]:
    with lowering.building(backend):
        closed = _traced(fn, lowering, backend).jaxpr
    for eqn in _equations(closed.jaxpr):
        if eqn.primitive.name == "pallas_call":
            kernel = eqn.params["jaxpr"]
            yield _jaxpr_name(eqn), *_jaxpr_ops(kernel, locate), ""
        elif eqn.primitive.name == "mpmd_map":   # pl.kernel, plgpu.kernel: a jaxpr per mesh
            for kernel in eqn.params["jaxprs"]:
                yield getattr(kernel.debug_info, "func_name", None), *_jaxpr_ops(kernel, locate), ""


def _jaxpr_name(eqn: Any) -> str | None:
    info = getattr(eqn.params.get("jaxpr"), "debug_info", None)
    return getattr(info, "func_name", None)


def _equations(jaxpr: Any) -> Iterator[Any]:
    """Every equation of a jaxpr and of the jaxprs in its equations' parameters, pre-order."""
    for eqn in jaxpr.eqns:
        yield eqn
        if eqn.primitive.name in ("pallas_call", "mpmd_map"):
            continue
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    yield from _equations(inner)


_SOURCE = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+) \(")
_PRIMITIVE = re.compile(r"(?:^|\s)=\s*([A-Za-z_][\w]*)|^\s*([A-Za-z_][\w]*)\[")


def _jaxpr_ops(kernel: Any, locate: Locate) -> tuple[str, list[dict[str, Any]]]:
    """The kernel jaxpr printed (one equation a line) and each equation with its user frame:
    printed with `source_info=True`, each equation's first line ends with a
    `# file:line:col (function)` comment (empty when no user frame). jax prints a sub-jaxpr
    used twice once, so the equations are read from the lines, not matched to `jaxpr.eqns`."""
    lines = kernel.pretty_print(source_info=True, name_stack=False).splitlines()
    ops = []
    for i, line in enumerate(lines):
        comment = _COMMENT.search(line)
        if comment is None:
            continue
        code = line[: comment.start()]
        source = _SOURCE.match(comment.group(0).strip()[1:].strip())
        where = locate(source["file"]) if source else None
        loc = None
        if source and where:
            loc = {"file": where[0], "pin": where[1], "line": int(source["line"]),
                   "col": int(source["col"]), "end_line": None, "end_col": None}
        name = _equation_primitive(code)
        ops.append({"line": i + 1, "op": name, "primitive": name, "loc": loc})
    text = "\n".join(_COMMENT.sub("", line).rstrip() for line in lines) + "\n"
    return text, ops


def _equation_primitive(code: str) -> str:
    """The primitive of a printed equation: `a = prim[...] b`, `prim[...] a`, or a ref's
    `a <- r[...]` (get) / `r[...] <- a` (swap)."""
    if "<-" in code:
        left = code.split("<-")[0]  # `d:f32[8] <- a[...]` reads; `a[...] <- d` writes
        return "swap" if re.search(r"(?:^|[\s,])[A-Za-z_]\w*\[", left) else "get"
    if "+=" in code:
        return "addupdate"
    m = _PRIMITIVE.search(code)
    return next((g for g in m.groups() if g), "?") if m else "?"


def main(argv: list[str]) -> int:
    """`python -m reader.ir.lower MODULE`: print each lowered module's coverage (a check by hand)."""
    import importlib

    from reader.ir import coverage
    lab = importlib.import_module(argv[0])
    for m in lower_all(lab.lowerings(), locator(Path.cwd())):
        c = coverage(m)
        print(f"{m['id']:40} {c.located:5}/{c.total:<5} {m.get('error', '')[:100]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
