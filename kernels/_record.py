"""A lab's run on a chip as a record: its checks with their tolerances, its timings beside its
peers', the refusals of its earlier forms, and where it ran (`kernels/runs/<chip>/<lab>.json`).

Imports jax and numpy only (the chip's Python has nothing else): `benchmarks/chip.py` gathers each
TPU lab's `chip()` and writes the records; reader reads them back (`reader/labs/records.py`).
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import platform
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import jax
import numpy as np

SCHEMA = 1
RUNS = Path(__file__).resolve().parent / "runs"
"""Where the committed records live: `runs/<chip slug>/<lab>.json`."""

TOLERANCE = {"float32": 1e-4, "bfloat16": 2e-2}
"""Max abs error allowed per unit of the reference's scale, `max(1, max |reference|)`, by the
dtype the kernel reads: f32 against a reference at `Precision.HIGHEST` differs by rounding
order only; bf16 inputs carry 8 bits of mantissa."""


@dataclass(frozen=True)
class Check:
    """One kernel's result against its reference."""

    name: str
    dtype: str
    error: float
    tolerance: float

    @property
    def passed(self) -> bool:
        return self.error <= self.tolerance

    def describe(self) -> str:
        return (f"{'pass' if self.passed else 'FAIL'}  {self.name} ({self.dtype}): max abs error "
                f"{self.error:.2e}, tolerance {self.tolerance:.1e}")


def check(name: str, got: Any, want: Any, dtype: Any) -> Check:
    """`got` against `want` with `TOLERANCE[dtype]` scaled by the reference's magnitude."""
    a = np.asarray(jax.device_get(got)).astype(np.float32)
    b = np.asarray(jax.device_get(want)).astype(np.float32)
    d = np.abs(a - b)
    error = float(d.max()) if np.isfinite(d).all() else float("inf")
    scale = max(1.0, float(np.abs(b).max()))
    return Check(name, np.dtype(dtype).name, error, TOLERANCE[np.dtype(dtype).name] * scale)


@dataclass(frozen=True)
class Timing:
    """Wall time of one compiled call, over `runs` calls after warm-up, in milliseconds."""

    name: str
    median_ms: float
    min_ms: float
    max_ms: float
    runs: int
    flops: float = 0.0
    """Work of one call (0: not a FLOP count that means anything)."""
    peer: bool = False
    """A peer's time (XLA, the pinned upstream kernel), not the lab's own kernel."""

    @property
    def tflops(self) -> float:
        return self.flops / (self.median_ms * 1e-3) / 1e12 if self.flops else 0.0

    def describe(self) -> str:
        rate = f", {self.tflops:6.1f} TFLOP/s" if self.flops else ""
        return (f"{self.name:44} median {self.median_ms:9.3f} ms (min {self.min_ms:.3f}, max "
                f"{self.max_ms:.3f}, {self.runs} runs){rate}")


def timed(name: str, fn: Callable[..., Any], *args: Any, runs: int = 20, warmup: int = 3,
          flops: float = 0.0, peer: bool = False) -> Timing:
    """`fn(*args)` compiled and run `warmup` times, then timed `runs` times, each to completion."""
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append((time.perf_counter() - start) * 1e3)
    return Timing(name, statistics.median(times), min(times), max(times), runs, flops, peer)


@dataclass(frozen=True)
class Ratio:
    """One figure against its target: `value` (a ratio of two timings, or a share) and whether
    it meets `target` (`at_least` or at most)."""

    name: str
    value: float
    target: float | None = None
    at_least: bool = True
    note: str = ""

    @property
    def meets(self) -> bool | None:
        if self.target is None:
            return None
        return self.value >= self.target if self.at_least else self.value <= self.target

    def describe(self) -> str:
        goal = "" if self.target is None else f" (target {'>=' if self.at_least else '<='} {self.target:g}: " \
               f"{'met' if self.meets else 'NOT met'})"
        return f"{self.name}: {self.value:.3f}{goal}" + (f"; {self.note}" if self.note else "")


