"""EXTRA·C · An autotuned op: the flash kernel wrapped as a tokamax `Op`, tuned and cached.

The track's own lab, not one of the outline's (hence `EXTRA·C`, not a `LAB·` number): it
wraps LAB·3.2's and LAB·3.3's kernels the way the tokamax articles read tokamax's own.

tokamax turns a kernel into a library op in four pieces, all on `tokamax.Op`: `_fwd` runs
the kernel with a config; `_get_heuristics_config` answers when nothing was tuned;
`_get_autotuning_configs` is the ladder of configs worth timing (here every pair of block
sizes from 32 to 128 that divides the sequences); `_get_autotuning_cache_key` is the dispatch
key, computed from the bound arguments' shapes (here the sequence lengths, head dim, dtype
and causality, deliberately not batch or heads, so one tuning serves every batch size).
`op.bind(...).autotune()` runs tokamax's `Autotuner` (compile every config, time each with
its benchmark loop, wallclock on a CPU) and stores the result in the op's autotuning cache
under the dispatch key; the next call with an equal key takes the fastest config from the
cache without tuning again. On a CPU the kernel is interpreted, so the timings rank the
interpreter, not a chip; on a GPU the same code ranks the compiled Triton kernels.

Exercises: tokamax/_src/ops/op.py::Op, tokamax/_src/ops/op.py::Op._get_autotuning_cache_key, tokamax/_src/ops/op.py::Op._get_autotuning_configs, tokamax/_src/ops/op.py::Op._get_heuristics_config, tokamax/_src/ops/op.py::BoundArguments.autotune, tokamax/_src/ops/op.py::BoundArguments.default_config, tokamax/_src/autotuning/autotuner.py::Autotuner, tokamax/_src/autotuning/autotuner.py::AutotuningData, tokamax/_src/autotuning/cache.py::AutotuningCache
"""

# No `from __future__ import annotations`: tokamax reads `_fwd`'s annotations at run time to
# serialise the bound arguments, so they must be types, not strings.
import dataclasses
import math
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import jax
import tokamax
from tokamax._src.autotuning import autotuner as autotuner_lib

from kernels import _platform as plat
from kernels import flash_attention_bwd
from kernels.flash_attention import attention_reference

# %% The op: its configs, its dispatch key, the kernel it wraps
LADDER = (32, 64, 128)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class Config:
    """One rung of the ladder: the kernel's query and key block sizes."""

    block_q: int
    block_k: int


@dataclasses.dataclass(frozen=True)
class DispatchKey(Mapping[str, Any]):
    """What the autotuning cache is keyed by: the shapes that decide which config is fastest.

    Also a read-only mapping of its fields: tokamax 0.0.17 takes a key to be one (its default
    key is an `immutabledict` of the abstract arguments) and logs a cache miss by `dict(key)`."""

    seq_q: int
    seq_k: int
    head_dim: int
    dtype: str
    causal: bool

    def __getitem__(self, name: str) -> Any:
        if name not in self._names():
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def _names(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self))


@dataclasses.dataclass(frozen=True)
class FlashAttentionOp(tokamax.Op[Any, jax.Array, None, Config, DispatchKey]):
    """Flash attention (LAB·3.2's forward, LAB·3.3's backward) as a configurable tokamax op."""

    config_cls: ClassVar[type[Config]] = Config
    supports_symbolic_shapes: ClassVar[bool] = False

    def _fwd(self, q: jax.Array, k: jax.Array, v: jax.Array, *, causal: bool = False,
             return_residuals: bool = False, config: Config) -> tuple[jax.Array, None]:
        del return_residuals  # no residuals: the backward is the kernel's own custom_vjp
        out = flash_attention_bwd.flash_attention(q, k, v, causal=causal, block_q=config.block_q,
                                                  block_k=config.block_k)
        return out, None

    def _get_heuristics_config(self, ba: tokamax.BoundArguments) -> Config:
        q, k, _ = ba.args
        return Config(block_q=math.gcd(q.shape[2], 64), block_k=math.gcd(k.shape[2], 64))

    def _get_autotuning_configs(self, ba: tokamax.BoundArguments) -> set[Config]:
        q, k, _ = ba.args
        return {Config(block_q=bq, block_k=bk) for bq in LADDER for bk in LADDER
                if q.shape[2] % bq == 0 and k.shape[2] % bk == 0}

    def _get_autotuning_cache_key(self, ba: tokamax.BoundArguments) -> DispatchKey:
        q, k, _ = ba.args
        return DispatchKey(q.shape[2], k.shape[2], q.shape[3], str(q.dtype), bool(ba.kwargs["causal"]))


# %% Tuning it with tokamax's Autotuner
def use_flag_defaults() -> None:
    """tokamax reads its options as absl flags, parsing sys.argv on first use; when the program
    is not an absl app (pytest, `reader run`), its argv is not absl's: keep the defaults."""
    from absl import flags

    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()


