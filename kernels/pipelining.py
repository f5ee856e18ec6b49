"""LAB·1.4 · Pipelining profile: the DMA and compute schedule of emit_pipeline, recorded.

A TPU kernel's operands live in HBM; `pltpu.emit_pipeline` double-buffers their blocks in
VMEM, starting the DMA of step s+1's blocks before step s computes and waiting on a DMA
semaphore just before the data is needed. On a CPU the TPU interpreter
(`pltpu.InterpretParams`) simulates HBM, VMEM, DMAs and semaphores; with
`dma_execution_mode="eager"` each DMA is performed when it starts, and with its
`LoggingMode.SEMAPHORE | SHARED_MEMORY` logging every buffer access, semaphore signal and wait
is logged in program order. The lab runs a blocked matmul through emit_pipeline (simulating a
TPU v5e through an abstract mesh, since the pipeline asks the chip for its tiling; at jax
0.12.0.1, unlike 0.10.2, a jitted call under an abstract mesh runs only with its operands
committed to a real device), turns the log into events (DMA start, DMA wait, compute step)
and draws the timeline of DMA slots and compute as an SVG. What to read in it: every input
DMA of step s+1 starts before compute step s, the output block stays in VMEM across the
reduction axis and is written back once per output tile, and y's blocks are fetched again
for every row of tiles. The interpreter runs in program order, so it cannot say how long a DMA
took or whether it overlapped compute; on a TPU the lab runs the same pipeline natively (bf16
operands, checked against the f32 product at `Precision.HIGHEST`) under `jax.profiler`, with
libtpu recording emit_pipeline's named scopes (`ep_copy_in`, `ep_wait_in`, `ep_run_kernel`,
...) as trace regions, and reads the overlap from the time spent waiting; `chip()` does so for
a larger block and for a third buffer too. A larger block gives each step more compute per byte
it moves (the MXU's work grows with bm·bn·bk, the copies with bm·bk + bk·bn), so less of each
transfer is left uncovered; a third buffer starts each copy a step earlier, which hides a
transfer's jitter but not a shortfall of compute per byte.

Exercises: jax/_src/pallas/mosaic/pipeline.py::emit_pipeline, jax/_src/pallas/mosaic/pipeline.py::BufferedRef, jax/_src/pallas/mosaic/pipeline.py::Scheduler, jax/_src/pallas/mosaic/pipeline.py::Scheduler.copy_in, jax/_src/pallas/mosaic/pipeline.py::Scheduler.wait_in, jax/_src/pallas/mosaic/pipeline.py::Scheduler.copy_out, jax/_src/pallas/mosaic/interpret/interpret_pallas_call.py::dma_start, jax/_src/pallas/mosaic/interpret/interpret_pallas_call.py::dma_wait, jax/_src/pallas/mosaic/interpret/params.py::InterpretParams, jax/_src/pallas/mosaic/pipeline.py::BufferedRefBase.get_dma_slice
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import importlib.util
import json
import logging
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from kernels import _platform as plat
from kernels._svg import PALETTE, Svg

if TYPE_CHECKING:
    from kernels._record import Check

OPERANDS = ("x", "y", "o")
INTERPRETER_LOGGER = "jax._src.pallas.mosaic.interpret.shared_memory"


# %% The pipelined matmul: emit_pipeline over operands left in HBM
def body(x_ref, y_ref, o_ref):
    # The output block is revisited along k (grid axis 2): zero it on the first visit.
    @pl.when(pl.program_id(2) == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)


def pipelined_matmul(x: jax.Array, y: jax.Array, block: tuple[int, int, int],
                     params: pltpu.InterpretParams | bool, buffers: int = 2) -> jax.Array:
    """x @ y in f32 through emit_pipeline; `buffers` VMEM buffers per input (2: double buffering)."""
    (m, k), (_, n) = x.shape, y.shape
    bm, bn, bk = block
    grid = (m // bm, n // bn, k // bk)
    mode = {} if buffers == 2 else {"pipeline_mode": pl.Buffered(buffers)}

    def kernel(x_hbm, y_hbm, o_hbm):
        pltpu.emit_pipeline(
            body, grid=grid,
            in_specs=[pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk), **mode),
                      pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j), **mode)],
            out_specs=[pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j))],
        )(x_hbm, y_hbm, o_hbm)

    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    return pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        in_specs=[any_spec, any_spec], out_specs=any_spec, interpret=params)(x, y)


# %% The interpreter's log, read as DMA starts, waits and compute steps
@dataclass(frozen=True)
class Event:
    """One step of the recorded schedule, in program order (`tick`)."""

    tick: int
    kind: str          # "start" | "wait" | "compute"
    operand: str = ""  # x, y or o for a DMA
    slot: int = -1     # the VMEM buffer slot of a DMA
    region: str = ""   # the HBM block a DMA moves, e.g. "[0:8, 128:256]"
    step: int = -1     # the compute step's index (grid point in order)


@dataclass(frozen=True)
class _Op:
    name: str
    fields: str
    source: str


def _ops(lines: list[str]) -> Iterator[_Op]:
    """Regroup the interpreter's per-line log records into one record per operation."""
    current: list[str] = []
    for line in lines:
        m = re.search(r"`(\w+)` -- (.*)$", line)
        if not m:
            continue
        starts = m.group(2).startswith(("key=", "semaphore="))
        if starts and current:
            yield _op(current)
            current = []
        if starts or current:
            current.append(line)
    if current:
        yield _op(current)


