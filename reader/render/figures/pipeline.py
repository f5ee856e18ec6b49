"""The figure of emit_pipeline's DMA schedule, computed by the pinned `Scheduler` itself.

The pinned pipeline.py is executed as a module of its own (its text comes from the corpus, so a
pin move makes the figure again), with `when` made eager. Its `Scheduler` is then driven step by
step with concrete grid indices, in the order `emit_pipeline` calls it (prologue
`initialize_step`, per step `copy_in`, `wait_in`, the body, `copy_out`, `wait_out`,
`advance_slots`, epilogue `finalize_step`), on stand-in buffers that record each DMA the
Scheduler's predicates let through. tests/test_figures_pipeline.py checks the recording
against the TPU interpreter running the real `emit_pipeline`.
"""

from __future__ import annotations

import ast
import dataclasses
import html
import inspect
import sys
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from reader.corpus import Corpus
from reader.errors import Location, ReaderError
from reader.extract.parse import parse_ast
from reader.render.common.figure import Figure, FigureInputs, Maker
from reader.workers import isolated

PIPELINE = "jax/_src/pallas/mosaic/pipeline.py"
OPERANDS = ("x", "o")
"""The figure's pipeline: one input block `x` and one output block `o` per step."""
PHASES = ("copy_in", "wait_in", "body", "copy_out", "wait_out")
"""A loop step's phases, in `emit_pipeline`'s order (the figure's sub-columns)."""
STEPS = 6
BUFFER_COUNTS = (2, 3)
"""The figures' `Buffered(n)`: one child process schedules them all (see `pinned_schedule`)."""


class FigureError(ReaderError):
    """The pinned pipeline could not be read, executed or driven: the figure is not computed at
    these pins."""

    def __reduce__(self) -> tuple[type[FigureError], tuple[str, Location | None, str]]:
        # Raised in the child process: pickled with its location, not just its text.
        return (type(self), (self.message, self.location, self.hint))


SHAPE_HINT = "the pinned pipeline.py changed shape; teach reader/render/figures/pipeline.py its new one"


@dataclass(frozen=True)
class Call:
    """A call the figure's driver makes on the pinned `Scheduler` (`schedule` below)."""

    method: str
    args: tuple[str, ...]
    keywords: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"Scheduler.{self.method}({', '.join([*self.args, *(f'{k}=...' for k in self.keywords)])})"


CALLS = (
    Call("__init__", ("step", "indices", "grid", "grid_offsets", "num_stages"), ("trace_scopes",)),
    Call("initialize_step", ("buffered_ref", "src_ref"), ("step",)),
    *(Call(m, ("buffered_ref", "ref")) for m in ("copy_in", "wait_in", "copy_out", "wait_out")),
    Call("advance_slots", ("buffered_ref",)),
    Call("finalize_step", ("buffered_ref", "dst_ref"), ("lag",)),
)
"""What `schedule` calls on the pinned `Scheduler`: `read_pipeline` checks the pinned class takes
each call before anything runs (tests/test_figures_pipeline.py holds the two to the same calls)."""


@dataclass(frozen=True)
class Dma:
    """One DMA operation the Scheduler issued."""

    op: str
    """copy_in | wait_in | copy_out | wait_out, or body (the kernel body runs `block`)"""
    operand: str
    slot: int
    """The VMEM buffer slot (`counter % buffer_count`)."""
    block: int
    """The block's index along the 1-D grid."""
    step: int
    """-1 in the prologue, the grid step in the loop, `steps` in the epilogue."""


@dataclass(frozen=True)
class _Spec:
    index_map: Callable[..., tuple[int, ...]]


