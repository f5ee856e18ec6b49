"""EXTRA·A · A Mosaic GPU matmul: `plgpu.kernel`, a TMA pipeline, and `wgmma` on warpgroups.

The track's own lab, not one of the outline's (hence `EXTRA·A`, not a `LAB·` number): the
Mosaic GPU guides teach kernels written this way, and no outline lab writes one.

A Hopper matmul written the way the Mosaic GPU guides write one, not a `pallas_call` ported to
the GPU. `plgpu.kernel` launches a grid of CUDA blocks over output tiles (`grid_names` "m", "n",
read with `lax.axis_index`); its operands stay in global memory (GMEM), and
`plgpu.emit_pipeline` walks the K dimension, copying each (tile_m, tile_k) block of A and
(tile_k, tile_n) block of B into shared memory (SMEM) by TMA, `max_concurrent_steps` blocks in
flight, each guarded by an mbarrier that the copy completes. The body issues one `plgpu.wgmma`
per step: an asynchronous warpgroup matrix multiply from SMEM into an accumulator that lives in
the registers of the warpgroup's 128 threads (`plgpu.ACC`); `plgpu.wgmma_wait(1)` keeps one in
flight. The SMEM operands are tiled and swizzled (`TilingTransform`, `SwizzleTransform`) the way
wgmma reads them without bank conflicts. The epilogue casts the accumulator into an SMEM tile
and stores it with one TMA copy (`copy_smem_to_gmem`).

`matmul_ws` is the warp-specialized form the pinned Hopper kernel uses: three warpgroups per
block (`num_threads=3`, `thread_name="wg"`), one issuing the TMA copies and two computing, each
on its half of a wider N tile (`emit_pipeline_warp_specialized`).

Both are lowered here for an sm90 GPU (an abstract H100: no GPU needed), and the lab reads the
Mosaic GPU module back: the `wgmma.mma_async` instructions per pipeline step, (tile_m / 64) x
(tile_k / 16) of shape m64nNk16 for 16-bit inputs, and the TMA copies (`cp.async.bulk.tensor`).
It prices the tiling in SMEM (the pipeline's buffers, the output tile and 8 bytes per barrier)
and shows the budget refusing a tiling that does not fit, with the compiler's own count. Then both run: natively on a Hopper GPU, in the GPU interpreter
(`plgpu.InterpretGPUParams`, which models SMEM, TMA, barriers and wgmma on the CPU) anywhere
else, a TPU host's CPU included, against a jnp matmul. Without absl-py (Mosaic GPU imports it at
jax 0.10.2) the lab says so in one line and exits 1; at a jax whose `plgpu.kernel` takes no
`debug=` (0.10.2) it skips the module's anatomy and the budget, saying why, and runs the kernels.

Exercises: jax/_src/pallas/mosaic_gpu/core.py::kernel, jax/_src/pallas/mosaic_gpu/core.py::WGMMAAccumulatorRef, jax/_src/pallas/mosaic_gpu/pipeline.py::emit_pipeline, jax/_src/pallas/mosaic_gpu/pipeline.py::emit_pipeline_warp_specialized, jax/_src/pallas/mosaic_gpu/primitives.py::wgmma, jax/_src/pallas/mosaic_gpu/primitives.py::copy_smem_to_gmem, jax/_src/pallas/mosaic_gpu/primitives.py::copy_gmem_to_smem, jax/_src/pallas/mosaic_gpu/pallas_call_registration.py::mpmd_map_mgpu_lowering_rule, jax/_src/pallas/mpmd.py::_mpmd_map_lowering, jax/_src/pallas/mosaic_gpu/interpret/interpret_pallas_call.py::interpret_pallas_call, jax/experimental/pallas/ops/gpu/hopper_matmul_mgpu.py::kernel
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from kernels import _gpu
from kernels import _platform as plat
from kernels.lowering_ladder import debug_sections

try:
    from jax.experimental.pallas import mosaic_gpu as plgpu
except ModuleNotFoundError as e:   # jax 0.10.2's Mosaic GPU imports absl-py, which jax does not require
    MISSING: _gpu.MissingPart | None = _gpu.missing_module(e, "Mosaic GPU (jax.experimental.pallas.mosaic_gpu)")
else:
    MISSING = None

SHAPE = (256, 512, 256)   # (m, k, n)
DTYPE = jnp.float16


# %% The tiling: block shapes, and the SMEM layout wgmma reads
@dataclass(frozen=True)
class Config:
    tile_m: int = 128
    tile_n: int = 128
    tile_k: int = 64
    steps: int = 2
    """`max_concurrent_steps`: pipeline slots, each holding one block of A and one of B."""

    def describe(self) -> str:
        return f"tiles {self.tile_m}x{self.tile_n}x{self.tile_k}, {self.steps} pipeline slots"


def smem_layout(cols: int, dtype: Any = DTYPE) -> tuple[Any, ...]:
    """Tile rows of 8 by one swizzle width, and the swizzle itself (128 B for 64 halves)."""
    swizzle = plgpu.find_swizzle(cols * jnp.dtype(dtype).itemsize * 8)
    tiling = plgpu.TilingTransform((8, swizzle // jnp.dtype(dtype).itemsize))  # type: ignore[abstract]
    return tiling, plgpu.SwizzleTransform(swizzle)  # type: ignore[abstract]


# %% The kernel: one warpgroup, a TMA pipeline over K, wgmma into registers
def matmul(a: jax.Array, b: jax.Array, config: Config = Config(), *, interpret: Any = None,
           debug: bool = False) -> jax.Array:
    """A @ B by a grid of (m / tile_m, n / tile_n) blocks, one warpgroup each."""
    (m, k), n = a.shape, b.shape[1]
    tm, tn, tk = config.tile_m, config.tile_n, config.tile_k

    def body(a_gmem, b_gmem, o_gmem, o_smem):
        mi, ni = lax.axis_index("m"), lax.axis_index("n")

        def with_accumulator(acc):
            def step(_, a_smem, b_smem):          # the blocks of step k, in SMEM
                plgpu.wgmma(acc, a_smem, b_smem)  # async: registers += A_k @ B_k
                plgpu.wgmma_wait(1)                # at most one still in flight

            plgpu.emit_pipeline(
                step, grid=(k // tk,), max_concurrent_steps=config.steps,
                in_specs=[plgpu.BlockSpec((tm, tk), lambda s: (mi, s), transforms=smem_layout(tk)),
                          plgpu.BlockSpec((tk, tn), lambda s: (s, ni), transforms=smem_layout(tn))],
            )(a_gmem, b_gmem)
            o_smem[...] = acc[...].astype(o_smem.dtype)   # waits for the last wgmma

        # The accumulator lives in registers: a scope of its own (the GPU interpreter does
        # not take register and SMEM allocations in one scope).
        pl.run_scoped(with_accumulator, plgpu.ACC((tm, tn), jnp.float32))
        plgpu.commit_smem()                        # make the SMEM writes visible to TMA
        plgpu.copy_smem_to_gmem(o_smem, o_gmem.at[pl.ds(mi * tm, tm), pl.ds(ni * tn, tn)])
        plgpu.wait_smem_to_gmem(0)

    return plgpu.kernel(
        body, out_type=jax.ShapeDtypeStruct((m, n), a.dtype), grid=(m // tm, n // tn),
        grid_names=("m", "n"), interpret=interpret, **_gpu.printing(debug),
        scratch_types=dict(o_smem=plgpu.SMEM((tm, tn), a.dtype, transforms=smem_layout(tn))))(a, b)


# %% Warp specialization: a memory warpgroup feeding two compute warpgroups
def matmul_ws(a: jax.Array, b: jax.Array, config: Config = Config(tile_m=64), *, interpret: Any = None,
              debug: bool = False) -> jax.Array:
    """A @ B with three warpgroups a block: warpgroup 2 issues the TMA copies of a pipeline over
    K, warpgroups 0 and 1 each multiply into their own half of a (tile_m, 2 tile_n) block."""
    (m, k), n = a.shape, b.shape[1]
    tm, tn, tk = config.tile_m, config.tile_n, config.tile_k
    block_n = 2 * tn

    def body(a_gmem, b_gmem, o_gmem):
        mi, ni = lax.axis_index("m"), lax.axis_index("n")

        def pipeline(step, compute_context):
            return plgpu.emit_pipeline_warp_specialized(
                step, grid=(k // tk,), memory_registers=40, max_concurrent_steps=config.steps,
                in_specs=[plgpu.BlockSpec((tm, tk), lambda s: (mi, s), transforms=smem_layout(tk)),
                          plgpu.BlockSpec((tk, block_n), lambda s: (s, ni), transforms=smem_layout(tk))],
                wg_axis="wg", num_compute_wgs=2, compute_context=compute_context)

        def ignore(*_: Any, **__: Any) -> None:
            return None

        @functools.partial(pl.run_scoped, buffers=pipeline(ignore, ignore).get_allocations(a_gmem, b_gmem),
                           o_smem=plgpu.SMEM((2, tm, tn), a.dtype, transforms=smem_layout(tn)),
                           collective_axes="wg")   # one allocation shared by the three warpgroups
        def _(buffers, o_smem):
            wg = lax.axis_index("wg")

            def compute_context(run_pipeline):
                @functools.partial(pl.run_scoped, acc=plgpu.ACC((tm, tn), jnp.float32))
                def _(acc):
                    run_pipeline(acc)
                    o_smem[wg] = acc[...].astype(o_smem.dtype)
                    plgpu.commit_smem()
                    plgpu.copy_smem_to_gmem(o_smem.at[wg], o_gmem.at[pl.ds(mi * tm, tm),
                                                                      pl.ds(ni * block_n + wg * tn, tn)])

            def step(_, a_smem, b_smem, acc):
                plgpu.wgmma(acc, a_smem, b_smem.at[:, pl.ds(wg * tn, tn)])
                plgpu.wgmma_wait(0)
                return acc

            pipeline(step, compute_context)(a_gmem, b_gmem, allocations=buffers)
        plgpu.wait_smem_to_gmem(0)

    return plgpu.kernel(
        body, out_type=jax.ShapeDtypeStruct((m, n), a.dtype), grid=(m // tm, n // block_n),
        grid_names=("m", "n"), num_threads=3, thread_name="wg", interpret=interpret,
        **_gpu.printing(debug))(a, b)


# %% Lowered for sm90 on this host: what the module holds
def mosaic_module(fn: Callable[..., jax.Array], a: Any, b: Any) -> str:
    """The Mosaic GPU module `fn` lowers to for an H100 (`debug=True`'s print), on any host;
    `_gpu.MissingPart` at a jax whose `plgpu.kernel` cannot print it."""
    _gpu.mosaic_gpu_debug()
    with plat.TARGET("mosaic_gpu"):
        return debug_sections(functools.partial(fn, debug=True), (a, b), "cuda")["Mosaic GPU module"]


@dataclass(frozen=True)
class Anatomy:
    wgmma: tuple[str, ...]
    """Each `wgmma.mma_async` instruction's shape, e.g. `m64n128k16.f32.f16.f16`, in order."""
    tma_loads: int
    """TMA copies from GMEM into SMEM written in the module (the pipeline's prologue and its loop)."""
    tma_stores: int


def anatomy(module: str) -> Anatomy:
    """The instructions the Mosaic GPU module holds (the PTX of its inline assembly, its NVVM ops)."""
    return Anatomy(
        wgmma=tuple(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(\S+?) ", module)),
        tma_loads=len(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.shared::cta\.global", module)),
        tma_stores=len(re.findall(r"nvvm\.cp\.async\.bulk\.tensor\.global\.shared", module)))


def wgmma_per_step(config: Config, dtype: Any = DTYPE) -> int:
    """A warpgroup's wgmma is m64 and k = 32 bytes of input: (tile_m / 64) x (tile_k / k)."""
    return (config.tile_m // 64) * (config.tile_k // (32 // jnp.dtype(dtype).itemsize))


# %% The SMEM budget, and a tiling it refuses
MAX_SMEM = re.compile(r"smem_bytes=(\d+) > max_smem_bytes=(\d+)")


def smem_bytes(config: Config, dtype: Any = DTYPE) -> int:
    """`matmul`'s SMEM: each pipeline slot's A and B blocks, the output tile, an 8-byte mbarrier a slot."""
    size = jnp.dtype(dtype).itemsize
    slot = (config.tile_m * config.tile_k + config.tile_k * config.tile_n) * size
    return config.steps * (slot + 8) + config.tile_m * config.tile_n * size


@dataclass(frozen=True)
class Refusal:
    config: Config
    modelled: int
    compiler: int
    budget: int


def refusal(config: Config) -> Refusal:
    """Lower `matmul` with a tiling too big for SMEM and read the compiler's count from its error."""
    a, b = _shapes(SHAPE)
    try:
        mosaic_module(functools.partial(matmul, config=config), a, b)
    except ValueError as e:
        if m := MAX_SMEM.search(str(e)):
            return Refusal(config, smem_bytes(config), int(m.group(1)), int(m.group(2)))
        raise
    raise ValueError(f"{config.describe()} fits in SMEM: no refusal to show")


def _shapes(shape: tuple[int, int, int]) -> tuple[jax.ShapeDtypeStruct, jax.ShapeDtypeStruct]:
    m, k, n = shape
    return jax.ShapeDtypeStruct((m, k), DTYPE), jax.ShapeDtypeStruct((k, n), DTYPE)


# %% Run it: natively on a Hopper GPU, in the GPU interpreter anywhere else
def interpret_params(threads: int = 1) -> Any:
    """`interpret=` for these kernels: None (compiled) on a GPU, the GPU interpreter elsewhere,
    with as many simulated threads (warpgroups) as the kernel has."""
    return None if _gpu.native() else _gpu.interpret_gpu_params(threads)


def where() -> str:
    if _gpu.native():
        return f"natively on {jax.devices()[0].device_kind}"
    return "in the GPU interpreter " + _gpu.where().removeprefix("interpret mode ")


@dataclass(frozen=True)
class Check:
    kernel: str
    error: float
    tolerance: float


def check(shape: tuple[int, int, int] = SHAPE) -> list[Check]:
    with _gpu.host():
        return _check(shape)


def _check(shape: tuple[int, int, int]) -> list[Check]:
    m, k, n = shape
    a, b = plat.randn(7, (m, k), (k, n), dtype=DTYPE)
    ref = jnp.dot(a, b, preferred_element_type=jnp.float32).astype(DTYPE)
    # fp16 rounding of the output: a different summation order may land one ulp away.
    tolerance = 2.0 * float(jnp.finfo(DTYPE).eps) * float(jnp.abs(ref.astype(jnp.float32)).max())
    runs = {"matmul": jax.jit(functools.partial(matmul, interpret=interpret_params(1))),
            "matmul_ws": jax.jit(functools.partial(matmul_ws, interpret=interpret_params(3)))}
    return [Check(name, plat.max_abs_error(fn(a, b), ref), tolerance) for name, fn in runs.items()]


# %% What the site shows: both kernels lowered
def lowerings() -> list[plat.Lowering]:
    a, b = _shapes(SHAPE)
    return [plat.Lowering("matmul", matmul, matmul, (a, b), backends=("jaxpr", "mosaic_gpu")),
            plat.Lowering("matmul_ws", matmul_ws, matmul_ws, (a, b), backends=("jaxpr", "mosaic_gpu"))]


def artifacts(out_dir: Path) -> list[Path]:
    """Each kernel's Mosaic GPU module, for the lab page."""
    a, b = _shapes(SHAPE)
    return [plat.write(out_dir, f"mosaic_gpu_matmul.{fn.__name__}.mlir", mosaic_module(fn, a, b))
            for fn in (matmul, matmul_ws)]


# %% The lab's run
def _print_lowered(a: Any, b: Any) -> None:
    plat.banner("lowered for sm90: what each kernel's Mosaic GPU module holds")
    for fn, config in ((matmul, Config()), (matmul_ws, Config(tile_m=64))):
        anat = anatomy(mosaic_module(fn, a, b))
        shapes = ", ".join(sorted(set(anat.wgmma)))
        print(f"{fn.__name__:10} {config.describe()}: {len(anat.wgmma)} wgmma.mma_async per step "
              f"({shapes}; (tile_m/64) x (tile_k/16) = {wgmma_per_step(config)}), {anat.tma_loads} TMA loads "
              f"and {anat.tma_stores} TMA store in the module")
    plat.banner("shared memory: the tiling's price against the budget")
    print(f"matmul     {Config().describe()}: {smem_bytes(Config())} bytes of SMEM (modelled)")
    r = refusal(Config(tile_n=256, steps=4))
    print(f"matmul     {r.config.describe()}: refused, {r.compiler} bytes > {r.budget} available "
          f"(modelled {r.modelled})")


def main(argv: list[str] | None = None) -> int:
    with _gpu.host():   # a TPU host's CPU: these kernels are built for a GPU
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    p = plat.parser("mosaic_gpu_matmul", __doc__)
    p.add_argument("--out", type=Path, help="save each kernel's Mosaic GPU module into this directory")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if MISSING is not None:
        print(f"mosaic_gpu_matmul: {MISSING}")
        return 1
    m, k, n = SHAPE
    a, b = _shapes(SHAPE)
    print(f"mosaic_gpu_matmul: ({m}, {k}) @ ({k}, {n}) float16, accumulated in float32; "
          f"lowered for an H100 (sm90) on {jax.default_backend()}, no GPU needed")
    try:
        _gpu.mosaic_gpu_debug()
    except _gpu.MissingPart as e:
        plat.banner(f"lowered for sm90: skipped ({e})")
        if args.out:
            print("--out: nothing written (the modules are what was skipped)")
        args.out = None
    else:
        _print_lowered(a, b)
    plat.banner(f"run {where()}")
    for c in check():
        print(f"{c.kernel:10} max abs error vs jnp {c.error:.2e} (tolerance {c.tolerance:.2e}: "
              f"2 float16 eps x the largest output)")
    if args.out:
        for path in artifacts(args.out):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