def _op(lines: list[str]) -> _Op:
    first = re.search(r"`(\w+)` -- (.*)$", lines[0])
    last = re.search(r"-- (.*)$", lines[-1])
    assert first is not None and last is not None
    return _Op(first.group(1), first.group(2), last.group(1) if len(lines) > 1 else "")


def _region(fields: str) -> tuple[int | None, str]:
    """`(slot, "[a:b, c:d]")` from a `rnge=(...)` field; slot is None for an unslotted buffer."""
    rnge = re.search(r"rnge=\((.*)\), in_bounds", fields)
    text = rnge.group(1) if rnge else ""
    slot = re.match(r"(\d+), ", text)
    spans = re.findall(r"slice\((\d+), (\d+), 1\)", text)
    return (int(slot.group(1)) if slot else None), "[" + ", ".join(f"{a}:{b}" for a, b in spans) + "]"


def parse(lines: list[str], body_name: str = "body") -> list[Event]:
    """Events from the interpreter log: DMA starts (get+store+signal), waits, compute steps."""
    events: list[Event] = []
    hbm_names: dict[str, str] = {}
    vmem_names: dict[str, str] = {}
    pending: list[_Op] = []
    sem_owner: dict[str, Event] = {}
    in_body = False
    for op in _ops(lines):
        key = re.search(r"key=\('(\w+)', (\d+)", op.fields)
        if op.name == "allocate_buffer" and key and key.group(1) == "hbm":
            hbm_names[key.group(2)] = OPERANDS[len(hbm_names) % len(OPERANDS)]
            continue
        if op.source.endswith(f"({body_name}).") and key and key.group(1) == "vmem":
            if not in_body:
                events.append(Event(len(events), "compute", step=sum(e.kind == "compute" for e in events)))
            in_body = True
            continue
        in_body = False
        if op.name in ("get_buffer_content", "store_buffer_content") and key:
            pending.append(op)
        elif op.name == "signal" and len(pending) >= 2:
            event = _dma_start(len(events), pending[-2], pending[-1], hbm_names, vmem_names)
            events.append(event)
            sem_owner[re.findall(r"semaphore=(\d+)", op.fields)[0]] = event
            pending.clear()
        elif op.name == "wait":
            started = sem_owner.get(re.findall(r"semaphore=(\d+)", op.fields)[0])
            if started is not None:
                events.append(Event(len(events), "wait", started.operand, started.slot, started.region))
    return events


