"""LAB·2.2 · Finding the spill: a block size that drives register pressure past the limit.

A Triton matmul keeps its `bm x bn` f32 accumulator in registers for the whole K loop, spread
over the `32 x num_warps` threads of the program: `bm * bn / (32 * num_warps)` registers per
thread before a single operand is loaded. A thread has at most 255, so at 4 warps a 256 x 256
accumulator (512 registers) cannot fit and ptxas spills to local memory. The lab lowers the
Pallas kernel to Triton IR on this host (a host without a GPU lowers for an abstract H100,
sm_90, since the lowering asks which GPU it targets), takes the exact bytes the `pallas_call`
hands XLA (the Triton module serialized in its custom call) and compiles them with pip's
`triton` for `GPUTarget("cuda", 90, 32)`: Triton IR -> TTGIR -> LLVM IR -> PTX -> cubin, no GPU
needed. It then runs the `ptxas` Triton bundles with `-v -arch=sm_90a` on the PTX and prints the
registers and the `bytes spill stores` / `bytes spill loads` it reports: the spill, found in the
compiler's output rather than guessed. The PTX itself holds no spill (`st.local`): PTX
registers are virtual and unlimited, and it is ptxas that spills, so the lab disassembles the
cubin (the bundled `nvdisasm`, with line info) and lists the SASS `STL` spill stores with the
Triton IR line each comes from. On a GPU runtime the lab lowers and compiles for that GPU (its
compute capability) instead, and runs the kernel natively; anywhere else, a TPU host included, the
kernel runs interpreted on the CPU (`kernels/_gpu.py`). The register count read off the IR
types is a lower bound: 128 x 128 passes it and still spills. This is pip Triton's pipeline
(3.9 measured), not XLA's own Triton, which compiles the same bytes on a GPU; without `triton`
installed the compile step is skipped with that reason. The Pallas Triton backend is deprecated since jax 0.11.0 but
still lowers at the pinned jax 0.12.0.1 (with a DeprecationWarning).

Exercises: jax/_src/pallas/triton/lowering.py::lower_jaxpr_to_triton_module, jax/_src/pallas/triton/lowering.py::_dot_general_lowering, jax/_src/pallas/triton/lowering.py::_scan_lowering_rule, jax/_src/pallas/triton/core.py::CompilerParams, jax/_src/pallas/triton/pallas_call_registration.py::pallas_call_lowering, jax/_src/pallas/triton/gpu_info.py::get_gpu_info
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import subprocess
import tempfile
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from kernels import _gpu
from kernels import _platform as plat

BLOCKS = ((64, 64, 32), (128, 128, 32), (256, 256, 32))
NUM_WARPS = 4
NUM_STAGES = 1
SIZE = 512
# "Maximum number of 32-bit registers per thread": 255 for every compute capability from 3.5
# on (CUDA C++ Programming Guide, the technical specifications per compute capability table).
MAX_REGISTERS = 255
SM90 = 90
"""The compute capability a host without a GPU compiles for (an H100)."""
NO_TRITON_REASON = ("triton is not installed (pip install triton, or this project's `labs` extra): "
                    "it compiles the Triton IR to PTX and bundles the ptxas that reads it")


# %% The kernel: a Triton matmul whose accumulator lives in registers
def matmul_kernel(x_ref, y_ref, o_ref, *, bk: int):
    def step(k, acc):
        x = x_ref[:, pl.ds(k * bk, bk)]
        y = y_ref[pl.ds(k * bk, bk), :]
        return acc + jnp.dot(x, y, preferred_element_type=jnp.float32)

    acc = jax.lax.fori_loop(0, x_ref.shape[1] // bk, step, jnp.zeros(o_ref.shape, jnp.float32))
    o_ref[...] = acc.astype(o_ref.dtype)


def matmul(x: jax.Array, y: jax.Array, block: tuple[int, int, int], *, interpret: bool = False) -> jax.Array:
    from jax.experimental.pallas import triton as pltriton

    (m, k), (_, n) = x.shape, y.shape
    bm, bn, bk = block
    params = None if interpret else pltriton.CompilerParams(num_warps=NUM_WARPS, num_stages=NUM_STAGES)
    return pl.pallas_call(
        functools.partial(matmul_kernel, bk=bk),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype), grid=(m // bm, n // bn),
        in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                  pl.BlockSpec((k, bn), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        compiler_params=params, interpret=interpret)(x, y)


def tag(block: tuple[int, int, int]) -> str:
    return "x".join(map(str, block))


# %% The Triton IR jax hands XLA, and the registers it asks for
def triton_ir(block: tuple[int, int, int], size: int = SIZE) -> str:
    """The Triton IR jax hands XLA for one block shape, as text without locations: the bytecode
    `pallas_call_lowering` serializes into its `__gpu$xla.gpu.triton` custom call, re-read."""
    from jax._src.lib.mlir import ir
    from jax._src.lib.triton import dialect as tt_dialect

    x = jax.ShapeDtypeStruct((size, size), jnp.float32)
    module = plat.lower(lambda a, b: matmul(a, b, block), (x, x), "cuda").compiler_ir("stablehlo")
    calls = [op for op in _ops(module.operation) if op.name == "stablehlo.custom_call"]
    if len(calls) != 1:
        raise ValueError(f"expected one Triton custom call for block {block}, found {len(calls)}")
    config = ir.DictAttr(calls[0].attributes["mhlo.backend_config"])
    tt_dialect.register_dialect(module.context)
    with module.context:
        return str(ir.Module.parse(ir.StringAttr(config["ir"]).value_bytes).operation.get_asm())


def _ops(op: Any) -> list[Any]:
    """Every operation nested in `op`, depth first."""
    out = []
    for region in op.regions:
        for body in region.blocks:
            for inner in body.operations:
                out += [inner.operation, *_ops(inner.operation)]
    return out


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
        return "fits by this count (a lower bound: addresses and temporaries need registers too)"


def _elements(tensor_type: str) -> int:
    dims = re.match(r"tensor<([\dx]+)x", tensor_type)
    return math.prod(int(d) for d in dims.group(1).split("x")) if dims else 1


def _words(tensor_type: str) -> int:
    return 2 if re.search(r"x(f64|i64)>", tensor_type) else 1


def pressure(block: tuple[int, int, int], size: int = SIZE) -> tuple[Pressure, str]:
    """Lower the kernel to Triton IR on this host and read its loop's tensor types."""
    ir = triton_ir(block, size)
    loop = re.search(r"scf\.for .*?-> \((.*?)\)\s*:.*?\n(.*?)\n\s*scf\.yield", ir, re.DOTALL)
    if loop is None:
        raise ValueError(f"no scf.for loop in the Triton IR of block {block}")
    carried = tuple(re.findall(r"tensor<[^>]+>", loop.group(1)))
    loaded = tuple(f"tensor<{dims}x{dtype}>" for dims, dtype in re.findall(
        r"tt\.load %\w+ : tensor<([\dx]+)x!tt\.ptr<(\w+)>>", loop.group(2)))
    return Pressure(block, carried, loaded, len(ir.splitlines())), ir


