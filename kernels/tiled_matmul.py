"""LAB·1.2 · Tiled matmul: one kernel over a grid of output tiles, two block shapes, one roofline.

The grid `(M/bm, N/bn, K/bk)` gives each output tile `bm x bn` a run of K steps: step
`(i, j, k)` gets x's block `(i, k)` and y's block `(k, j)`, and adds their product into an
f32 accumulator in VMEM scratch. The K axis is last and "arbitrary", so its steps run in
order on one core and the accumulator carries the sum; the output block is written once, at
the last step. This is how a TPU wants a matmul. The lab's first form, `panel_matmul`, hands
each program whole `bm x K` and `K x bn` panels and walks K inside the kernel, as a GPU runs
it; at `bk = 64` a TPU refuses it, since x is sliced along its lanes at `k * 64` and Mosaic
must prove a lane offset a multiple of 128 (interpret mode proves nothing of the kind). The
block shape decides how often each panel is read from HBM: x is read N/bn times and y M/bm
times, so the arithmetic intensity is 2 / (s (1/bm + 1/bn + 1/K)) FLOP per byte for s-byte
elements. The lab checks both forms against jnp, prints for two block shapes and each chip the
roofline estimate min(peak, intensity x bandwidth), and draws it, with the points measured on
a TPU v5e where `kernels/runs/` has them.

Exercises: jax/_src/pallas/core.py::BlockSpec, jax/_src/pallas/core.py::GridSpec, jax/_src/pallas/pallas_call.py::pallas_call, jax/_src/pallas/primitives.py::program_id
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from kernels import _platform as plat
from kernels._svg import PALETTE, Svg


# %% The chips: peak FLOP/s and HBM bandwidth from their spec sheets
@dataclass(frozen=True)
class Chip:
    """Dense bf16 peak and HBM bandwidth of one chip, from its public spec sheet."""

    name: str
    peak_flops: float
    hbm_bytes_per_s: float
    source: str

    @property
    def ridge(self) -> float:
        """The intensity (FLOP/byte) above which the chip is compute-bound."""
        return self.peak_flops / self.hbm_bytes_per_s


CHIPS = (
    # Google Cloud TPU v5e page, "System architecture": 197 TFLOPs bf16 and 819 GB/s HBM2 per
    # chip (https://cloud.google.com/tpu/docs/v5e); jax 0.12.0.1 records the same numbers
    # (bf16_ops_per_second=1.97e14, mem_bw_bytes_per_second=8.20e11) in `TpuInfo`, which moved
    # from the pinned jax/_src/pallas/mosaic/tpu_info.py (now a re-export) to jax/_src/tpu_info.py.
    Chip("TPU v5e", 197e12, 819e9, "https://cloud.google.com/tpu/docs/v5e"),
    # NVIDIA H100 SXM datasheet: BF16 Tensor Core 1,979 TFLOPS *with sparsity*, so 989 dense;
    # HBM3 3.35 TB/s (https://www.nvidia.com/en-us/data-center/h100/).
    Chip("H100 SXM", 989e12, 3.35e12, "https://www.nvidia.com/en-us/data-center/h100/"),
    # NVIDIA H200 SXM datasheet: BF16 Tensor Core 1,979 TFLOPS with sparsity (989 dense);
    # HBM3e 4.8 TB/s (https://www.nvidia.com/en-us/data-center/h200/).
    Chip("H200 SXM", 989e12, 4.8e12, "https://www.nvidia.com/en-us/data-center/h200/"),
)

BLOCK_SHAPES = ((128, 128, 128), (512, 512, 512))
"""`(bm, bn, bk)`: the two block shapes the lab compares."""

PANEL_BLOCK = (128, 128, 64)
"""The block shape of the lab's first form (`panel_matmul`), the one a TPU refuses."""

ESTIMATE_SIZE = (8192, 8192, 8192, 2)
"""`(M, N, K, bytes per element)` of the roofline estimate: a bf16 matmul worth a chip."""


# %% The kernel: one output tile per program, K on the grid, an f32 accumulator in VMEM
def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    # Grid step (i, j, k): x_ref is block (i, k), y_ref block (k, j). The k steps of one output
    # tile run in order on one core ("arbitrary"), so acc_ref, VMEM scratch, carries the sum.
    @pl.when(pl.program_id(2) == 0)
    def _zero():
        acc_ref[...] = jnp.zeros(acc_ref.shape, jnp.float32)

    acc_ref[...] += dot(x_ref[...], y_ref[...])

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _write():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def dot(a, b):
    """a @ b in f32: f32 operands at full precision (a TPU's default rounds them through bf16)."""
    precision = jax.lax.Precision.HIGHEST if a.dtype == jnp.float32 else None
    return jnp.dot(a, b, precision=precision, preferred_element_type=jnp.float32)