def _dma_start(tick: int, src: _Op, dst: _Op, hbm: dict[str, str], vmem: dict[str, str]) -> Event:
    src_key = re.findall(r"key=\('(\w+)', (\d+)", src.fields)[0]
    dst_key = re.findall(r"key=\('(\w+)', (\d+)", dst.fields)[0]
    if src_key[0] == "hbm":   # HBM -> VMEM: an input block arrives
        vmem[dst_key[1]] = hbm.get(src_key[1], "?")
        slot, _ = _region(dst.fields)
        _, region = _region(src.fields)
        return Event(tick, "start", vmem[dst_key[1]], slot if slot is not None else 0, region)
    slot, _ = _region(src.fields)   # VMEM -> HBM: an output block leaves
    _, region = _region(dst.fields)
    return Event(tick, "start", hbm.get(dst_key[1], "?"), slot if slot is not None else 0, region)


# %% Recording the schedule under the TPU interpreter
@contextlib.contextmanager
def _captured_log() -> Iterator[list[str]]:
    lines: list[str] = []

    class _Handler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    logger, handler = logging.getLogger(INTERPRETER_LOGGER), _Handler()
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate


def tpu_v5e_mesh() -> jax.sharding.AbstractMesh:
    """An abstract one-device mesh whose device says it is a TPU v5e (for the tiling rules)."""
    device = jax.sharding.AbstractDevice("TPU v5 lite", 1, "tpu")
    return jax.sharding.AbstractMesh((1,), ("x",), abstract_device=device)


@dataclass(frozen=True)
class Profile:
    grid: tuple[int, int, int]
    error: float
    events: tuple[Event, ...]