# %% The compiler's own report: ptxas and the SASS
@dataclass(frozen=True)
class Spill:
    """What ptxas reported for one compiled kernel."""

    function: str
    registers: int
    spill_stores: int
    spill_loads: int


def parse_ptxas(report: str) -> list[Spill]:
    """`ptxas -v` output -> one record per function (registers, spill store/load bytes). The
    ptxas Triton bundles for sm_90 and later names itself `ptxas-blackwell` in its lines."""
    out = []
    for block in re.split(r"ptxas[\w-]* info\s*: Function properties for ", report)[1:]:
        name = block.splitlines()[0].strip()
        spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", block)
        regs = re.search(r"Used (\d+) registers", block)
        if spills and regs:
            out.append(Spill(name, int(regs.group(1)), int(spills.group(1)), int(spills.group(2))))
    return out


@dataclass(frozen=True)
class SpillStore:
    """One SASS local-memory store (`STL`) and the Triton IR line its line info points to."""

    ir_line: int
    instruction: str


def spill_stores(sass: str) -> list[SpillStore]:
    """`nvdisasm --print-line-info` output -> its `STL` instructions, each with the source line
    of the last `//## File ..., line N` comment above it (the Triton IR file compiled)."""
    out, line = [], 0
    for text in sass.splitlines():
        if found := re.match(r'\s*//## File ".*", line (\d+)', text):
            line = int(found.group(1))
        elif store := re.match(r"\s*/\*[0-9a-f]+\*/\s+(STL\b[^;]*;)", text):
            out.append(SpillStore(line, store.group(1)))
    return out


