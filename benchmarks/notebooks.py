"""Each lab's notebook run top to bottom on this machine (nbclient, a fresh kernel each, one at a
time), against the lab run as a module (`python -m kernels.LAB`), in seconds.

    python benchmarks/notebooks.py [LAB ...]

The notebook's time includes the kernel's start and the setup cell (which installs nothing where
the pinned releases are installed, as here); on a CPU the kernels run in interpret mode. Nothing
here asserts: the CI budget (the whole of .ci/run under 20 minutes) is printed beside the total.
Run it with the machine as quiet as you can: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kernels import LABS  # noqa: E402
from reader.children import run_notebook  # noqa: E402
from reader.labs.notebook import notebook_path  # noqa: E402


def module_seconds(name: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", f"kernels.{name}"], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("labs", nargs="*", default=list(LABS), help="labs to run (default: all)")
    args = p.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'lab':22} {'notebook':>9} {'module':>8}")
    total = 0.0
    for name in args.labs:
        with tempfile.TemporaryDirectory() as tmp:
            _, seconds = run_notebook(ROOT / notebook_path(name), Path(tmp))
        total += seconds
        print(f"{name:22} {seconds:8.1f}s {module_seconds(name):7.1f}s", flush=True)
    print(f"{'all, one at a time':22} {total:8.1f}s   (CI target: all of .ci/run under 20 min)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
