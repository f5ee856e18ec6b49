"""LAB·2.2 · Finding the spill: a block size that drives register pressure past the limit.

A Triton matmul keeps its `bm x bn` f32 accumulator in registers for the whole K loop, spread
over the `32 x num_warps` threads of the program: `bm * bn / (32 * num_warps)` registers per
thread before a single operand is loaded. A thread has at most 255, so at 4 warps a 256 x 256
accumulator (512 registers) cannot fit and ptxas spills to local memory. On a CPU the lab
lowers the kernel to Triton IR for three block shapes, reads the loop-carried accumulator
and the loaded tiles off the `scf.for` and `tt.load` types, and prints the register estimate
it implies; the compile step is skipped with the reason. On a GPU it compiles each shape
(XLA dumps the PTX with `--xla_dump_to`), runs `ptxas -v` on it and prints the registers and
the `bytes spill stores` / `bytes spill loads` ptxas reports: the spill, found in the
compiler's output rather than guessed. The Pallas Triton backend is deprecated since jax
0.11.0 but still lowers at the pinned jax 0.12.0.1 (with a DeprecationWarning); a host without
a GPU lowers for an abstract H100 (sm_90), since the lowering asks which GPU it targets.

Exercises: jax/_src/pallas/triton/lowering.py::lower_jaxpr_to_triton_module, jax/_src/pallas/triton/lowering.py::_dot_general_lowering, jax/_src/pallas/triton/lowering.py::_scan_lowering_rule, jax/_src/pallas/triton/core.py::CompilerParams, jax/_src/pallas/triton/pallas_call_registration.py::pallas_call_lowering, jax/_src/pallas/triton/gpu_info.py::get_gpu_info
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from kernels import _platform as plat
from kernels.lowering_ladder import debug_sections

BLOCKS = ((64, 64, 32), (128, 128, 32), (256, 256, 32))
NUM_WARPS = 4
SIZE = 512
# "Maximum number of 32-bit registers per thread": 255 for every compute capability from 3.5
# on (CUDA C++ Programming Guide, the technical specifications per compute capability table).
MAX_REGISTERS = 255


def matmul_kernel(x_ref, y_ref, o_ref, *, bk: int):
    def step(k, acc):
        x = x_ref[:, pl.ds(k * bk, bk)]
        y = y_ref[pl.ds(k * bk, bk), :]
        return acc + jnp.dot(x, y, preferred_element_type=jnp.float32)

    acc = jax.lax.fori_loop(0, x_ref.shape[1] // bk, step, jnp.zeros(o_ref.shape, jnp.float32))
    o_ref[...] = acc.astype(o_ref.dtype)


def matmul(x: jax.Array, y: jax.Array, block: tuple[int, int, int], *, debug: bool = False,
           interpret: bool = False) -> jax.Array:
    from jax.experimental.pallas import triton as pltriton

    (m, k), (_, n) = x.shape, y.shape
    bm, bn, bk = block
    return pl.pallas_call(
        functools.partial(matmul_kernel, bk=bk),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, bn), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        compiler_params=None if interpret else pltriton.CompilerParams(num_warps=NUM_WARPS, num_stages=1),
        debug=debug, interpret=interpret)(x, y)


@dataclass(frozen=True)
class Pressure:
    """What the Triton IR of one block shape says about registers per thread."""

    block: tuple[int, int, int]
    carried: tuple[str, ...]   # tensor types carried round the K loop (the accumulator)
    loaded: tuple[str, ...]    # tensor types loaded inside the loop (the operand tiles)
    ir_lines: int

    @property
    def accumulator_registers(self) -> int:
        """A lower bound: 32-bit registers per thread the carried tensors alone occupy."""
        return math.ceil(sum(_elements(t) * _words(t) for t in self.carried) / (32 * NUM_WARPS))

    @property
    def operand_registers(self) -> int:
        return math.ceil(sum(_elements(t) * _words(t) for t in self.loaded) / (32 * NUM_WARPS))

    @property
    def verdict(self) -> str:
        if self.accumulator_registers > MAX_REGISTERS:
            return "must spill: the accumulator alone exceeds 255 registers"
        if self.accumulator_registers + self.operand_registers > MAX_REGISTERS:
            return "at risk: accumulator + operand tiles exceed 255 unless staged in shared memory"
        return "fits"


def _elements(tensor_type: str) -> int:
    dims = re.match(r"tensor<([\dx]+)x", tensor_type)
    return math.prod(int(d) for d in dims.group(1).split("x")) if dims else 1


def _words(tensor_type: str) -> int:
    return 2 if re.search(r"x(f64|i64)>", tensor_type) else 1


def pressure(block: tuple[int, int, int], size: int = SIZE) -> tuple[Pressure, str]:
    """Lower the kernel to Triton IR on this host and read its loop's tensor types."""
    x, y = jax.ShapeDtypeStruct((size, size), jnp.float32), jax.ShapeDtypeStruct((size, size), jnp.float32)
    ir = debug_sections(lambda a, b: matmul(a, b, block, debug=True), (x, y), "cuda")["Triton module"]
    loop = re.search(r"scf\.for .*?-> \((.*?)\)\s*:.*?\n(.*?)\n\s*scf\.yield", ir, re.DOTALL)
    if loop is None:
        raise ValueError(f"no scf.for loop in the Triton IR of block {block}")
    carried = tuple(re.findall(r"tensor<[^>]+>", loop.group(1)))
    loaded = tuple(f"tensor<{dims}x{dtype}>" for dims, dtype in re.findall(
        r"tt\.load %\w+ : tensor<([\dx]+)x!tt\.ptr<(\w+)>>", loop.group(2)))
    return Pressure(block, carried, loaded, len(ir.splitlines())), ir