def arch(capability: int) -> str:
    """ptxas's `-arch` for a compute capability: `sm_90a` (the architecture-specific features
    Hopper and later kernels use), `sm_80`."""
    return f"sm_{capability}{'a' if capability >= 90 else ''}"


def capability() -> int:
    """The compute capability to compile for: this runtime's GPU, else an H100's."""
    if plat.on_gpu() and plat.TARGET.value is None:
        major, _, minor = str(jax.devices()[0].compute_capability).partition(".")
        return int(major) * 10 + int(minor or 0)
    return SM90


@dataclass(frozen=True)
class Compiled:
    """One block shape compiled by pip Triton for one GPU, with what ptxas and the SASS say."""

    block: tuple[int, int, int]
    capability: int
    ir: str
    ptxas_report: str
    spill: Spill
    ptx_lines: int
    ptx_local_stores: int   # `st.local` in the PTX: none, spilling is ptxas's doing
    stores: tuple[SpillStore, ...]
    seconds: float

    def hot_lines(self, top: int = 5) -> list[tuple[int, int, str]]:
        """The Triton IR lines with the most spill stores: (line, stores, the IR line's text)."""
        ir = self.ir.splitlines()
        counts = Counter(s.ir_line for s in self.stores).most_common(top)
        return [(n, c, ir[n - 1].strip() if 0 < n <= len(ir) else "?") for n, c in counts]


def have_triton() -> bool:
    try:
        import triton  # noqa: F401
    except ImportError:
        return False
    return True


def compile_for(block: tuple[int, int, int], ir: str | None = None, cc: int = SM90) -> Compiled:
    """Compile the kernel's Triton IR with pip Triton for compute capability `cc` (an H100 by
    default: no GPU needed), ask the bundled ptxas about spills, and find the spill stores in the
    cubin's SASS."""
    if not have_triton():
        raise RuntimeError(NO_TRITON_REASON)
    import time

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import get_ptxas

    ir = triton_ir(block) if ir is None else ir
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / f"finding_the_spill.{tag(block)}.ttir"
        source.write_text(ir)
        with warnings.catch_warnings():  # Triton 3.9 warns that its FP-fusion default will change
            warnings.simplefilter("ignore", UserWarning)
            kernel = triton.compile(str(source), target=GPUTarget("cuda", cc, 32),
                                    options={"num_warps": NUM_WARPS, "num_stages": NUM_STAGES})
        ptx, cubin = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        ptx.write_text(kernel.asm["ptx"])
        cubin.write_bytes(kernel.asm["cubin"])
        report = _tool([get_ptxas(cc).path, "-v", f"-arch={arch(cc)}", str(ptx), "-o", str(Path(tmp) / "v.cubin")])
        sass = _tool([triton.knobs.nvidia.nvdisasm.path, "--print-line-info", str(cubin)])
    found = parse_ptxas(report)
    if len(found) != 1:
        raise ValueError(f"expected ptxas to report one function for block {block}, got {len(found)}")
    text = kernel.asm["ptx"]
    return Compiled(block, cc, ir, report.replace(tmp, "."), found[0], len(text.splitlines()),
                    len(re.findall(r"\bst\.local\b", text)), tuple(spill_stores(sass)),
                    time.perf_counter() - start)


def _tool(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-500:]}")
    return done.stdout + done.stderr


# %% Checked against jnp, and the report printed
def check(block: tuple[int, int, int], size: int = 256) -> float:
    """Max abs error of the kernel at one block shape (natively on a GPU, interpreted on a CPU
    elsewhere)."""
    with _gpu.host():
        x, y = plat.randn(6, (size, size), (size, size))
        fn = jax.jit(lambda a, b: matmul(a, b, block, interpret=_gpu.interpret()))
        return plat.max_abs_error(fn(x, y), jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST))


