"""LAB·1.1 · First kernels: add, scale and reduce as Pallas kernels, and the jaxprs they become.

A Pallas kernel is a Python function over refs; `pallas_call` runs it once per grid point on
the blocks its BlockSpecs cut. Each kernel here is checked against jnp, then the lab prints the
two jaxprs that one call produces: the outer jaxpr, where the whole kernel is a single
`pallas_call` equation, and the kernel jaxpr inside it, where refs are read (`<-`) and
written. The reduction walks its row panel inside the kernel and writes its output once: a
grid whose programs revisit one output block and accumulate into it is the TPU idiom (the
grid runs in order there and in interpret mode), but on a GPU the programs run concurrently
and would race. Its sums leave as a `(rows, 1)` column in `(8, 1)` blocks: the lab's first
form, `rowsum_rank1`, wrote a rank-1 output in `(8,)` blocks, which interpret mode runs and a
TPU's lowering refuses (a rank-1 block must be whole or a multiple of 1024). With `interpret=True` the HLO interpreter turns the grid into a loop of
dynamic slices; on a GPU the same call compiles with Triton.

Exercises: jax/_src/pallas/pallas_call.py::pallas_call, jax/_src/pallas/pallas_call.py::_trace_kernel_to_jaxpr, jax/_src/pallas/pallas_call.py::_pallas_call_impl, jax/_src/pallas/core.py::BlockSpec, jax/_src/pallas/core.py::GridMapping, jax/_src/pallas/hlo_interpreter.py::pallas_call_hlo_interpret
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from kernels import _platform as plat

BLOCK = (8, 128)


# %% The kernels: add, scale and a row sum, over refs
def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def scale_kernel(x_ref, o_ref, *, factor: float):
    o_ref[...] = x_ref[...] * factor


def rowsum_kernel(x_ref, o_ref):
    # x_ref is one (8, cols) row panel: walk it 128 columns at a time, summing into an (8, 1)
    # column, then write once.
    def step(j, acc):
        return acc + jnp.sum(x_ref[:, pl.ds(j * BLOCK[1], BLOCK[1])], axis=1, keepdims=True)

    zero = jnp.zeros((x_ref.shape[0], 1), jnp.float32)
    total = jax.lax.fori_loop(0, x_ref.shape[1] // BLOCK[1], step, zero)
    o_ref[...] = total.reshape(o_ref.shape).astype(o_ref.dtype)


# %% The calls: a grid of (8, 128) blocks
def _tile_spec():
    return pl.BlockSpec(BLOCK, lambda i, j: (i, j))


def _tile_grid(shape: tuple[int, ...]) -> tuple[int, int]:
    return shape[0] // BLOCK[0], shape[1] // BLOCK[1]


@jax.jit
def add(x: jax.Array, y: jax.Array) -> jax.Array:
    return pl.pallas_call(
        add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=_tile_grid(x.shape), in_specs=[_tile_spec(), _tile_spec()],
        out_specs=_tile_spec(), interpret=plat.interpret(),
        compiler_params=plat.compiler_params())(x, y)


@functools.partial(jax.jit, static_argnames="factor")
def scale(x: jax.Array, factor: float = 2.0) -> jax.Array:
    return pl.pallas_call(
        functools.partial(scale_kernel, factor=factor),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=_tile_grid(x.shape), in_specs=[_tile_spec()], out_specs=_tile_spec(),
        interpret=plat.interpret(), compiler_params=plat.compiler_params())(x)


@jax.jit
def rowsum(x: jax.Array) -> jax.Array:
    # The sums leave as a (rows, 1) column in (8, 1) blocks: a TPU takes a block whose last two
    # dims are multiples of (8, 128) or the array's own, and a rank-1 block only whole or in
    # multiples of 128 x 8 (see `rowsum_rank1`).
    out = pl.pallas_call(
        rowsum_kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0], 1), x.dtype),
        grid=(x.shape[0] // BLOCK[0],),
        in_specs=[pl.BlockSpec((BLOCK[0], x.shape[1]), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BLOCK[0], 1), lambda i: (i, 0)),
        interpret=plat.interpret(), compiler_params=plat.compiler_params())(x)
    return out[:, 0]


@jax.jit
def rowsum_rank1(x: jax.Array) -> jax.Array:
    """The lab's first row sum: a rank-1 output in (8,) blocks. Interpret mode runs it; a TPU
    refuses it (kept as a lesson: `chip()` records the refusal)."""
    return pl.pallas_call(
        rowsum_kernel, out_shape=jax.ShapeDtypeStruct((x.shape[0],), x.dtype),
        grid=(x.shape[0] // BLOCK[0],),
        in_specs=[pl.BlockSpec((BLOCK[0], x.shape[1]), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((BLOCK[0],), lambda i: (i,)),
        interpret=plat.interpret(), compiler_params=plat.compiler_params())(x)


# %% Checked against jnp, with the two jaxprs of each call
@dataclass(frozen=True)
class KernelRun:
    """One kernel's result checked against jnp, with its two jaxprs."""

    name: str
    error: float
    outer_jaxpr: str
    kernel_jaxpr: str


