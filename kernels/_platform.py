"""Where a lab runs: native on a GPU or a TPU, interpreted elsewhere; and small helpers every lab
shares."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

NO_GPU_REASON = "no GPU: jax.default_backend() is not 'gpu' on this machine"

GPU_KIND = "NVIDIA H100"
"""The GPU a host without one lowers for. At jax 0.12.0.1 the GPU lowerings ask the device
which GPU they target (`triton/gpu_info.py::get_gpu_info`); with no GPU and no abstract
device they raise "No supported GPU devices found, please specify an abstract GPU device"."""

TARGET = jax.make_user_context(None)
"""`with TARGET("gpu"):` builds the native GPU kernels whatever the backend (to lower them for
`lowering_platforms=("cuda",)` on a CPU host); `with TARGET("interpret"):` builds interpreted
ones (for host devices on a GPU machine); `TARGET("tpu")` native kernels without GPU compiler
parameters, `TARGET("mosaic_gpu")` native ones with Mosaic GPU's (to lower them, see
`Lowering`). Part of jit's cache key, so no stale traces."""


def on_gpu() -> bool:
    """True when jax runs on a GPU, where the labs' kernels compile natively (Triton)."""
    if TARGET.value is not None:
        return TARGET.value in ("gpu", "mosaic_gpu")
    return jax.default_backend() == "gpu"


def on_tpu() -> bool:
    """True when jax runs on a TPU (or builds for one, `TARGET("tpu")`): kernels compile with Mosaic."""
    if TARGET.value is not None:
        return TARGET.value == "tpu"
    return jax.default_backend() == "tpu"


def interpret() -> bool:
    """`interpret=` for a portable kernel: native on a GPU or a TPU, the HLO interpreter elsewhere."""
    return not on_gpu() and not on_tpu()


def compiler_params(num_warps: int = 4, num_stages: int = 2) -> Any:
    """On a GPU the Triton backend's parameters; None elsewhere. In jax 0.12.0.1 a GPU
    `pallas_call` always lowers to Triton (deprecated since jax 0.11.0, with a warning); Mosaic
    GPU is reached through `plgpu.kernel` only."""
    if not on_gpu():
        return None
    if TARGET.value == "mosaic_gpu":
        from jax.experimental.pallas import mosaic_gpu as plgpu
        return plgpu.CompilerParams()
    from jax.experimental.pallas import triton as pltriton
    return pltriton.CompilerParams(num_warps=num_warps, num_stages=num_stages)


def lowering_target(platform: str) -> contextlib.AbstractContextManager[Any]:
    """Where lowering for `platform` needs a device this host lacks, an abstract one-device mesh
    whose device is that target (a `GPU_KIND` GPU for cuda); nothing otherwise."""
    if platform not in ("cuda", "rocm") or jax.default_backend() == "gpu":
        return contextlib.nullcontext()
    # num_cores: an H100 SXM has 132 streaming multiprocessors (a GPU device's `core_count`).
    device = jax.sharding.AbstractDevice(GPU_KIND, 132, platform)
    return jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((1,), ("gpu",), abstract_device=device))


def lower(fn: Any, args: tuple[Any, ...], platform: str) -> Any:
    """`fn` traced and lowered for `platform` (`jax.stages.Lowered`), on any host (no compile)."""
    with lowering_target(platform):
        return jax.jit(fn).trace(*args).lower(lowering_platforms=(platform,))


BACKENDS = ("jaxpr", "mosaic_tpu", "mosaic_gpu", "triton")
PALLAS_CALL = ("jaxpr", "mosaic_tpu", "triton")
"""The backends a portable `pallas_call` kernel lowers through: at jax 0.12.0.1 a GPU `pallas_call`
lowers to Triton only (Mosaic GPU is reached through `plgpu.kernel`)."""
TPU_KIND = "TPU v5 lite"
"""The TPU a host without one lowers for (a v5e: `device_kind` "TPU v5 lite")."""
_BUILD = {"jaxpr": ("tpu", "tpu"), "mosaic_tpu": ("tpu", "tpu"), "mosaic_gpu": ("mosaic_gpu", "cuda"),
          "triton": ("gpu", "cuda")}


@dataclasses.dataclass(frozen=True, eq=False)
class Lowering:
    """A kernel a lab shows lowered (`lowerings()`): `fn(*args)` makes its `pallas_call`(s),
    built natively for each backend (`building`); `variants` replaces `fn` for one backend.
    `backends` left out: `PALLAS_CALL`, and Mosaic GPU too where a variant is written for it."""

    name: str
    kernel: Callable[..., Any]
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    backends: tuple[str, ...] = ()
    variants: Mapping[str, Callable[..., Any]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.backends:
            object.__setattr__(self, "backends", BACKENDS if "mosaic_gpu" in self.variants else PALLAS_CALL)

    @contextlib.contextmanager
    def building(self, backend: str) -> Iterator[None]:
        """Kernels native for `backend`, lowered on any host ("jaxpr": the TPU-native trace)."""
        target, platform = _BUILD[backend]
        with TARGET(target), lowering_target(platform):
            if platform != "tpu":
                yield
                return
            # The TPU lowering reads the chip's tiling from the device: an abstract TPU v5e.
            device = jax.sharding.AbstractDevice(TPU_KIND, 1, "tpu")
            with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((1,), ("tpu",), abstract_device=device)):
                yield


