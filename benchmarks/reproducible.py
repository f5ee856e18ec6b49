"""Two fresh clones built on this machine, each with a cache of its own, give byte-identical sites,
whatever the cache held before the build.

    python benchmarks/reproducible.py [--rev REV] [--keep]

Clones the repository's committed tree at REV (default HEAD) twice into a temporary folder and
builds each with `python -m reader build`: this interpreter and its installed libraries (the
versions requirements.lock pins), each clone's own code (PYTHONPATH), an empty cache of its own
(READER_CACHE) filled from the installed distributions or the release archives, and a different
PYTHONHASHSEED. The two orders a newcomer takes: the first clone is built straight away, the
second after `reader fetch` (which fetches the current pins only, so the older editions' pins come
after them there and before them in a build straight away). Then it compares every file of the two sites by sha256 and prints each build's
time, the file count and the differences (at most 20). Exit 0 when the sites are identical, 1 when
they differ, 2 when a build fails. It takes two cold builds (about 3 minutes here).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def digest(site: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under `site`."""
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def build(clone: Path, cache: Path, seed: str, fetch_first: bool) -> float:
    """A cold `reader build` of `clone` with its own code and cache (`reader fetch` first with
    `fetch_first`); returns its wall time."""
    env = dict(os.environ, PYTHONPATH=str(clone), READER_CACHE=str(cache), PYTHONHASHSEED=seed)
    env.pop("READER_SITE_URL", None)
    used = subprocess.run([sys.executable, "-c", "import reader; print(reader.__file__)"], cwd=clone,
                          env=env, capture_output=True, text=True, check=True).stdout.strip()
    if not used.startswith(str(clone)):
        sys.exit(f"reader would run from {used}, not from the clone {clone}")
    start = time.perf_counter()
    steps = [["fetch", "--quiet"]] if fetch_first else []
    for step in [*steps, ["build", "--quiet"]]:
        done = subprocess.run([sys.executable, "-m", "reader", *step], cwd=clone, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            break
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        sys.exit(2)
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the commit to clone (default HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clones, caches and sites")
    args = parser.parse_args()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.rev], capture_output=True,
                            text=True, check=True).stdout.strip()  # once: HEAD may move meanwhile
    print(f"building {commit} twice")
    work = Path(tempfile.mkdtemp(prefix="reader-repro-"))
    try:
        sites = []
        for n, seed, fetch_first in ((1, "1", False), (2, "2", True)):
            clone = work / f"clone{n}"
            subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
            subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", commit], check=True)
            seconds = build(clone, work / f"cache{n}", seed, fetch_first)
            sites.append(digest(clone / "site"))
            how = "after reader fetch" if fetch_first else "straight away"
            print(f"clone {n}: built {how}: {len(sites[-1])} files in {seconds:.1f} s (cache {work / f'cache{n}'})")
        first, second = sites
        differ = sorted(p for p in first.keys() | second.keys() if first.get(p) != second.get(p))
        if not differ:
            print(f"the two sites are byte-identical: {len(first)} files")
            return 0
        print(f"the two sites differ in {len(differ)} of {len(first | second)} files:")
        for path in differ[:20]:
            print(f"  {path}: {'absent' if path not in first else first[path][:12]} / "
                  f"{'absent' if path not in second else second[path][:12]}")
        return 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
