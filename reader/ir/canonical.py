"""The pinned kernels the articles read, lowered with locations in the pinned files (imports jax).

`documents(root)` gives one lowered document (the format in reader/render/ir/lowered.py) per
kernel, which the artifacts' child process writes as `<name>.json` (reader/labs/child.py): jax's TPU flash attention forward, splash attention with a small causal mask (both
Mosaic TPU), and tokamax's sm90 attention (Mosaic GPU, for an abstract H100: compute
capability 9.0). jax treats its own files as library frames, left out of locations, so the
kernels' folders are registered as user code first (`lower.include_pinned`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp

from reader.ir import lower

GPU_KIND = "NVIDIA H100"
"""The abstract device the sm90 kernel is lowered for (an H100 SXM: 132 SMs, sm_90)."""


@dataclass(frozen=True, eq=False)
class Canonical:
    """A `Lowering` (kernels/_platform.py) for one pinned kernel."""

    name: str
    kernel: Callable[..., Any]
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    backends: tuple[str, ...]
    variants: dict[str, Callable[..., Any]] = field(default_factory=dict)

    @contextlib.contextmanager
    def building(self, backend: str) -> Iterator[None]:
        if lower.PLATFORMS[backend] != "cuda":
            yield
            return
        device = jax.sharding.AbstractDevice(GPU_KIND, 132, "cuda")
        mesh = jax.sharding.AbstractMesh((1,), ("gpu",), abstract_device=device)
        with jax.sharding.use_abstract_mesh(mesh), _sm90():
            yield


@contextlib.contextmanager
def _sm90() -> Iterator[None]:
    """tokamax asks the local device whether it is an sm90 GPU; answer for the abstract H100."""
    from tokamax._src import gpu_utils
    saved = {name: getattr(gpu_utils, name) for name in ("has_mosaic_gpu_support", "is_sm80", "is_sm90", "is_sm100")}
    answers = {"has_mosaic_gpu_support": True, "is_sm80": False, "is_sm90": True, "is_sm100": False}
    for name, answer in answers.items():
        setattr(gpu_utils, name, lambda *a, _answer=answer, **k: _answer)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(gpu_utils, name, value)


def flash_attention() -> Canonical:
    from jax.experimental.pallas.ops.tpu import flash_attention as fa
    q, k, v = (jnp.zeros((1, 2, 256, 128), jnp.float32) for _ in range(3))
    sizes = fa.BlockSizes(block_q=128, block_k_major=128, block_k=128, block_b=1)
    return Canonical("flash_attention", fa._flash_attention_kernel,
                     lambda a, b, c: fa.flash_attention(a, b, c, causal=True, block_sizes=sizes),
                     (q, k, v), ("jaxpr", "mosaic_tpu"))


def splash_attention() -> Canonical:
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as splash
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as masks
    heads, seq, dim = 2, 256, 128
    mask = masks.MultiHeadMask([masks.CausalMask((seq, seq)) for _ in range(heads)])
    sizes = splash.BlockSizes(block_q=128, block_kv=128, block_kv_compute=128)
    kernel = splash.make_splash_mha(mask, head_shards=1, q_seq_shards=1, block_sizes=sizes)
    q, k, v = (jnp.zeros((heads, seq, dim), jnp.float32) for _ in range(3))
    return Canonical("splash_attention", splash.flash_attention_kernel, kernel, (q, k, v), ("jaxpr", "mosaic_tpu"))


def sm90_attention() -> Canonical:
    from tokamax._src.ops.attention import pallas_mosaic_gpu as mgpu
    from tokamax._src.ops.attention import pallas_mosaic_gpu_kernel_sm90 as sm90
    q, k, v = (jnp.zeros((1, 256, 2, 128), jnp.bfloat16) for _ in range(3))
    op = mgpu.PallasMosaicGpuFlashAttention()
    config = sm90.Config(block_q=64, block_kv=64, num_stages=2)
    return Canonical("sm90_attention", sm90.flash_attention_kernel,
                     lambda a, b, c: op.replace(config=config)(a, b, c, is_causal=True),
                     (q, k, v), ("mosaic_gpu",))


KERNELS: dict[str, Callable[[], Canonical]] = {
    "flash_attention": flash_attention, "splash_attention": splash_attention, "sm90_attention": sm90_attention}


def documents(root: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each canonical kernel's name and lowered document (the format in reader/render/ir/lowered.py),
    one at a time; a kernel that fails to build records its error."""
    locate = lower.locator(root)
    for name, make in KERNELS.items():
        try:
            modules = lower.lower_all([make()], locate)
        except Exception as e:  # noqa: BLE001 - recorded for the page
            modules = [{"id": name, "title": name, "backend": "jaxpr", "kernel": name, "text": "",
                        "ops": [], "error": lower.refusal(e, locate)}]
        yield name, lower.document(modules)