def record(m: int = 16, n: int = 128, k: int = 384,
           block: tuple[int, int, int] = (8, 128, 128)) -> Profile:
    """Run the pipelined matmul under the TPU interpreter and return its recorded schedule."""
    from jax._src.pallas.mosaic.interpret.params import LoggingMode

    # Committed to the host device: the abstract mesh names the chip, the device runs the interpreter.
    x, y = jax.device_put(plat.randn(3, (m, k), (k, n)), jax.devices()[0])
    params = pltpu.InterpretParams(dma_execution_mode="eager",
                                   logging_mode=LoggingMode.SEMAPHORE | LoggingMode.SHARED_MEMORY)
    fn = jax.jit(lambda a, b: pipelined_matmul(a, b, block, params))
    with _captured_log() as lines, jax.sharding.use_abstract_mesh(tpu_v5e_mesh()):
        out = jax.block_until_ready(fn(x, y))
    error = plat.max_abs_error(out, jnp.dot(x, y, precision=jax.lax.Precision.HIGHEST))
    grid = (m // block[0], n // block[1], k // block[2])
    return Profile(grid, error, tuple(parse(lines)))


def copy_body(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def record_copy(steps: int, buffer_count: int) -> list[Event]:
    """The schedule of a 1-D pipeline (x read, o written, one (8, 128) block per step, both
    `pl.Buffered(buffer_count)`) under the TPU interpreter: what reader's pipeline figure draws."""
    from jax._src.pallas.mosaic.interpret.params import LoggingMode

    spec = pl.BlockSpec((8, 128), lambda i: (i, 0), pipeline_mode=pl.Buffered(buffer_count))

    def kernel(x_hbm, o_hbm):
        pltpu.emit_pipeline(copy_body, grid=(steps,), in_specs=[spec], out_specs=[spec])(x_hbm, o_hbm)

    params = pltpu.InterpretParams(dma_execution_mode="eager",
                                   logging_mode=LoggingMode.SEMAPHORE | LoggingMode.SHARED_MEMORY)
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    x = jax.device_put(plat.randn(4, (8 * steps, 128))[0], jax.devices()[0])
    fn = jax.jit(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
                                in_specs=[any_spec], out_specs=any_spec, interpret=params))
    with _captured_log() as lines, jax.sharding.use_abstract_mesh(tpu_v5e_mesh()):
        out = jax.block_until_ready(fn(x))
    assert plat.max_abs_error(out, x * 2.0) == 0.0
    return [dataclasses.replace(e, operand={"y": "o"}.get(e.operand, e.operand))
            for e in parse(lines, "copy_body")]


# %% Reading the schedule: the event list and the timeline
def describe(e: Event) -> str:
    if e.kind == "compute":
        return f"{e.tick:3}  compute step {e.step}"
    direction = "HBM->VMEM" if e.operand != "o" else "VMEM->HBM"
    what = "start DMA" if e.kind == "start" else "wait DMA "
    return f"{e.tick:3}  {what} {e.operand}{e.region:16} {direction} slot {e.slot}"


def timeline_svg(events: tuple[Event, ...] | list[Event]) -> str:
    """DMA slots and compute as rows, program order as the x axis; a DMA spans start..wait."""
    rows = sorted({(e.operand, e.slot) for e in events if e.kind != "compute"},
                  key=lambda r: (OPERANDS.index(r[0]) if r[0] in OPERANDS else 9, r[1]))
    labels = [f"DMA {op} slot {slot}" for op, slot in rows] + ["compute"]
    cell, left, top, row_h = 14, 110, 40, 26
    width = left + cell * (len(events) + 1) + 20
    svg = Svg(width, top + row_h * len(labels) + 40, "emit_pipeline schedule under the TPU interpreter")
    svg.text(left, 20, "program order (one tick per recorded DMA start, wait or compute step)", 12)
    for r, label in enumerate(labels):
        svg.text(left - 8, top + r * row_h + 17, label, 11, "end")
        svg.line(left, top + r * row_h + row_h, width - 10, top + r * row_h + row_h, "#ddd")
    open_dma: dict[tuple[str, int], Event] = {}
    for e in events:
        if e.kind == "compute":
            y = top + len(rows) * row_h + 3
            svg.rect(left + e.tick * cell, y, cell, row_h - 6, "#444", f"compute step {e.step}")
            svg.text(left + e.tick * cell + cell / 2, y + 14, str(e.step), 9, "middle", "white")
        elif e.kind == "start":
            open_dma[(e.operand, e.slot)] = e
        elif (start := open_dma.pop((e.operand, e.slot), None)) is not None:
            r = rows.index((e.operand, e.slot))
            color = PALETTE[OPERANDS.index(e.operand) % len(PALETTE)]
            svg.rect(left + start.tick * cell, top + r * row_h + 3, (e.tick - start.tick + 1) * cell,
                     row_h - 6, color, f"{e.operand}{e.region}: started at {start.tick}, waited at {e.tick}")
    return svg.document()


def chip_timeline_svg(regions: list[list[Any]], block: list[int], buffers: int) -> str:
    """The chip's timeline from a record's regions (`[name, start us, duration us]`): DMA issue,
    DMA wait and compute per step, in microseconds, as the trace recorded them."""
    lanes = (("DMA issue (ep_copy_*)", "ep_copy", PALETTE[0]), ("DMA wait (ep_wait_*)", "ep_wait", PALETTE[1]),
             ("compute (ep_run_kernel)", "ep_run_kernel", "#444"))
    end = max((start + dur for _, start, dur in regions), default=1.0)
    left, top, row_h, width = 170, 44, 30, 900
    scale = (width - left - 20) / end
    svg = Svg(width, top + row_h * len(lanes) + 44,
              f"emit_pipeline on a TPU v5e: blocks {tuple(block)}, {buffers} buffers, from a profiler trace")
    svg.text(left, 20, f"time on the core (us), blocks {tuple(block)}, {buffers} buffers per input; "
             "one kernel call's first steps", 12)
    for row, (label, prefix, color) in enumerate(lanes):
        y = top + row * row_h
        svg.text(left - 8, y + 19, label, 11, "end")
        svg.line(left, y + row_h, width - 10, y + row_h, "#ddd")
        for name, start, dur in regions:
            if name.startswith(prefix):
                svg.rect(left + start * scale, y + 4, max(dur * scale, 1.0), row_h - 8, color,
                         f"{name}: +{start:.2f} us, {dur:.2f} us")
    for tick in range(6):
        t = end * tick / 5
        x = left + t * scale
        svg.line(x, top + row_h * len(lanes), x, top + row_h * len(lanes) + 5)
        svg.text(x, top + row_h * len(lanes) + 18, f"{t:.0f}", 10, "middle")
    return svg.document()


# %% What the site shows: the pipeline lowered, the timeline
def lowerings() -> list[plat.Lowering]:
    """The pipelined matmul lowered natively (reader/ir): emit_pipeline's DMAs and waits as ops."""
    x, y = plat.randn(2, (16, 384), (384, 128))
    return [plat.Lowering("pipelined_matmul", body, lambda a, b: pipelined_matmul(a, b, (16, 128, 128), False),
                          (x, y), ("jaxpr", "mosaic_tpu"))]


def artifacts(out_dir: Path) -> list[Path]:
    """The timeline SVG and the event list, for the lab page."""
    from kernels import _record as rec

    profile = record()
    paths = [plat.write(out_dir, "pipelining.timeline.svg", timeline_svg(profile.events)),
             plat.write(out_dir, "pipelining.events.txt", "\n".join(map(describe, profile.events)))]
    measured = rec.committed("pipelining")
    if measured and measured["extra"].get("regions"):
        extra = measured["extra"]
        paths.append(plat.write(out_dir, "pipelining.chip_timeline.svg",
                                chip_timeline_svg(extra["regions"], extra["block"], extra["buffers"])))
    return paths


# %% On a TPU: a real profile, read for DMA and compute overlap
REGION_TRACE = "--xla_enable_custom_call_region_trace=true"
"""The libtpu flag that turns a Mosaic kernel's named scopes into trace regions on the device."""
TPU_SHAPE = (1024, 1024, 4096)
"""`(M, N, K)` of the profiled matmul: 2 x 4 x 8 = 64 pipeline steps of `TPU_BLOCK`."""
TPU_BLOCK = (512, 256, 512)


def enable_region_trace() -> bool:
    """Ask libtpu (where installed) to record emit_pipeline's scopes as trace regions; it reads
    LIBTPU_INIT_ARGS once, when the TPU backend starts. True when the flag is in effect."""
    from jax._src import xla_bridge

    args = os.environ.get("LIBTPU_INIT_ARGS", "")
    if REGION_TRACE in args:
        return True
    if importlib.util.find_spec("libtpu") is None or xla_bridge.backends_are_initialized():
        return False
    os.environ["LIBTPU_INIT_ARGS"] = f"{args} {REGION_TRACE}".strip()
    return True


@dataclass(frozen=True)
class Region:
    """One emit_pipeline scope as the device recorded it, in microseconds."""

    name: str
    start: float
    duration: float


def trace_regions(trace: dict) -> list[Region]:
    """The emit_pipeline regions (`ep_copy_in`, ..., however the trace prefixes them) of the first
    TPU core in a Chrome/Perfetto trace, in time order."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    tpus = sorted((str(e.get("args", {}).get("name", "")), e["pid"]) for e in events
                  if e.get("ph") == "M" and e.get("name") == "process_name"
                  and str(e.get("args", {}).get("name", "")).startswith("/device:TPU:"))
    regions = []
    for e in events:
        scope = re.search(r"\bep_\w+", str(e.get("name", "")))
        if e.get("ph") == "X" and tpus and e.get("pid") == tpus[0][1] and scope:
            regions.append(Region(scope.group(0), float(e["ts"]), float(e.get("dur", 0.0))))
    return sorted(regions, key=lambda r: r.start)


def tpu_profile(logdir: Path, runs: int = 3, block: tuple[int, int, int] = TPU_BLOCK,
                buffers: int = 2) -> tuple[Check, list[Region], Path | None]:
    """Run the pipelined matmul natively on the TPU under `jax.profiler` (compiled first, so the
    trace holds only the runs), bf16 inputs as the MXU takes them: its check against the f32
    product at `Precision.HIGHEST`, the regions of the trace, and the trace file."""
    from kernels import _record as rec

    m, n, k = TPU_SHAPE
    x, y = plat.randn(3, (m, k), (k, n), dtype=jnp.bfloat16)
    fn = jax.jit(lambda a, b: pipelined_matmul(a, b, block, False, buffers))
    out = jax.block_until_ready(fn(x, y))
    with jax.profiler.trace(str(logdir), create_perfetto_trace=True):
        for _ in range(runs):
            jax.block_until_ready(fn(x, y))
    want = jnp.dot(x.astype(jnp.float32), y.astype(jnp.float32), precision=jax.lax.Precision.HIGHEST)
    check = rec.check(f"pipelined_matmul blocks {block}, {buffers} buffers", out, want, x.dtype)
    trace = next(iter(sorted(logdir.rglob("perfetto_trace.json.gz"))), None)
    regions = trace_regions(json.loads(gzip.decompress(trace.read_bytes()))) if trace else []
    return check, regions, trace


def wait_share(regions: list[Region]) -> float | None:
    """The time on `ep_wait_*` over that and `ep_run_kernel*`: the DMA time compute did not hide."""
    compute = sum(r.duration for r in regions if r.name.startswith("ep_run_kernel"))
    waits = sum(r.duration for r in regions if r.name.startswith("ep_wait"))
    return waits / (compute + waits) if compute + waits else None


CONFIGS = ((TPU_BLOCK, 2), ((512, 512, 1024), 2), (TPU_BLOCK, 3))
"""`(block, buffers)` profiled on a TPU: the lab's pipeline, a larger block, a third buffer."""


def chip(runs: int = 20) -> Any:
    """Each of `CONFIGS` profiled natively: its check, its DMA-wait share, its time per call;
    the first one's regions kept (`extra["regions"]`, from its second run) for the page's timeline."""
    from kernels import _record as rec

    checks, timings, ratios = [], [], []
    extra: dict[str, Any] = {}
    m, n, k = TPU_SHAPE
    x, y = plat.randn(5, (m, k), (k, n), dtype=jnp.bfloat16)
    for block, buffers in CONFIGS:
        name = f"blocks {block}, {buffers} buffers"
        try:
            check, regions, _ = tpu_profile(Path(tempfile.mkdtemp(prefix="pipelining-")), 3, block, buffers)
        except Exception as e:  # noqa: BLE001 - a configuration this jax or chip does not take
            checks.append(rec.Check(f"pipelined_matmul {name}: {type(e).__name__}: {str(e)[:200]}",
                                    "bfloat16", float("inf"), 0.0))
            continue
        checks.append(check)
        share = wait_share(regions)
        if share is not None:
            ratios.append(rec.Ratio(f"{name}: DMA waits over compute + waits", share, at_least=False))
        timings.append(rec.timed(f"pipelined_matmul {m}x{k} @ {k}x{n} bf16, {name}", jax.jit(
            lambda a, b, block=block, buffers=buffers: pipelined_matmul(a, b, block, False, buffers)),
            x, y, runs=runs, flops=2.0 * m * n * k))
        if not extra:
            extra = {"block": list(block), "buffers": buffers, "regions": trimmed(regions)}
    return rec.Measured(tuple(checks), tuple(timings), tuple(ratios), extra=extra)


def trimmed(regions: list[Region], steps: int = 12) -> list[list[Any]]:
    """The regions of one run's first `steps` kernel steps, as `[name, start us, duration us]`
    from that run's first region (the second run: the first one's start may include a warm-up)."""
    runs = [i for i, r in enumerate(regions) if i == 0 or r.start - regions[i - 1].start > 1000.0]
    first = runs[1] if len(runs) > 1 else 0
    kept: list[list[Any]] = []
    computes = 0
    for r in regions[first:]:
        computes += r.name.startswith("ep_run_kernel")
        if computes > steps:
            break
        kept.append([r.name, round(r.start - regions[first].start, 3), round(r.duration, 3)])
    return kept


def overlap(regions: list[Region]) -> list[str]:
    """How to read the regions: DMAs are issued in `ep_copy_in`/`ep_copy_out` and run on their own
    engines; only `ep_wait_*` is time the core spent on a DMA that compute did not hide."""
    total = {name: sum(r.duration for r in regions if r.name == name) for name in sorted({r.name for r in regions})}
    count = {name: sum(r.name == name for r in regions) for name in total}
    lines = [f"{name:22} x{count[name]:<5} {total[name]:10.1f} us" for name in total]
    compute = sum(t for name, t in total.items() if name.startswith("ep_run_kernel"))
    waits = sum(t for name, t in total.items() if name.startswith("ep_wait"))
    if compute:
        lines.append(f"waiting on DMAs is {waits / (compute + waits):.1%} of compute + waits: the rest of "
                     "every transfer ran while the core computed the previous block")
    return lines


TPU_MISSING = (f"no ep_* regions in the trace: libtpu records them only with {REGION_TRACE} in "
               "LIBTPU_INIT_ARGS before the TPU backend starts (restart the runtime and run this first)")
CPU_CANNOT_SHOW = (
    "The TPU interpreter performs each DMA when it starts and logs in program order: the schedule "
    "above says which DMA starts before which compute step, not how long a transfer takes or whether "
    "it overlapped compute. Timing needs the chip: on a TPU runtime this lab takes a jax.profiler "
    "trace of the same pipeline and reads the time the core spends waiting on DMAs.")


def profile_main() -> int:
    """The lab on a TPU: the native pipeline profiled, and its overlap read from the trace."""
    m, n, k = TPU_SHAPE
    logdir = Path(tempfile.mkdtemp(prefix="pipelining-profile-"))
    check, regions, trace = tpu_profile(logdir)
    print(f"pipelining: x ({m}, {k}) @ y ({k}, {n}) bf16 through emit_pipeline, blocks {TPU_BLOCK}; "
          f"{plat.where()}")
    print("  " + check.describe())
    print(f"trace: {trace} (open it in https://ui.perfetto.dev)")
    plat.banner("the first pipeline steps on the core, as the trace recorded them")
    t0 = regions[0].start if regions else 0.0
    for r in regions[:24]:
        print(f"  +{r.start - t0:9.2f} us  {r.name:20} {r.duration:8.2f} us")
    plat.banner("what it shows")
    print("\n".join(overlap(regions)) if regions else TPU_MISSING)
    return 0 if check.passed else 1


# %% The lab's run
def summary(profile: Profile) -> list[str]:
    starts = [e for e in profile.events if e.kind == "start"]
    count = {op: sum(e.operand == op for e in starts) for op in OPERANDS}
    steps = sum(e.kind == "compute" for e in profile.events)
    return [f"compute steps: {steps} (grid {profile.grid})",
            f"DMAs started: x {count['x']}, y {count['y']}, o {count['o']} (write-backs)",
            f"steps whose inputs were prefetched during the previous step: {prefetched_steps(profile.events)}"]


def prefetched_steps(events: tuple[Event, ...] | list[Event]) -> int:
    """Compute steps s >= 1 whose input DMAs all started before compute step s-1."""
    computes = [e for e in events if e.kind == "compute"]
    count = 0
    for prev, cur in zip(computes, computes[1:], strict=False):
        waits = [e for e in events if e.kind == "wait" and e.operand != "o" and prev.tick < e.tick < cur.tick]
        starts = [_start_of(events, w) for w in waits]
        count += bool(waits) and all(s is not None and s.tick < prev.tick for s in starts)
    return count


def _start_of(events: tuple[Event, ...] | list[Event], wait: Event) -> Event | None:
    earlier = [e for e in events if e.kind == "start" and e.tick < wait.tick
               and (e.operand, e.slot, e.region) == (wait.operand, wait.slot, wait.region)]
    return earlier[-1] if earlier else None


def main(argv: list[str] | None = None) -> int:
    p = plat.parser("pipelining", __doc__)
    p.add_argument("--svg", type=Path, help="also write the timeline SVG here")
    args = p.parse_args(argv)
    enable_region_trace()
    if plat.on_tpu():
        return profile_main()
    profile = record()
    print(f"pipelining: x (16, 384) @ y (384, 128) through emit_pipeline, blocks (8, 128, 128); "
          f"the TPU interpreter (TPU v5e tiling), since jax finds no TPU here; max abs error vs jnp "
          f"{profile.error:.2e}")
    plat.banner("the recorded schedule, in program order")
    for e in profile.events:
        print(describe(e))
    plat.banner("what it shows")
    print("\n".join(summary(profile)))
    plat.banner("what a CPU cannot show")
    print(CPU_CANNOT_SHOW)
    if args.svg:
        args.svg.write_text(timeline_svg(profile.events))
        print(f"\nwrote {args.svg}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