def ratio(name: str, mine: Timing, peer: Timing, target: float | None = None, note: str = "") -> Ratio:
    """The peer's time over mine: above 1, the lab's kernel is faster."""
    return Ratio(name, peer.median_ms / mine.median_ms, target, True, note)


@dataclass(frozen=True)
class Refusal:
    """An earlier form of a lab's kernel, kept as a lesson, and what the chip said of it."""

    form: str
    stage: str
    """Where it was refused: "lowering" (Pallas, in Python) or "compile" (the TPU compiler)."""
    message: str


def refusal(form: str, run: Callable[[], Any]) -> Refusal | None:
    """Run an earlier form natively; None if the chip accepted it, else where and why it was refused."""
    try:
        jax.block_until_ready(run())
    except Exception as e:  # noqa: BLE001 - the refusal is the result
        text = str(e).strip()
        compiled = bool(re.search(r"Mosaic|MLIR|XlaRuntimeError|INTERNAL", f"{type(e).__name__}: {text}"))
        lines = [line for line in text.splitlines() if line.strip()]
        message = " ".join(lines[:6]).replace(f"{Path(__file__).resolve().parent}/", "kernels/")
        message = message.split(" ... additional diagnostics")[0]  # then a plea to file a bug
        return Refusal(form, "compile" if compiled else "lowering", f"{type(e).__name__}: {message[:900]}")
    return None


@dataclass(frozen=True)
class Measured:
    """What a lab's `chip()` returns: the record's body."""

    checks: tuple[Check, ...]
    timings: tuple[Timing, ...] = ()
    ratios: tuple[Ratio, ...] = ()
    refusals: tuple[Refusal, ...] = ()
    notes: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    """Lab-specific data a page draws from (a trace's regions, measured roofline points)."""

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)


def chip_slug(kind: str) -> str:
    """"TPU v5 lite" -> "tpu-v5-lite": the record's folder."""
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")


def _version(*names: str) -> str:
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "absent"


def source(lab: str) -> bytes:
    return (Path(__file__).resolve().parent / f"{lab}.py").read_bytes()


def record(lab: str, measured: Measured, command: str) -> dict[str, Any]:
    """The record of `lab`'s run on this process's first device, as JSON data."""
    device = jax.devices()[0]
    return {
        "schema": SCHEMA, "lab": lab, "device_kind": device.device_kind, "platform": device.platform,
        "versions": {"python": platform.python_version(), "jax": jax.__version__,
                     "jaxlib": _version("jaxlib"), "libtpu": _version("libtpu", "libtpu-nightly"),
                     "tokamax": _version("tokamax")},
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source_sha256": hashlib.sha256(source(lab)).hexdigest(), "command": command, "passed": measured.passed,
        "checks": [{**asdict(c), "passed": c.passed} for c in measured.checks],
        "timings": [{**asdict(t), "tflops": round(t.tflops, 3)} for t in measured.timings],
        "ratios": [{**asdict(r), "meets": r.meets} for r in measured.ratios],
        "refusals": [asdict(r) for r in measured.refusals],
        "notes": list(measured.notes), "extra": measured.extra,
        "source": source(lab).decode("utf-8"),
    }


def committed(lab: str, kind: str = "TPU v5 lite") -> dict[str, Any] | None:
    """The committed record of `lab` on `kind` (what a lab's figures draw from), or None."""
    path = RUNS / chip_slug(kind) / f"{lab}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def write(out_dir: Path, lab: str, measured: Measured, command: str) -> Path:
    data = record(lab, measured, command)
    folder = out_dir / chip_slug(data["device_kind"])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{lab}.json"
    path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    return path


def print_measured(measured: Measured, out: Callable[[str], Any] = print) -> None:
    for c in measured.checks:
        out("  " + c.describe())
    for f in measured.refusals:
        out(f"  earlier form {f.form!r}: refused at {f.stage}: {f.message[:300]}")
    for t in measured.timings:
        out("  " + t.describe())
    for r in measured.ratios:
        out("  " + r.describe())
    for n in measured.notes:
        out("  " + n)