def _cases(x: jax.Array, y: jax.Array) -> list[tuple[str, Callable, tuple, Callable]]:
    """(name, kernel, its arguments, the jnp reference taking the same arguments)."""
    return [
        ("add", add, (x, y), lambda a, b: a + b),
        ("scale", scale, (x,), lambda a: a * 2.0),
        ("rowsum", rowsum, (x,), lambda a: jnp.sum(a, axis=1)),
    ]


def run(rows: int = 32, cols: int = 256) -> list[KernelRun]:
    x, y = plat.randn(0, (rows, cols), (rows, cols))
    runs = []
    for name, fn, args, expected in _cases(x, y):
        outer, kernel = plat.jaxpr_pair(fn, *args)
        runs.append(KernelRun(name, plat.max_abs_error(fn(*args), expected(*args)), outer, kernel))
    return runs


# %% What the site shows: the kernels lowered, the jaxprs as files
def lowerings() -> list[plat.Lowering]:
    """The three kernels as the site shows them lowered (reader/ir): one small tile grid each."""
    x, y = plat.randn(0, (16, 256), (16, 256))
    return [plat.Lowering("add", add_kernel, add, (x, y)),
            plat.Lowering("scale", scale_kernel, scale, (x,)),
            plat.Lowering("rowsum", rowsum_kernel, rowsum, (x,))]


def artifacts(out_dir: Path) -> list[Path]:
    """The outer and kernel jaxpr of each kernel, as text files for the lab page."""
    paths = []
    for r in run():
        paths.append(plat.write(out_dir, f"first_kernels.{r.name}.outer.jaxpr.txt", r.outer_jaxpr))
        paths.append(plat.write(out_dir, f"first_kernels.{r.name}.kernel.jaxpr.txt", r.kernel_jaxpr))
    return paths


# %% On a TPU: the three kernels checked natively, the rank-1 form's refusal recorded
def chip(runs: int = 20) -> Any:
    from kernels import _record as rec

    checks = []
    for dtype in (jnp.float32, jnp.bfloat16):
        x, y = plat.randn(0, (64, 512), (64, 512), dtype=dtype)
        for name, fn, args, expected in _cases(x, y):
            want = expected(*(a.astype(jnp.float32) for a in args))
            checks.append(rec.check(name, fn(*args), want, dtype))
    x = plat.randn(0, (32, 256))[0]
    refused = rec.refusal("rowsum_rank1: output block (8,) of a (32,) array", lambda: rowsum_rank1(x))
    return rec.Measured(tuple(checks), refusals=(refused,) if refused else ())


# %% The lab's run
def main(argv: list[str] | None = None) -> int:
    p = plat.parser("first_kernels", __doc__)
    p.add_argument("--rows", type=int, default=32, help="rows (a multiple of 8)")
    p.add_argument("--cols", type=int, default=256, help="columns (a multiple of 128)")
    args = p.parse_args(argv)
    if args.rows % BLOCK[0] or args.cols % BLOCK[1]:
        p.error(f"--rows must be a multiple of {BLOCK[0]} and --cols of {BLOCK[1]}")
    print(f"first_kernels: x, y of shape ({args.rows}, {args.cols}), blocks {BLOCK}; {plat.where()}")
    for r in run(args.rows, args.cols):
        plat.banner(f"{r.name}: max abs error vs jnp {r.error:.2e}")
        print("outer jaxpr (the kernel is one pallas_call equation):")
        print(r.outer_jaxpr)
        print("kernel jaxpr (refs in, `<-` reads, `[...] <-` writes):")
        print(r.kernel_jaxpr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