@dataclass(frozen=True)
class StandIn:
    """The part of `BufferedRef` the Scheduler reads, recording the DMAs it is asked for."""

    operand: str
    is_input: bool
    buffer_count: int
    log: list[Dma]
    spec: _Spec
    where: list[int]
    """[current step]: shared with the driver, for the records."""
    copy_in_slot: int = 0
    wait_in_slot: int = 0
    copy_out_slot: int = 0
    wait_out_slot: int = 0
    is_buffered = True
    is_trivial_windowing = False
    has_indirect = False
    use_lookahead = False
    prefetched_count = 0
    await_prefetch = False

    @property
    def is_output(self) -> bool:
        return not self.is_input

    @property
    def in_buffer_count(self) -> int:
        return self.buffer_count if self.is_input else 1

    @property
    def out_buffer_count(self) -> int:
        return 1 if self.is_input else self.buffer_count

    def compute_index(self, *indices: Any) -> tuple[int, ...]:
        return tuple(int(i) for i in self.spec.index_map(*indices))

    def _record(self, op: str, counter: int, indices: Any) -> None:
        block = self.compute_index(*indices)[0]
        self.log.append(Dma(op, self.operand, counter % self.buffer_count, block, self.where[0]))

    def copy_in(self, _src: object, indices: Any) -> None:
        self._record("copy_in", self.copy_in_slot, indices)

    def wait_in(self, _src: object, indices: Any) -> None:
        self._record("wait_in", self.wait_in_slot, indices)

    def copy_out(self, _dst: object, indices: Any) -> None:
        self._record("copy_out", self.copy_out_slot, indices)

    def wait_out(self, _dst: object, indices: Any) -> None:
        self._record("wait_out", self.wait_out_slot, indices)

    def _advance(self, field: str, applies: bool, predicate: Any) -> StandIn:
        if not applies or not bool(predicate):
            return self
        return dataclasses.replace(self, **{field: getattr(self, field) + 1})

    def advance_copy_in_slot(self, predicate: Any = True) -> StandIn:
        return self._advance("copy_in_slot", self.is_input, predicate)

    def advance_wait_in_slot(self, predicate: Any = True) -> StandIn:
        return self._advance("wait_in_slot", self.is_input, predicate)

    def advance_copy_out_slot(self, predicate: Any = True) -> StandIn:
        return self._advance("copy_out_slot", self.is_output, predicate)

    def advance_wait_out_slot(self, predicate: Any = True) -> StandIn:
        return self._advance("wait_out_slot", self.is_output, predicate)


def _eager_when(condition: Any) -> Callable[[Callable[[], None]], None]:
    """`pl.when` on a concrete condition: the branch runs or not (no `lax.cond` tracing)."""
    def wrapped(f: Callable[[], None]) -> None:
        if bool(condition):
            f()
    return wrapped


def pinned_pipeline(text: str, where: Location) -> types.ModuleType:
    """The pinned pipeline.py executed as a module of its own (imports from the installed jax)."""
    module = types.ModuleType("reader_pinned_pipeline")
    module.__file__ = where.path
    sys.modules[module.__name__] = module  # dataclasses look their module up while defining
    try:
        exec(compile(text, where.path, "exec"), module.__dict__)  # noqa: S102 - the pinned source
    except Exception as e:  # the pinned file needs a jax the machine does not have
        line = next((n for f, n in reversed(list(traceback.walk_tb(e.__traceback__)))
                     if f.f_code.co_filename == where.path), None)
        raise FigureError(f"the pinned pipeline.py does not run on the installed jax: "
                          f"{type(e).__name__}: {e}", Location(where.path, line),
                          "install the pinned jax (see pins.toml)") from None
    finally:
        sys.modules.pop(module.__name__, None)
    setattr(module, "when", _eager_when)  # noqa: B010 - the pinned module's own global
    return module