def quick_autotuner() -> autotuner_lib.Autotuner:
    """tokamax's Autotuner, compiling configs one at a time (the machine has few cores)."""
    return autotuner_lib.Autotuner(compile_executor_fn=None)


@dataclasses.dataclass(frozen=True)
class Tuning:
    key: DispatchKey
    timings_ms: dict[Config, float]
    fastest: Config
    cached_config: Config
    error: float


def tune(op: FlashAttentionOp, seq: int = 128, head_dim: int = 32, causal: bool = True,
         batch: int = 1, heads: int = 2, dtype: Any = jax.numpy.float32) -> Tuning:
    """Autotune at one shape, then call the op and check it used the cached fastest config."""
    use_flag_defaults()
    q, k, v = plat.randn(19, *[(batch, heads, seq, head_dim)] * 3, dtype=dtype)
    bound = op.bind(q, k, v, causal=causal)
    data = bound.autotune(autotuner=quick_autotuner())
    timings = {c: d.median_evaluation_time_ms for c, d in data.items()
               if isinstance(d, tokamax.BenchmarkData)}
    cached = op.bind(q, k, v, causal=causal).default_config
    error = plat.max_abs_error(jax.jit(lambda q, k, v: op(q, k, v, causal=causal))(q, k, v),
                               attention_reference(*(x.astype(jax.numpy.float32) for x in (q, k, v)), causal=causal))
    return Tuning(bound.autotuning_cache_key, timings, data.fastest_config, cached, error)


# %% What the site shows: the kernel lowered
def lowerings() -> list[plat.Lowering]:
    """The op's forward kernel at the smallest config of `LADDER`, lowered for the site (reader/ir)."""
    from kernels.flash_attention import flash_forward, loop_kernel
    q, k, v = plat.randn(31, *[(1, 2, 128, 32)] * 3)
    return [plat.Lowering("forward", loop_kernel, lambda a, b, c: flash_forward(
        a, b, c, causal=True, block_q=LADDER[0], block_k=LADDER[0]), (q, k, v))]


# %% On a TPU: tokamax's autotuner timing compiled configs on the chip
def chip(runs: int = 20) -> Any:
    """The op tuned natively at (1, 8, 2048, 128) bf16, causal: tokamax's timing of each compiled
    config, the fastest config taken from the cache, and the op checked against the reference."""
    from kernels import _record as rec

    op = FlashAttentionOp()
    shape = (1, 8, 2048, 128)
    t = tune(op, seq=shape[2], head_dim=shape[3], heads=shape[1], dtype=jax.numpy.bfloat16)
    checks = [rec.Check("the tuned op vs the jnp reference", "bfloat16", t.error, rec.TOLERANCE["bfloat16"]),
              rec.Check("the next call took the fastest config from the cache", "bfloat16",
                        float(t.cached_config != t.fastest), 0.0)]
    timings = tuple(rec.Timing(f"tokamax Autotuner: block_q={c.block_q} block_k={c.block_k}", ms, ms, ms, 1)
                    for c, ms in sorted(t.timings_ms.items(), key=lambda item: item[1]))
    ratios = (rec.Ratio("slowest config's time over the fastest's", timings[-1].median_ms / timings[0].median_ms),)
    notes = (f"dispatch key {dict(t.key)}; fastest {t.fastest}; each config's time is tokamax's median "
             "(its own benchmark loop), so min and max are that median",)
    return rec.Measured(tuple(checks), timings, ratios, notes=notes)


# %% The lab's run
def main(argv: list[str] | None = None) -> int:
    p = plat.parser("autotuned_op", __doc__)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--head-dim", type=int, default=32)
    args = p.parse_args(argv)
    use_flag_defaults()
    op = FlashAttentionOp()
    print(f"autotuned_op: FlashAttentionOp on (1, 2, {args.seq}, {args.head_dim}) float32, causal; "
          f"{plat.where()}")
    q = plat.randn(0, (1, 2, args.seq, args.head_dim))[0]
    print(f"heuristics config (nothing tuned yet): {op.bind(q, q, q, causal=True).heuristics_config}")
    t = tune(op, seq=args.seq, head_dim=args.head_dim)
    print(f"dispatch key: {t.key}")
    print(f"config ladder timed by tokamax's Autotuner ({len(t.timings_ms)} configs, median ms):")
    for config, ms in sorted(t.timings_ms.items(), key=lambda item: item[1]):
        print(f"  block_q={config.block_q:3} block_k={config.block_k:3}: {ms:8.2f} ms")
    print(f"fastest: {t.fastest}; the next call's config, from the cache: {t.cached_config}")
    batch4 = plat.randn(1, (4, 2, args.seq, args.head_dim))[0]
    print(f"a batch of 4 has the same dispatch key, so it hits the cache too: "
          f"{op.bind(batch4, batch4, batch4, causal=True).default_config}")
    print(f"max abs error of the op vs the jnp reference: {t.error:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
