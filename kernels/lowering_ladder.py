"""LAB·2.1 · The lowering ladder: one kernel through every IR a CPU host can reach.

The same kernel body is lowered five ways without any accelerator: the outer jaxpr (one
`pallas_call` equation), the kernel jaxpr inside it, then, with `lowering_platforms` and
`debug=True`, the Mosaic TPU module (what `tpu_custom_call` carries to the TPU compiler), the
Triton IR (`tt.func`) and the Mosaic GPU module. A host without a GPU lowers for one only
inside an abstract mesh whose device names the GPU (here an H100): at jax 0.12.0.1 the GPU
lowerings ask it for the target's compute capability. In jax 0.12.0.1 a GPU `pallas_call`
lowers to Triton (deprecated since jax 0.11.0) and Mosaic GPU no longer takes a `pallas_call`
at all: the Mosaic GPU rung runs the same body through `plgpu.kernel`, its blocks staged by
`plgpu.emit_pipeline`. Each rung is printed with its size and its most used ops, and saved for
the site. A second kernel, a matmul, shows a rung that refuses: each backend is a dictionary
from primitive to lowering rule, and Mosaic GPU's has no `dot_general` (a Hopper kernel uses
`plgpu.wgmma` instead), so lowering raises rather than falling back.

The kernel itself runs natively on a GPU only; anywhere else, a TPU host included, it is
interpreted on the CPU (`kernels/_gpu.py`). A rung this host cannot reach (Mosaic GPU without
absl-py, or at a jax whose `plgpu.kernel` takes no `debug=`) is skipped with one line saying why.

Exercises: jax/_src/pallas/pallas_call.py::_pallas_call_lowering, jax/_src/pallas/mosaic/pallas_call_registration.py::pallas_call_tpu_lowering_rule, jax/_src/pallas/mosaic/lowering.py::lower_jaxpr_to_pipelined_module, jax/_src/pallas/mosaic/lowering.py::lowering_rules, jax/_src/pallas/triton/pallas_call_registration.py::pallas_call_lowering, jax/_src/pallas/triton/gpu_info.py::get_gpu_info, jax/_src/pallas/triton/lowering.py::triton_lowering_rules, jax/_src/pallas/mosaic_gpu/core.py::kernel, jax/_src/pallas/mosaic_gpu/pipeline.py::emit_pipeline, jax/_src/pallas/mosaic_gpu/pallas_call_registration.py::mpmd_map_mgpu_lowering_rule, jax/_src/pallas/mosaic_gpu/lowering.py::mosaic_lowering_rules
"""

from __future__ import annotations

import collections
import contextlib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from kernels import _gpu
from kernels import _platform as plat

SHAPE = (256, 128)
BLOCK = (128, 128)


# %% The kernels, and their calls for each backend
def exp_add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.exp(x_ref[...]) * 2.0 + y_ref[...]


def matmul_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)


def exp_add(x: jax.Array, y: jax.Array, *, debug: bool = False, compiler_params: Any = None,
            interpret: bool = False) -> jax.Array:
    spec = pl.BlockSpec(BLOCK, lambda i: (i, 0))
    return pl.pallas_call(
        exp_add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // BLOCK[0],), in_specs=[spec, spec], out_specs=spec,
        debug=debug, compiler_params=compiler_params, interpret=interpret)(x, y)


def _matmul_specs(x: jax.Array, y: jax.Array) -> tuple[list[pl.BlockSpec], pl.BlockSpec]:
    return ([pl.BlockSpec((128, x.shape[1]), lambda i: (i, 0)), pl.BlockSpec(y.shape, lambda i: (0, 0))],
            pl.BlockSpec((128, y.shape[1]), lambda i: (i, 0)))


def matmul(x: jax.Array, y: jax.Array, *, debug: bool = False, compiler_params: Any = None) -> jax.Array:
    in_specs, out_spec = _matmul_specs(x, y)
    return pl.pallas_call(
        matmul_kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0], y.shape[1]), jnp.float32),
        grid=(x.shape[0] // 128,), in_specs=in_specs, out_specs=out_spec,
        debug=debug, compiler_params=compiler_params)(x, y)


def mosaic_gpu_call(body: Callable[..., None], out_shape: jax.ShapeDtypeStruct, grid: tuple[int, ...],
                    in_specs: list[pl.BlockSpec], out_spec: pl.BlockSpec, debug: bool = False) -> Any:
    """The `pallas_call(body, grid, specs)` of a Pallas body, built for Mosaic GPU: a
    `plgpu.kernel` over GMEM refs whose `plgpu.emit_pipeline` copies each block to SMEM."""
    plgpu = _gpu.mosaic_gpu()

    def kernel(*gmem_refs):
        plgpu.emit_pipeline(lambda _, *smem_refs: body(*smem_refs), grid=grid,
                            in_specs=in_specs, out_specs=[out_spec])(*gmem_refs)

    return plgpu.kernel(kernel, out_type=out_shape, kernel_name=body.__name__, **_gpu.printing(debug))