def schedule(module: types.ModuleType, steps: int, buffer_count: int) -> tuple[Dma, ...]:
    """Every DMA the pinned Scheduler issues for a 1-D grid of `steps`, in program order: `x`
    read and `o` written one block per step, both `Buffered(buffer_count)`."""
    import jax.numpy as jnp

    log: list[Dma] = []
    where = [-1]
    spec = _Spec(lambda i: (i,))
    brefs = [StandIn(name, name == "x", buffer_count, log, spec, where) for name in OPERANDS]
    stages = max(2, buffer_count)

    class Eager(module.Scheduler):  # type: ignore[name-defined]
        def _compute_index(self, buffered_ref: StandIn, *indices: Any) -> tuple[int, ...]:
            # The pinned method only caches this call, keyed by the indices (unhashable when concrete).
            return buffered_ref.compute_index(*indices)

    def scheduler(step: int) -> Any:
        return Eager(step, (jnp.int32(step),), (steps,), (0,), stages, trace_scopes=False)

    first = scheduler(0)
    for step in range(stages - 1):
        brefs = [first.initialize_step(b, None, step=step) for b in brefs]
    for step in range(steps):
        where[0] = step
        s = scheduler(step)
        brefs = [s.copy_in(b, None) for b in brefs]
        brefs = [s.wait_in(b, None) for b in brefs]
        log.append(Dma("body", "", -1, step, step))
        brefs = [s.copy_out(b, None) for b in brefs]
        brefs = [s.wait_out(b, None) for b in brefs]
        brefs = [s.advance_slots(b) for b in brefs]
    where[0] = steps
    last = scheduler(steps - 1)
    for lag in range(stages - 2, -1, -1):
        brefs = [last.finalize_step(b, None, lag=lag) for b in brefs]
    return tuple(log)


def pinned_schedule(text: str, where: Location, steps: int, buffer_count: int) -> tuple[Dma, ...]:
    """`schedule` of the pinned pipeline.py. A count of `BUFFER_COUNTS` comes with the others:
    the child process that starts jax costs far more than a schedule."""
    counts = BUFFER_COUNTS if buffer_count in BUFFER_COUNTS else (buffer_count,)
    return pinned_schedules(text, where, steps, counts)[counts.index(buffer_count)]


@lru_cache(maxsize=4)
def pinned_schedules(text: str, where: Location, steps: int,
                     buffer_counts: tuple[int, ...]) -> tuple[tuple[Dma, ...], ...]:
    """`schedule` of the pinned pipeline.py for each of `buffer_counts`, run in one child process
    (once per arguments): executing the file registers its primitives and lowering rules in
    jax's global tables, which must stay as the installed jax made them in this process (the
    rule-table oracle compares them with the pinned source)."""
    return isolated(_child_schedules, text, where, steps, buffer_counts)


def _child_schedules(text: str, where: Location, steps: int,
                     buffer_counts: tuple[int, ...]) -> tuple[tuple[Dma, ...], ...]:
    module = pinned_pipeline(text, where)
    try:
        return tuple(schedule(module, steps, n) for n in buffer_counts)
    except Exception as e:
        failure = pinned_failure(e, where)
        if failure is None:
            raise  # reader's own bug: its traceback stops the build
        raise failure from None


READER = str(Path(__file__).resolve().parents[2]) + "/"
"""reader's own code: an exception raised there is reader's bug, wherever it was called from."""


def pinned_failure(e: BaseException, where: Location) -> FigureError | None:
    """`e` as the pinned code's failure, or None when it is reader's bug. The innermost frame in
    either decides (a library's frames, jax's, are passed over: they raise for their caller): the
    pinned file's, and `e` is a `FigureError` at that line; reader's own, and it is None."""
    for frame, line in reversed(list(traceback.walk_tb(e.__traceback__))):
        name = frame.f_code.co_filename
        if name == where.path:
            return FigureError(f"the pinned Scheduler, driven as emit_pipeline drives it, raised "
                               f"{type(e).__name__}: {e}", Location(where.path, line), SHAPE_HINT)
        if name.startswith(READER):
            return None
    return None


@dataclass(frozen=True)
class Pinned:
    """The pinned pipeline.py, its shape checked: what the figures are drawn from."""

    text: str
    where: Location