def _divides(x: jax.Array, y: jax.Array, block: tuple[int, int, int]) -> tuple[int, int, int]:
    (m, k), (_, n) = x.shape, y.shape
    bm, bn, bk = block
    if m % bm or n % bn or k % bk:
        raise ValueError(f"block {block} does not divide the shapes {x.shape} @ {y.shape}")
    return m, n, k


def vmem_bytes(block: tuple[int, int, int], itemsize: int) -> int:
    """VMEM the pipeline holds: two buffers of each block, and the f32 accumulator."""
    bm, bn, bk = block
    return 2 * itemsize * (bm * bk + bk * bn + bm * bn) + 4 * bm * bn


@functools.partial(jax.jit, static_argnames="block")
def matmul(x: jax.Array, y: jax.Array, block: tuple[int, int, int] = BLOCK_SHAPES[0]) -> jax.Array:
    m, n, k = _divides(x, y, block)
    bm, bn, bk = block
    # Scoped VMEM is 16 MiB unless asked for more; a v5e core has 128 MiB.
    limit = min(max(16 << 20, int(1.5 * vmem_bytes(block, x.dtype.itemsize))), 100 << 20)
    return pl.pallas_call(
        matmul_kernel, out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "arbitrary"),
                                             vmem_limit_bytes=limit),
        interpret=not plat.on_tpu())(x, y)


# %% The first form: K walked inside the kernel (what a GPU runs; a TPU refuses a bk of 64)
def panel_kernel(x_ref, y_ref, o_ref, *, bk: int):
    # x_ref is this program's (bm, K) panel, y_ref its (K, bn) panel: walk K in bk steps. On a
    # TPU, x's lane dimension is sliced at k * bk: Mosaic must prove that a multiple of 128.
    def step(k, acc):
        x = x_ref[:, pl.ds(k * bk, bk)]
        y = y_ref[pl.ds(k * bk, bk), :]
        return acc + dot(x, y)

    acc = jnp.zeros(o_ref.shape, jnp.float32)
    acc = jax.lax.fori_loop(0, x_ref.shape[1] // bk, step, acc)
    o_ref[...] = acc.astype(o_ref.dtype)


@functools.partial(jax.jit, static_argnames="block")
def panel_matmul(x: jax.Array, y: jax.Array, block: tuple[int, int, int] = PANEL_BLOCK) -> jax.Array:
    m, n, k = _divides(x, y, block)
    bm, bn, bk = block
    return pl.pallas_call(
        functools.partial(panel_kernel, bk=bk),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, bn), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=plat.interpret(), compiler_params=plat.compiler_params())(x, y)


# %% The roofline of each block shape
@dataclass(frozen=True)
class Estimate:
    """The roofline of one block shape on one chip for an `M x K @ K x N` matmul."""

    block: tuple[int, int, int]
    chip: Chip
    flops: float
    hbm_bytes: float

    @property
    def intensity(self) -> float:
        return self.flops / self.hbm_bytes

    @property
    def attainable(self) -> float:
        return min(self.chip.peak_flops, self.intensity * self.chip.hbm_bytes_per_s)

    @property
    def bound(self) -> str:
        return "compute" if self.intensity >= self.chip.ridge else "memory"

    @property
    def seconds(self) -> float:
        return self.flops / self.attainable


def hbm_bytes(m: int, n: int, k: int, itemsize: int, block: tuple[int, int, int]) -> float:
    """Bytes between HBM and the core: x read N/bn times, y read M/bm times, out written once."""
    bm, bn, _ = block
    return itemsize * (m * k * (n / bn) + k * n * (m / bm) + m * n)


def estimate(block: tuple[int, int, int], chip: Chip,
             size: tuple[int, int, int, int] = ESTIMATE_SIZE) -> Estimate:
    m, n, k, itemsize = size
    return Estimate(block, chip, 2.0 * m * n * k, hbm_bytes(m, n, k, itemsize, block))


# %% Checked against jnp, and the roofline drawn
def check(size: int = 512) -> dict[str, float]:
    """Max abs error against jnp of each form at each block shape that divides `size` (float32,
    size^3; the first form only where it runs: anywhere but a TPU)."""
    x, y = plat.randn(1, (size, size), (size, size))
    expected = jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST)
    out = {f"matmul {b}": plat.max_abs_error(matmul(x, y, b), expected)
           for b in BLOCK_SHAPES if not size % max(b)}
    if not plat.on_tpu():
        out[f"panel_matmul {PANEL_BLOCK}"] = plat.max_abs_error(panel_matmul(x, y, PANEL_BLOCK), expected)
    return out