def exp_add_mosaic_gpu(x: jax.Array, y: jax.Array, *, debug: bool = False) -> jax.Array:
    spec = pl.BlockSpec(BLOCK, lambda i: (i, 0))
    return mosaic_gpu_call(exp_add_kernel, jax.ShapeDtypeStruct(x.shape, x.dtype),
                           (x.shape[0] // BLOCK[0],), [spec, spec], spec, debug)(x, y)


def matmul_mosaic_gpu(x: jax.Array, y: jax.Array, *, debug: bool = False) -> jax.Array:
    in_specs, out_spec = _matmul_specs(x, y)
    return mosaic_gpu_call(matmul_kernel, jax.ShapeDtypeStruct((x.shape[0], y.shape[1]), jnp.float32),
                           (x.shape[0] // 128,), in_specs, out_spec, debug)(x, y)


# %% The ladder: the kernel in every IR on the way down
@dataclass(frozen=True)
class Rung:
    """One IR on the way down: its name, the file it is saved as, and its text; or why this host
    cannot reach it (`skipped`, the text then empty)."""

    name: str
    filename: str
    text: str
    skipped: str | None = None

    @property
    def lines(self) -> int:
        return len(self.text.splitlines())


def _triton_params() -> Any:
    from jax.experimental.pallas import triton as pltriton
    return pltriton.CompilerParams(num_warps=4, num_stages=1)


def debug_sections(fn: Callable[..., Any], args: tuple, platform: str) -> dict[str, str]:
    """Lower `fn` for `platform` and split what `debug=True` printed into its titled sections
    (`The Triton module for pallas_call ...:`, `The Mosaic GPU module for mpmd_map ...:`)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        plat.lower(fn, args, platform)
    sections: dict[str, str] = {}
    title = None
    for line in out.getvalue().splitlines():
        m = re.match(r"The (.+?) for (?:pallas_call|mpmd_map) ", line)
        if m:
            title = m.group(1)
            sections[title] = ""
        elif title is not None:
            sections[title] += line + "\n"
    return {k: v.strip() + "\n" for k, v in sections.items()}


def ladder() -> list[Rung]:
    x, y = plat.randn(4, SHAPE, SHAPE)
    outer, kernel = plat.jaxpr_pair(exp_add, x, y)
    tpu = debug_sections(lambda a, b: exp_add(a, b, debug=True), (x, y), "tpu")
    triton = debug_sections(lambda a, b: exp_add(a, b, debug=True, compiler_params=_triton_params()),
                            (x, y), "cuda")
    mgpu_name, mgpu_file = "Mosaic GPU MLIR", "lowering_ladder.5.mosaic_gpu.mlir"
    try:
        _gpu.mosaic_gpu_debug()
        mgpu = Rung(mgpu_name, mgpu_file, debug_sections(lambda a, b: exp_add_mosaic_gpu(a, b, debug=True),
                                                         (x, y), "cuda")["Mosaic GPU module"])
    except _gpu.MissingPart as e:
        mgpu = Rung(mgpu_name, mgpu_file, "", skipped=str(e))
    return [
        Rung("outer jaxpr", "lowering_ladder.1.outer.jaxpr.txt", outer),
        Rung("kernel jaxpr", "lowering_ladder.2.kernel.jaxpr.txt", kernel),
        Rung("Mosaic TPU MLIR", "lowering_ladder.3.mosaic_tpu.mlir", tpu["Mosaic module"]),
        Rung("Triton IR", "lowering_ladder.4.triton.ttir.mlir", triton["Triton module"]),
        mgpu,
    ]


# %% Checked against jnp, and a rung that refuses
def check() -> float:
    """Max abs error of the ladder's kernel, run here (natively on a GPU, interpreted elsewhere)."""
    with _gpu.host():
        x, y = plat.randn(4, SHAPE, SHAPE)
        run = jax.jit(lambda a, b: exp_add(a, b, interpret=_gpu.interpret(),
                                           compiler_params=plat.compiler_params()))
        return plat.max_abs_error(run(x, y), jnp.exp(x) * 2.0 + y)


def op_counts(mlir: str) -> collections.Counter[str]:
    """How often each `dialect.op` appears as an operation in an MLIR text."""
    ops = re.findall(r"^\s*(?:%[\w#:, %]+=\s*)?\"?([a-z_]+\.[a-z_][\w.]*)", mlir, re.MULTILINE)
    return collections.Counter(ops)


@dataclass(frozen=True)
class Refusal:
    """A backend's answer to the matmul kernel: the lowered op count, or the error it raised (or,
    where this host cannot reach the backend, `has_rule` None and why)."""

    backend: str
    has_rule: bool | None
    outcome: str


def refusals() -> list[Refusal]:
    """Lower the matmul kernel to each backend and look its primitive up in each rule table."""
    from jax._src.lax import lax as lax_internal
    from jax._src.pallas.mosaic import lowering as tpu_lowering
    from jax._src.pallas.triton import lowering as triton_lowering

    dot = lax_internal.dot_general_p
    tables = {
        "Mosaic TPU": dot in tpu_lowering.lowering_rules[next(iter(tpu_lowering.lowering_rules))],
        "Triton": dot in triton_lowering.triton_lowering_rules,
    }
    x, y = plat.randn(5, (256, 128), (128, 128))
    calls: dict[str, tuple[str, Callable[..., Any]]] = {
        "Mosaic TPU": ("tpu", lambda a, b: matmul(a, b, debug=True)),
        "Triton": ("cuda", lambda a, b: matmul(a, b, debug=True, compiler_params=_triton_params())),
        "Mosaic GPU": ("cuda", lambda a, b: matmul_mosaic_gpu(a, b, debug=True)),
    }
    out = []
    for backend, (platform, fn) in calls.items():
        if backend == "Mosaic GPU":
            try:
                _gpu.mosaic_gpu_debug()
            except _gpu.MissingPart as e:
                out.append(Refusal(backend, None, f"skipped: {e}"))
                continue
            from jax._src.pallas.mosaic_gpu import lowering as mgpu_lowering
            tables[backend] = any(dot in t for t in mgpu_lowering.mosaic_lowering_rules.values())
        try:
            sections = debug_sections(fn, (x, y), platform)
            module = next(v for k, v in sections.items() if k != "kernel jaxpr" and "grid" not in k)
            top = ", ".join(op for op, _ in op_counts(module).most_common(30) if "dot" in op or "matmul" in op)
            outcome = f"lowered ({top})"
        except Exception as e:  # noqa: BLE001 - the refusal is what the lab shows
            outcome = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        out.append(Refusal(backend, tables[backend], outcome))
    return out


# %% What the site shows: every rung lowered with locations
def lowerings() -> list[plat.Lowering]:
    """What the site shows lowered with locations: the ladder's kernel and the refusing matmul, for
    every backend (Mosaic GPU's through `plgpu.kernel`: it takes no `pallas_call`)."""
    x, y = plat.randn(4, SHAPE, SHAPE)
    a, b = plat.randn(5, (256, 128), (128, 128))
    return [
        plat.Lowering("exp_add", exp_add_kernel, exp_add, (x, y), variants={
            "triton": lambda p, q: exp_add(p, q, compiler_params=_triton_params()),
            "mosaic_gpu": exp_add_mosaic_gpu}),
        plat.Lowering("matmul", matmul_kernel, matmul, (a, b), variants={
            "triton": lambda p, q: matmul(p, q, compiler_params=_triton_params()),
            "mosaic_gpu": matmul_mosaic_gpu}),
    ]


def artifacts(out_dir: Path) -> list[Path]:
    """Every rung's text, one file per IR, for the lab page (a skipped rung has none)."""
    return [plat.write(out_dir, r.filename, r.text) for r in ladder() if r.skipped is None]


# %% The lab's run
def main(argv: list[str] | None = None) -> int:
    with _gpu.host():   # a TPU host's CPU: these kernels are built for a GPU
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    p = plat.parser("lowering_ladder", __doc__)
    p.add_argument("--out", type=Path, help="save every rung into this directory")
    p.add_argument("--lines", type=int, default=18, help="lines of each rung to print (default 18)")
    args = p.parse_args(argv)
    print(f"lowering_ladder: o = exp(x) * 2 + y on {SHAPE} float32, blocks {BLOCK}; lowered on "
          f"{jax.default_backend()} for tpu and cuda, no accelerator needed")
    print(f"run {_gpu.where()}: max abs error vs jnp {check():.2e}")
    for r in ladder():
        if r.skipped is not None:
            plat.banner(f"{r.name}: skipped ({r.skipped})")
            continue
        top = ", ".join(f"{op} x{n}" for op, n in op_counts(r.text).most_common(6))
        plat.banner(f"{r.name}: {r.lines} lines" + (f"; top ops: {top}" if top else ""))
        print("\n".join(r.text.splitlines()[: args.lines]))
        if r.lines > args.lines:
            print(f"... ({r.lines - args.lines} more lines)")
    plat.banner("a rung that refuses: the matmul kernel, and dot_general in each rule table")
    for f in refusals():
        rule = {True: "yes", False: "no ", None: "?  "}[f.has_rule]
        print(f"{f.backend:11} rule for dot_general: {rule}  -> {f.outcome}")
    if args.out:
        for path in artifacts(args.out):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