def read_pipeline(corpus: Corpus) -> Pinned:
    """The pinned pipeline.py, once its `Scheduler` is known to take every call of `CALLS` and
    the module binds the `when` the figure makes eager; a `FigureError` at the pinned code that
    does not (no jax needed: `reader diff` reports it)."""
    pin = corpus.pin_of(PIPELINE)
    if pin is None or not corpus.has(pin, PIPELINE):
        raise FigureError(f"{PIPELINE} is not in the pins", Location("pins.toml"),
                          "pin jax, or drop the figure")
    text, where = corpus.read_text(pin, PIPELINE), Location(f"{pin}:{PIPELINE}")
    check_shape(text, where)
    return Pinned(text, where)


def check_shape(text: str, where: Location) -> None:
    """`FigureError` at the first place where the pinned module is not what `schedule` drives."""
    tree = parse_ast(text, where.path)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    scheduler = classes.get("Scheduler")
    if scheduler is None:
        raise FigureError("the figure drives the pinned `Scheduler`, and pipeline.py defines no "
                          "class Scheduler", where, SHAPE_HINT)
    if "when" not in _module_names(tree):
        raise FigureError("the figure makes the pinned module's `when` eager, and pipeline.py binds "
                          "no `when`", where, SHAPE_HINT)
    methods = _methods(scheduler, classes)
    for call in CALLS:
        fn = methods.get(call.method)
        if fn is None:
            stem = call.method.split("_")[0]  # finalize_step -> finalize: what it may have become
            near = [m for m in methods if m.split("_")[0] == stem]
            raise FigureError(f"the figure calls {call}, and the pinned Scheduler has no "
                              f"{call.method}" + (f" (it has {', '.join(near)})" if near else ""),
                              Location(where.path, scheduler.lineno), SHAPE_HINT)
        try:
            _signature(fn.args).bind(None, *call.args, **dict.fromkeys(call.keywords))
        except TypeError as e:
            raise FigureError(f"the figure calls {call}, which the pinned "
                              f"Scheduler.{call.method}({ast.unparse(fn.args)}) does not take: {e}",
                              Location(where.path, fn.lineno), SHAPE_HINT) from None


def _module_names(tree: ast.Module) -> set[str]:
    """The names the module binds at its top level (imports, assignments, definitions)."""
    out: set[str] = set()
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).partition(".")[0] for a in n.names}
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            out |= {t.id for t in targets if isinstance(t, ast.Name)}
    return out


def _methods(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> dict[str, ast.FunctionDef]:
    """The methods of `cls` and of its bases defined in the same module, the nearest first."""
    out: dict[str, ast.FunctionDef] = {}
    for base in reversed([b.id for b in cls.bases if isinstance(b, ast.Name) and b.id in classes]):
        out.update(_methods(classes[base], classes))
    out.update({n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)})
    return out