def roofline_svg(blocks: tuple[tuple[int, int, int], ...] = BLOCK_SHAPES,
                 measured: Sequence[Mapping[str, Any]] = ()) -> str:
    """Log-log roofline of every chip, with each block shape's intensity marked; `measured`
    points (a chip record's `extra["points"]`: intensity, TFLOP/s) drawn as squares."""
    svg = Svg(640, 420, "Roofline: tiled matmul block shapes on TPU v5e, H100, H200")
    left, top, w, h = 70, 30, 520, 320
    x_lo, x_hi, y_lo, y_hi = 0.0, 4.0, 0.0, 3.3  # log10 FLOP/byte; log10 TFLOP/s

    def px(ai: float, tflops: float) -> tuple[float, float]:
        return (left + (math.log10(ai) - x_lo) / (x_hi - x_lo) * w,
                top + h - (math.log10(tflops) - y_lo) / (y_hi - y_lo) * h)

    _axes(svg, left, top, w, h, x_hi, y_hi)
    for c, chip in enumerate(CHIPS):
        ais = [10 ** (x_lo + i * (x_hi - x_lo) / 200) for i in range(201)]
        pts = [px(a, min(chip.peak_flops, a * chip.hbm_bytes_per_s) / 1e12) for a in ais]
        svg.polyline(pts, PALETTE[c])
        svg.line(left + 12, top + 14 + 16 * c, left + 36, top + 14 + 16 * c, PALETTE[c], 2)
        svg.text(left + 42, top + 18 + 16 * c, f"{chip.name}: ridge {chip.ridge:.0f} FLOP/B", 11)
    for b, block in enumerate(blocks):
        ai = estimate(block, CHIPS[0]).intensity
        (x0, _), (_, y1) = px(ai, 10 ** y_lo), px(ai, 10 ** y_hi)
        svg.line(x0, top + h, x0, y1, "#777", 1, "4 3")
        svg.text(x0 + 4, top + h - 10 - 14 * b, f"block {block[0]}x{block[1]}x{block[2]}: {ai:.0f} FLOP/B", 10)
        for c, chip in enumerate(CHIPS):
            e = estimate(block, chip)
            svg.circle(*px(ai, e.attainable / 1e12), 4, PALETTE[c],
                       f"{chip.name}, block {block}: {e.attainable / 1e12:.0f} TFLOP/s ({e.bound}-bound)")
    for p in measured:
        x, y = px(p["intensity"], max(p["tflops"], 1.0))
        svg.rect(x - 3.5, y - 3.5, 7, 7, "#111", f"measured on TPU v5e, {p['size']}^3 bf16, block "
                 f"{tuple(p['block'])}: {p['tflops']:.1f} TFLOP/s (estimate {p['estimate_tflops']:.0f})", "#111")
    if measured:
        svg.rect(left + 12, top + 14 + 16 * len(CHIPS) - 5, 7, 7, "#111", "", "#111")
        svg.text(left + 42, top + 18 + 16 * len(CHIPS), "measured on a TPU v5e (bf16, kernels/runs/)", 11)
    return svg.document()


def _axes(svg: Svg, left: int, top: int, w: int, h: int, x_hi: float, y_hi: float) -> None:
    svg.line(left, top + h, left + w, top + h)
    svg.line(left, top, left, top + h)
    for d in range(int(x_hi) + 1):
        x = left + d / x_hi * w
        svg.line(x, top + h, x, top + h + 5)
        svg.text(x, top + h + 18, f"{10 ** d:g}", 10, "middle")
    for d in range(int(y_hi) + 1):
        y = top + h - d / y_hi * h
        svg.line(left - 5, y, left, y)
        svg.text(left - 8, y + 4, f"{10 ** d:g}", 10, "end")
    svg.text(left + w / 2, top + h + 36, "arithmetic intensity (FLOP / HBM byte), log scale", 12, "middle")
    svg.text(18, top + h / 2, "attainable TFLOP/s (bf16 dense), log scale", 12, "middle", rotate=-90)


# %% What the site shows: the kernel lowered, the roofline
def lowerings() -> list[plat.Lowering]:
    """The kernels lowered for the site (reader/ir) on a 256^3 matmul: the TPU form at the first
    block shape, and the first form (K inside) as a GPU runs it."""
    x, y = plat.randn(1, (256, 256), (256, 256))
    return [plat.Lowering("matmul", matmul_kernel, lambda a, b: matmul(a, b, BLOCK_SHAPES[0]), (x, y),
                          ("jaxpr", "mosaic_tpu")),
            plat.Lowering("panel_matmul", panel_kernel, lambda a, b: panel_matmul(a, b, PANEL_BLOCK), (x, y),
                          ("jaxpr", "triton"))]


def artifacts(out_dir: Path) -> list[Path]:
    """The roofline SVG for the lab page, with the points measured on a chip where a record has them."""
    from kernels import _record as rec

    measured = rec.committed("tiled_matmul")
    points = measured["extra"].get("points", []) if measured else []
    return [plat.write(out_dir, "tiled_matmul.roofline.svg", roofline_svg(measured=points))]


