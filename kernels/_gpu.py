"""Where a GPU lab (LAB·2.1, LAB·2.2, EXTRA·A) runs, and what its host's jax lacks.

Its kernels are built for a GPU (Triton or Mosaic GPU compiler parameters), so they run natively
on a GPU only. Anywhere else, a TPU host included, they run interpreted on the host's CPU and are
lowered for CUDA with an abstract GPU (`_platform.lowering_target`), as on a host without an
accelerator: a TPU would build them as Mosaic TPU calls with GPU parameters, which it refuses.
What a package or a jax version lacks is said in one line (`MissingPart`), never a traceback."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from importlib import import_module
from typing import Any

import jax

from kernels import _platform as plat

PIP_NAMES = {"absl": "absl-py"}
"""The pip distribution of a module whose name differs from it."""


class MissingPart(Exception):
    """A part of a lab this host's packages or jax version cannot run, with the one line that says why."""


def native() -> bool:
    """True only on a GPU (or building for one, `TARGET("gpu")`)."""
    return plat.on_gpu()


def interpret() -> bool:
    """`interpret=` for a GPU lab's `pallas_call`: False on a GPU only."""
    return not native()


@contextlib.contextmanager
def host() -> Iterator[None]:
    """Runs a GPU lab's kernels where they run: on the default device of a GPU or CPU host, on
    the CPU of any other (a TPU host)."""
    if jax.default_backend() in ("gpu", "cpu"):
        yield
        return
    # The process-wide default, not `jax.default_device`'s, which holds for this thread only: the
    # Mosaic GPU interpreter runs each GPU thread's callbacks on threads of its own, and on a TPU
    # host their arrays went to the TPU (jax 0.10.2: "Barrier remains allocated", then an abort).
    before = jax.config.jax_default_device
    jax.config.update("jax_default_device", jax.devices("cpu")[0])
    try:
        yield
    finally:
        jax.config.update("jax_default_device", before)


def where() -> str:
    """One line saying how a GPU lab runs its kernels here, and why."""
    if native():
        return plat.where()
    backend = jax.default_backend()
    if backend == "cpu":
        return "interpret mode on cpu, since jax finds no GPU here"
    return (f"interpret mode on this host's cpu, since jax finds no GPU here (its {backend} runs the "
            "TPU labs; these kernels are built for a GPU)")


def missing_module(error: ModuleNotFoundError, needed_by: str) -> MissingPart:
    """The one line for a package an import lacked, with the pip command that installs it."""
    name = (error.name or "?").split(".")[0]
    return MissingPart(f"{needed_by} needs the package {PIP_NAMES.get(name, name)}, not installed here "
                       f"(pip install {PIP_NAMES.get(name, name)})")


def mosaic_gpu() -> Any:
    """`jax.experimental.pallas.mosaic_gpu`; `MissingPart` when a package it imports is absent (at
    jax 0.10.2 it imports absl-py, which jax does not require)."""
    try:
        return import_module("jax.experimental.pallas.mosaic_gpu")
    except ModuleNotFoundError as e:
        raise missing_module(e, "Mosaic GPU (jax.experimental.pallas.mosaic_gpu)") from None


def mosaic_gpu_debug() -> None:
    """`MissingPart` unless this jax's `plgpu.kernel` takes `debug=` (which prints the Mosaic GPU
    module; jax 0.10.2's does not, the pinned 0.12.0.1's does)."""
    if "debug" not in inspect.signature(mosaic_gpu().kernel).parameters:
        raise MissingPart(f"jax {jax.__version__}'s plgpu.kernel takes no debug=, which prints the "
                          "Mosaic GPU module (the pinned jax 0.12.0.1's does)")


def interpret_gpu_params(threads: int = 1) -> Any:
    """The GPU interpreter's parameters, `threads` simulated warpgroups. jax 0.12.0.1 exports them
    as `plgpu.InterpretGPUParams`; jax 0.10.2 has them, wired into `pallas_call`, but unexported."""
    plgpu = mosaic_gpu()
    if hasattr(plgpu, "InterpretGPUParams"):
        return plgpu.InterpretGPUParams(num_cores_or_threads=threads)
    from jax._src.pallas.mosaic_gpu.interpret import params
    return params.InterpretGPUParams(num_cores_or_threads=threads)


def printing(debug: bool) -> dict[str, Any]:
    """`plgpu.kernel`'s `debug=`, passed only when set (jax 0.10.2's takes none)."""
    return {"debug": True} if debug else {}