def _signature(args: ast.arguments) -> inspect.Signature:
    """A `def`'s parameters as `inspect` has them (a default stands in: only its presence counts)."""
    kind = inspect.Parameter
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    params = [kind(a.arg, kind.POSITIONAL_ONLY if i < len(args.posonlyargs) else kind.POSITIONAL_OR_KEYWORD,
                   default=kind.empty if d is None else None)
              for i, (a, d) in enumerate(zip(positional, defaults, strict=True))]
    if args.vararg:
        params.append(kind(args.vararg.arg, kind.VAR_POSITIONAL))
    params += [kind(a.arg, kind.KEYWORD_ONLY, default=kind.empty if d is None else None)
               for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg:
        params.append(kind(args.kwarg.arg, kind.VAR_KEYWORD))
    return inspect.Signature(params)


def draw_timeline(pinned: Pinned, _inputs: FigureInputs, buffer_count: int) -> Figure:
    """The figure `pipeline-buffered-N`: the schedule of a 1-D grid as slots x steps."""
    dmas = pinned_schedule(pinned.text, pinned.where, STEPS, buffer_count)
    return Figure(timeline_svg(dmas, STEPS, buffer_count))


def pipeline_timeline(buffer_count: int) -> Maker[Pinned]:
    """The maker of `pipeline-buffered-N`."""
    return Maker(read_pipeline, partial(draw_timeline, buffer_count=buffer_count))


_COLORS = {"x": "#1f77b4", "o": "#d62728"}


def timeline_svg(dmas: tuple[Dma, ...], steps: int, buffer_count: int) -> str:
    """One row per buffer slot, one column per step (prologue and epilogue at the ends), each
    split into the step's phases; a DMA is a bar from the phase it is issued in to its wait."""
    rows = [(op, slot) for op in OPERANDS for slot in range(buffer_count)]
    sub, left, top, row_h = 14, 92, 44, 24
    col = sub * len(PHASES)
    cols = ["prologue", *(f"step {i}" for i in range(steps)), "epilogue"]
    width, height = left + col * len(cols) + 8, top + row_h * (len(rows) + 1) + 30

    def x_of(step: int, phase: str) -> int:
        return left + (step + 1) * col + PHASES.index(phase) * sub

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" role="img" class="rd-pipeline-timeline" '
           f'font-family="sans-serif" font-size="11">',
           f"<title>emit_pipeline with Buffered({buffer_count}): DMAs by slot and step</title>"]
    for c, name in enumerate(cols):
        x = left + c * col
        out.append(f'<rect x="{x}" y="{top - 18}" width="{col}" height="{row_h * (len(rows) + 1) + 18}" '
                   f'fill="{"#f4f4f4" if c % 2 else "#fff"}"/>')
        out.append(f'<text x="{x + col / 2}" y="{top - 6}" text-anchor="middle">{name}</text>')
    for r, (op, slot) in enumerate(rows):
        out.append(f'<text x="{left - 6}" y="{top + r * row_h + 16}" text-anchor="end">'
                   f"{op} slot {slot}</text>")
    out += _bars(dmas, rows, x_of, top, row_h, sub, steps)
    y = top + len(rows) * row_h
    out.append(f'<text x="{left - 6}" y="{y + 16}" text-anchor="end">body</text>')
    for d in dmas:
        if d.op == "body":
            out.append(f'<rect x="{x_of(d.step, "body")}" y="{y + 4}" width="{sub}" '
                       f'height="{row_h - 8}" fill="#444"><title>body runs on block {d.block}'
                       "</title></rect>")
    out.append(f'<text x="{left}" y="{height - 8}">bar: DMA from issue (|&gt;) to wait (&gt;|); '
               "label: block; sub-columns: copy_in, wait_in, body, copy_out, wait_out</text>")
    return "".join(out) + "</svg>"


def _bars(dmas: tuple[Dma, ...], rows: list[tuple[str, int]], x_of: Callable[[int, str], int],
          top: int, row_h: int, sub: int, steps: int) -> list[str]:
    out = []
    issued: dict[tuple[str, int], Dma] = {}
    for d in dmas:
        if d.op == "body":
            continue
        if d.op.startswith("copy"):
            issued[(d.operand, d.slot)] = d
            continue
        start = issued.pop((d.operand, d.slot), None)
        if start is None:
            continue
        r = rows.index((d.operand, d.slot))
        x0 = x_of(start.step, start.op)
        x1 = x_of(d.step, d.op if d.step < steps else "copy_in") + sub
        y = top + r * row_h + 4
        what = "read" if d.operand == "x" else "written back"
        out.append(f'<rect x="{x0}" y="{y}" width="{x1 - x0}" height="{row_h - 8}" rx="3" '
                   f'fill="{_COLORS[d.operand]}" fill-opacity="0.8"><title>{html.escape(d.operand)} '
                   f"block {d.block} {what}: issued at {_when(start, steps)}, waited at "
                   f"{_when(d, steps)}</title></rect>")
        out.append(f'<text x="{x0 + 3}" y="{y + 12}" fill="white" font-size="10">{d.block}</text>')
    return out


def _when(d: Dma, steps: int) -> str:
    if d.step < 0:
        return "the prologue"
    return "the epilogue" if d.step >= steps else f"step {d.step} ({d.op})"