# %% On a TPU: each form checked, the block shapes timed against XLA's matmul
SWEEP = ((128, 128, 128), (256, 256, 256), (512, 512, 512), (1024, 1024, 512), (1024, 1024, 1024),
         (2048, 1024, 512), (1024, 2048, 512), (2048, 2048, 512))
"""`(bm, bn, bk)` timed at each of `SIZES`, bf16."""
SIZES = (4096, 8192)


def chip(runs: int = 20) -> Any:
    """Native checks (f32, bf16), the first form's refusal, and every `SWEEP` block timed beside
    XLA's matmul at `SIZES`: TFLOP/s against the roofline estimate and against XLA."""
    from kernels import _record as rec

    checks = []
    for dtype in (jnp.float32, jnp.bfloat16):
        x, y = plat.randn(1, (1024, 1024), (1024, 1024), dtype=dtype)
        want = jnp.dot(x.astype(jnp.float32), y.astype(jnp.float32), precision=jax.lax.Precision.HIGHEST)
        for block in BLOCK_SHAPES:
            checks.append(rec.check(f"matmul {block}", matmul(x, y, block), want, dtype))
        checks.append(rec.check("panel_matmul (128, 128, 128)", panel_matmul(x, y, (128, 128, 128)), want, dtype))
    x, y = plat.randn(1, (256, 256), (256, 256))
    refused = rec.refusal(f"panel_matmul {PANEL_BLOCK}: x sliced at k * 64 along its lanes",
                          lambda: panel_matmul(x, y, PANEL_BLOCK))
    timings, ratios, points = [], [], []
    for size in SIZES:
        x, y = plat.randn(2, (size, size), (size, size), dtype=jnp.bfloat16)
        flops = 2.0 * size ** 3
        xla = rec.timed(f"XLA jnp.dot {size}^3 bf16", jax.jit(jnp.dot), x, y, runs=runs, flops=flops, peer=True)
        mine = {}
        for block in SWEEP:
            t = rec.timed(f"matmul {size}^3 bf16, block {block}", functools.partial(matmul, block=block),
                          x, y, runs=runs, flops=flops)
            e = estimate(block, CHIPS[0], (size, size, size, 2))
            points.append({"size": size, "block": list(block), "tflops": round(t.tflops, 2),
                           "intensity": round(e.intensity, 1), "estimate_tflops": round(e.attainable / 1e12, 1)})
            mine[block] = (t, e)
        block, (best, e) = min(mine.items(), key=lambda item: item[1][0].median_ms)
        timings += [xla, *(t for t, _ in mine.values())]
        ratios += [rec.ratio(f"{size}^3 bf16: best block {block}, throughput over XLA's", best, xla, 0.95),
                   rec.Ratio(f"{size}^3 bf16: best block {block}, throughput over its roofline estimate",
                             best.tflops * 1e12 / e.attainable)]
    return rec.Measured(tuple(checks), tuple(timings), tuple(ratios), (refused,) if refused else (),
                        extra={"points": points})


# %% The lab's run
def report() -> str:
    m, n, k, itemsize = ESTIMATE_SIZE
    lines = [f"roofline estimate for a {m}x{k} @ {k}x{n} matmul, {itemsize}-byte elements:",
             f"{'block (bm,bn,bk)':18} {'HBM bytes':>10} {'FLOP/B':>7}  "
             + "  ".join(f"{c.name + ' (ridge ' + format(c.ridge, '.0f') + ')':>26}" for c in CHIPS)]
    for block in BLOCK_SHAPES:
        e0 = estimate(block, CHIPS[0])
        cells = []
        for chip in CHIPS:
            e = estimate(block, chip)
            cells.append(f"{e.attainable / 1e12:6.0f} TFLOP/s {e.bound[:3]} {e.seconds * 1e3:5.1f}ms")
        lines.append(f"{str(block):18} {e0.hbm_bytes / 1e9:8.2f}GB {e0.intensity:7.0f}  "
                     + "  ".join(f"{c:>26}" for c in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = plat.parser("tiled_matmul", __doc__)
    p.add_argument("--size", type=int, default=512, help="M = N = K of the checked run (multiple of 512)")
    p.add_argument("--svg", type=Path, help="also write the roofline SVG here")
    args = p.parse_args(argv)
    if args.size % 512:
        p.error("--size must be a multiple of 512")
    print(f"tiled_matmul: {args.size}^3 float32, {plat.where()}")
    for form, err in check(args.size).items():
        print(f"  {form}: max abs error vs jnp {err:.2e}")
    print()
    print(report())
    if args.svg:
        args.svg.write_text(roofline_svg())
        print(f"\nwrote {args.svg}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