def lower_for_gpu(fn: Any, *args: Any) -> str:
    """The StableHLO of `fn` built for a GPU and lowered for CUDA, on any host (no compile)."""
    with TARGET("gpu"):
        return lower(fn, args, "cuda").as_text()


def where() -> str:
    """One line saying how this run executes its kernels, and why."""
    if on_gpu():
        return (f"native on {jax.devices()[0].device_kind} (Pallas Triton backend, deprecated since jax "
                "0.11.0), since jax's default backend is a GPU")
    if on_tpu():
        return f"native on {jax.devices()[0].device_kind} (Mosaic TPU), since jax's default backend is a TPU"
    return f"interpret mode on {jax.default_backend()}, since jax finds no GPU or TPU here"


def tpu_where() -> str:
    """`where()` for a TPU-only kernel: native on a TPU, the TPU interpreter anywhere else."""
    if on_tpu():
        return where()
    return f"in the TPU interpreter on {jax.default_backend()}, since jax finds no TPU here"


def max_abs_error(a: Any, b: Any) -> float:
    """Max |a - b| in float32; inf when either holds a NaN (XLA's max may drop NaNs)."""
    d = np.abs(as_numpy(a).astype(np.float32) - as_numpy(b).astype(np.float32))
    return float(d.max()) if np.isfinite(d).all() else float("inf")


def randn(seed: int, *shapes: tuple[int, ...], dtype: Any = jnp.float32) -> list[jax.Array]:
    """Deterministic normal arrays, one per shape (drawn by numpy: jax.random would compile its
    generator once per shape, most of a small lab's run on a CPU)."""
    rng = np.random.default_rng(seed)
    return [jnp.asarray(rng.standard_normal(s, dtype=np.float32).astype(dtype)) for s in shapes]


def pallas_calls(jaxpr: Any) -> Iterator[Any]:
    """Every `pallas_call` equation in a (closed) jaxpr, searching nested jaxprs too."""
    inner = getattr(jaxpr, "jaxpr", jaxpr)
    for eqn in inner.eqns:
        if eqn.primitive.name == "pallas_call":
            yield eqn
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                if hasattr(sub, "eqns") or hasattr(getattr(sub, "jaxpr", None), "eqns"):
                    yield from pallas_calls(sub)


def jaxpr_pair(fn: Any, *args: Any) -> tuple[str, str]:
    """`(outer jaxpr, kernel jaxpr)` of a function that makes exactly one pallas_call."""
    closed = jax.make_jaxpr(fn)(*args)
    calls = list(pallas_calls(closed))
    if len(calls) != 1:
        raise ValueError(f"expected one pallas_call, found {len(calls)}")
    return str(closed), str(calls[0].params["jaxpr"])


def write(out_dir: Path, name: str, text: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / name
    path.write_text(text if text.endswith("\n") else text + "\n")
    return path


def parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """A lab's argument parser; its description is the first line of the lab's docstring."""
    first = (doc or "").strip().splitlines()[0] if doc else ""
    return argparse.ArgumentParser(prog=f"python -m kernels.{prog}", description=first)


def banner(title: str) -> None:
    print(f"\n== {title} ==")


def as_numpy(x: Any) -> np.ndarray:
    return np.asarray(jax.device_get(x))


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def log_lines(*names: str) -> Iterator[list[str]]:
    """The messages the named loggers emit (INFO and up) inside the block, kept from the console
    ("" names the root logger)."""
    handler = _Lines()
    saved = []
    for logger in map(logging.getLogger, names):
        saved.append((logger, logger.level, logger.propagate))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    try:
        yield handler.lines
    finally:
        for logger, level, propagate in saved:
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate


# %% Host devices: a ring of n devices on a machine that has fewer
CHILD_MARKER = "KERNELS_HOST_DEVICES_CHILD"
"""Set in the child python `with_host_devices` starts, so that it does not start another."""


def host_mesh(n: int, axis: str) -> jax.sharding.Mesh:
    """A one-axis mesh of n host (CPU) devices."""
    devices = jax.devices("cpu")
    if len(devices) < n:
        raise RuntimeError(f"{n} CPU devices needed, this process has {len(devices)}: start python with "
                           f"XLA_FLAGS=--xla_force_host_platform_device_count={n}")
    return jax.sharding.Mesh(devices[:n], (axis,))


def request_cpu_devices(n: int) -> bool:
    """Ask for n host devices if jax has not started its backends yet; True if that is in effect."""
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        jax.config.update("jax_num_cpu_devices", n)
    return len(jax.devices("cpu")) >= n


def rerun_with_devices(module: str, n: int, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run `python -m <module> argv` in a child python whose XLA_FLAGS give it n host devices."""
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={n}".strip()
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, XLA_FLAGS=flags, JAX_PLATFORMS="cpu", **{CHILD_MARKER: "1"},
               PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-m", module, *argv], env=env, capture_output=True, text=True,
                          check=False)


def with_host_devices(module: str, n: int, argv: list[str]) -> int | None:
    """None when this process has n host devices (asked for before jax's backends started);
    otherwise the exit status of the lab run again in a child python that has them, its output
    passed on."""
    if request_cpu_devices(n):
        return None
    if os.environ.get(CHILD_MARKER):
        print(f"{module}: could not get {n} host devices", file=sys.stderr)
        return 1
    done = rerun_with_devices(module, n, argv)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return done.returncode