def describe(c: Compiled, timed: bool = True) -> str:
    """What ptxas and the SASS say about one block shape, as the lab prints it (`timed`: with
    the compile time, which the page leaves out so that it shows the same text every build)."""
    s = c.spill
    took = f", compiled in {c.seconds:.1f} s" if timed else ""
    lines = [f"ptxas -v -arch={arch(c.capability)} ({c.ptx_lines} lines of PTX{took}): "
             f"{s.registers} registers, {s.spill_stores} bytes spill stores, {s.spill_loads} bytes spill loads",
             f"st.local in the PTX: {c.ptx_local_stores} (PTX registers are virtual; ptxas spills)",
             f"STL spill stores in the SASS (nvdisasm): {len(c.stores)}"]
    if c.stores:
        lines.append("Triton IR lines with the most spill stores (line: stores  IR):")
        lines += [f"  {n:4d}: {k:3d}  {text[:110]}" for n, k, text in c.hot_lines()]
        lines.append("first spill stores: " + "; ".join(
            f"{st.instruction} (IR line {st.ir_line})" for st in c.stores[:3]))
    return "\n".join(lines)


# %% What the site shows: the kernel lowered, each block's report
def lowerings() -> list[plat.Lowering]:
    """The Triton matmul at the smallest block shape, lowered with locations (reader/ir). Not for
    Mosaic TPU: it carries Triton's parameters, and built without them its (256, 64) block of `y`
    breaks the TPU's rule that a block's last dimension be a multiple of 128 (or the array's): a
    refusal this lab does not teach."""
    x, y = plat.randn(3, (256, 256), (256, 256))
    return [plat.Lowering("matmul", matmul_kernel, lambda a, b: matmul(a, b, BLOCKS[0]), (x, y),
                          ("jaxpr", "triton"))]


def artifacts(out_dir: Path) -> list[Path]:
    """For each block shape: its Triton IR, and what ptxas and the SASS say about spills."""
    paths = []
    for block in BLOCKS:
        ir = triton_ir(block)
        paths.append(plat.write(out_dir, f"finding_the_spill.{tag(block)}.ttir.mlir", ir))
        if not have_triton():
            text = f"compile: skipped ({NO_TRITON_REASON})"
        else:
            c = compile_for(block, ir)
            report = "\n".join(line for line in c.ptxas_report.strip().splitlines()
                               if "Compile time" not in line)
            text = (f"$ ptxas -v -arch={arch(c.capability)} finding_the_spill.{tag(block)}.ptx\n"
                    f"{report}\n\n{describe(c, timed=False)}")
        paths.append(plat.write(out_dir, f"finding_the_spill.{tag(block)}.ptxas.txt", text))
    return paths


# %% The lab's run
def _report(p: Pressure) -> None:
    plat.banner(f"block {p.block}, {NUM_WARPS} warps ({32 * NUM_WARPS} threads): {p.ir_lines} lines of Triton IR")
    print(f"carried round the K loop (scf.for iter_args): {', '.join(p.carried)}")
    print(f"loaded inside the loop (tt.load):             {', '.join(p.loaded)}")
    print(f"registers per thread: accumulator >= {p.accumulator_registers}, operand tiles "
          f"{p.operand_registers} (limit {MAX_REGISTERS}) -> {p.verdict}")


def _block(text: str) -> tuple[int, int, int]:
    values = tuple(int(v) for v in text.split(","))
    if len(values) != 3:
        raise argparse.ArgumentTypeError(f"expected BM,BN,BK, got {text!r}")
    return values


def main(argv: list[str] | None = None) -> int:
    with _gpu.host():   # a TPU host's CPU: these kernels are built for a GPU
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    p = plat.parser("finding_the_spill", __doc__)
    p.add_argument("--block", type=_block, action="append", metavar="BM,BN,BK",
                   help=f"a block shape to compile (repeatable; default {' '.join(map(tag, BLOCKS))})")
    args = p.parse_args(argv)
    print(f"finding_the_spill: {SIZE}^3 float32 Triton matmul, {_gpu.where()}")
    cc = capability()
    print(f"check at 256^3 with block {BLOCKS[0]}: max abs error vs jnp {check(BLOCKS[0]):.2e}")
    if have_triton():
        import triton
        where = "this runtime's GPU" if plat.on_gpu() else "an H100, on this host without a GPU"
        print(f"compile: pip triton {triton.__version__} for GPUTarget('cuda', {cc}, 32) ({where}), "
              f"num_warps={NUM_WARPS}, num_stages={NUM_STAGES}")
    for block in args.block or BLOCKS:
        pressure_, ir = pressure(block)
        _report(pressure_)
        if not have_triton():
            print(f"compile: skipped ({NO_TRITON_REASON})")
            continue
        print(describe(compile_for(block, ir, cc)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
