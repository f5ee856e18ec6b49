"""Every TPU lab on a TPU, in one process: each lab's `chip()` checks its kernels natively, times
them beside their peers (XLA, the pinned upstream kernels) and records the run as
`<out>/<chip>/<lab>.json`; then every figure is printed against its target.

    python3 benchmarks/chip.py [--out DIR] [--only LAB ...] [--runs N]

Runs on a TPU only (exit 2 elsewhere); with nothing but jax and numpy (and tokamax for
EXTRA·C), as the lent chip has them. Commit the records under `kernels/runs/` (the default
`--out`): the lab pages show them, and `reader check` reports one whose lab changed since.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TPU_LABS = ("first_kernels", "tiled_matmul", "pipelining", "flash_attention", "flash_attention_bwd",
            "block_sparse", "ring_attention", "reduce_scatter", "autotuned_op")
"""The labs with a `chip()`, in the track's order."""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/chip.py", description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "kernels" / "runs", help="where records go")
    p.add_argument("--only", nargs="+", choices=TPU_LABS, default=TPU_LABS, metavar="LAB")
    p.add_argument("--runs", type=int, default=20, help="timed runs per figure, after warm-up (at least 20)")
    args = p.parse_args(argv)

    from kernels import pipelining
    pipelining.enable_region_trace()  # before the TPU backend starts: libtpu reads it once
    import jax

    from kernels import _record as rec
    if jax.default_backend() != "tpu":
        print(f"benchmarks/chip.py: jax's backend is {jax.default_backend()!r}, not a TPU: the labs' "
              "figures are measured on a chip (`python -m kernels.LAB` runs a lab here)", file=sys.stderr)
        return 2
    device = jax.devices()[0]
    print(f"chip: {device.device_kind}, jax {jax.__version__}; {args.runs} timed runs per figure")
    failed, ratios = [], []
    for name in args.only:
        print(f"\n== {name} ==", flush=True)
        start = time.perf_counter()
        try:
            measured = importlib.import_module(f"kernels.{name}").chip(runs=args.runs)
        except Exception as e:  # noqa: BLE001 - one lab's failure must not lose the others' records
            traceback.print_exc()
            print(f"  FAILED: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}")
            failed.append(name)
            continue
        rec.print_measured(measured)
        path = rec.write(args.out, name, measured, f"python3 benchmarks/chip.py --only {name}")
        print(f"  {'passed' if measured.passed else 'CHECK FAILED'}; wrote {path} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
        failed += [] if measured.passed else [name]
        ratios += [(name, r) for r in measured.ratios]
    print("\n== figures against their targets ==")
    for name, r in ratios:
        print(f"  {name:20} {r.describe()}")
    print(f"\n{len(args.only) - len(failed)} of {len(args.only)} labs passed their checks natively"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