@dataclass(frozen=True)
class Spill:
    """What ptxas reported for one compiled kernel."""

    function: str
    registers: int
    spill_stores: int
    spill_loads: int


def parse_ptxas(report: str) -> list[Spill]:
    """`ptxas -v` output -> one record per function (registers, spill store/load bytes)."""
    out = []
    for block in re.split(r"ptxas info\s*: Function properties for ", report)[1:]:
        name = block.splitlines()[0].strip()
        spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", block)
        regs = re.search(r"Used (\d+) registers", block)
        if spills and regs:
            out.append(Spill(name, int(regs.group(1)), int(spills.group(1)), int(spills.group(2))))
    return out


def find_ptxas() -> str | None:
    """ptxas from PATH, or from the nvidia-cuda-nvcc wheel that jax's CUDA plugin installs."""
    if path := shutil.which("ptxas"):
        return path
    try:
        import nvidia.cuda_nvcc as nvcc
    except ImportError:
        return None
    roots = [Path(p) for p in getattr(nvcc, "__path__", [])]
    found = [p / "bin" / "ptxas" for p in roots if (p / "bin" / "ptxas").exists()]
    return str(found[0]) if found else None


def compile_and_find_spills(block: tuple[int, int, int]) -> list[Spill]:
    """On a GPU: compile in a child process that dumps PTX, then ask ptxas about spills."""
    ptxas = find_ptxas()
    if ptxas is None:
        raise RuntimeError("ptxas not found on PATH or in the nvidia-cuda-nvcc wheel")
    with tempfile.TemporaryDirectory() as dump:
        env = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={dump}")
        subprocess.run([sys.executable, "-m", "kernels.finding_the_spill", "--compile-only",
                        ",".join(map(str, block))], env=env, check=True, capture_output=True, text=True)
        spills = []
        for ptx in sorted(Path(dump).glob("*.ptx")):
            target = re.search(r"^\.target\s+(\w+)", ptx.read_text(), re.MULTILINE)
            arch = target.group(1) if target else "sm_90a"
            done = subprocess.run([ptxas, "-v", f"--gpu-name={arch}", str(ptx), "-o", os.devnull],
                                  capture_output=True, text=True)
            spills += [s for s in parse_ptxas(done.stderr + done.stdout) if "matmul" in s.function]
        return spills


def _compile_only(block: tuple[int, int, int]) -> None:
    x, y = plat.randn(0, (SIZE, SIZE), (SIZE, SIZE))
    jax.block_until_ready(jax.jit(lambda a, b: matmul(a, b, block))(x, y))


def check(block: tuple[int, int, int], size: int = 256) -> float:
    """Max abs error of the kernel at one block shape (interpreted on a CPU)."""
    x, y = plat.randn(6, (size, size), (size, size))
    fn = jax.jit(lambda a, b: matmul(a, b, block, interpret=plat.interpret()))
    return plat.max_abs_error(fn(x, y), jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST))


def artifacts(out_dir: Path) -> list[Path]:
    """The Triton IR of each block shape, for the lab page."""
    return [plat.write(out_dir, f"finding_the_spill.{b[0]}x{b[1]}x{b[2]}.ttir.mlir", pressure(b)[1])
            for b in BLOCKS]


def _report(p: Pressure) -> None:
    plat.banner(f"block {p.block}, {NUM_WARPS} warps ({32 * NUM_WARPS} threads): {p.ir_lines} lines of Triton IR")
    print(f"carried round the K loop (scf.for iter_args): {', '.join(p.carried)}")
    print(f"loaded inside the loop (tt.load):             {', '.join(p.loaded)}")
    print(f"registers per thread: accumulator >= {p.accumulator_registers}, operand tiles "
          f"{p.operand_registers} (limit {MAX_REGISTERS}) -> {p.verdict}")


def main(argv: list[str] | None = None) -> int:
    p = plat.parser("finding_the_spill", __doc__)
    p.add_argument("--compile-only", metavar="BM,BN,BK", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.compile_only:
        _compile_only(tuple(int(v) for v in args.compile_only.split(",")))  # type: ignore[arg-type]
        return 0
    print(f"finding_the_spill: {SIZE}^3 float32 Triton matmul, {plat.where()}")
    print(f"check at 256^3 with block {BLOCKS[0]}: max abs error vs jnp {check(BLOCKS[0]):.2e}")
    for block in BLOCKS:
        _report(pressure(block)[0])
        if not plat.on_gpu():
            print(f"compile: skipped ({plat.NO_GPU_REASON}). On a GPU this step compiles the kernel, "
                  "runs `ptxas -v` on the PTX XLA dumps and looks for 'bytes spill stores' > 0 in the "
                  "kernel's function properties (in SASS: STL/LDL local-memory instructions).")
            continue
        for s in compile_and_find_spills(block):
            print(f"compile: {s.function}: {s.registers} registers, {s.spill_stores} bytes spill stores, "
                  f"{s.spill_loads} bytes spill loads")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
