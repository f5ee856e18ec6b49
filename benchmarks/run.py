"""Benchmarks: reader against a peer, side by side on this machine, printed as ratios.

    python benchmarks/run.py [--only NAME ...]

Each section runs reader and its peer in the same process tree, one after the other, and prints
the two numbers and their ratio. Nothing here asserts: targets are read off the output.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SECTIONS: dict[str, Callable[[Path], None]] = {}


def section(fn: Callable[[Path], None]) -> Callable[[Path], None]:
    SECTIONS[fn.__name__] = fn
    return fn


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> tuple[float, int, str]:
    """Wall seconds, peak RSS of the child in MB (from /usr/bin/time), and its output."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "MAXRSS=%M", *cmd], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"benchmark command failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    rss = int(m.group(1)) // 1024 if (m := re.search(r"MAXRSS=(\d+)", done.stderr)) else 0
    return wall, rss, done.stdout


def row(label: str, ours: float, peer: float, unit: str, peer_name: str) -> None:
    ratio = ours / peer if peer else float("inf")
    print(f"{label:<44} reader {ours:>10.2f} {unit:<3} {peer_name} {peer:>10.2f} {unit:<3} ratio {ratio:.2f}x")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _pack_stats(repo: Path) -> tuple[int, int]:
    """(objects, bytes) held by a repository's object store."""
    stats = dict(line.split(": ") for line in _git(repo, "count-objects", "-v").splitlines())
    return (int(stats["count"]) + int(stats["in-pack"]),
            (int(stats["size"]) + int(stats["size-pack"])) * 1024)


@section
def git_economy(tmp: Path) -> None:
    """Objects and bytes reader fetches for a pin from a repo with long history, vs a full clone."""
    upstream = tmp / "upstream"
    upstream.mkdir()
    _git(upstream, "init", "-q", "-b", "main")
    _git(upstream, "config", "user.email", "b@example.invalid")
    _git(upstream, "config", "user.name", "b")
    _git(upstream, "config", "uploadpack.allowFilter", "true")
    _git(upstream, "config", "uploadpack.allowAnySHA1InWant", "true")
    for i in range(300):
        for j in range(3):
            f = upstream / ("pkg" if j else "other") / f"m{(i * 7 + j) % 60}.py"
            f.parent.mkdir(exist_ok=True)
            f.write_text(f"VERSION = {i}\n" + "".join(f"def f{k}(): return {i * k}\n" for k in range(200)))
        _git(upstream, "add", "-A")
        _git(upstream, "commit", "-q", "-m", f"c{i}")
    head = _git(upstream, "rev-parse", "HEAD").strip()
    files = _git(upstream, "ls-tree", "-r", head, "--", "pkg").splitlines()
    proj = tmp / "proj"
    proj.mkdir()
    (proj / "pins.toml").write_text(f'[pins.up]\nrepo = "https://example.invalid/up"\n'
                                    f'commit = "{head}"\npaths = ["pkg"]\n')
    lock = "".join(f'"{line.split()[3]}" = "{line.split()[2]}"\n' for line in files)
    (proj / "pins.lock").write_text(f'[up]\ncommit = "{head}"\n[up.files]\n{lock}')
    env = {"READER_CACHE": str(tmp / "cache"), "READER_MIRROR_UP": str(upstream),
           "PYTHONPATH": str(ROOT)}
    run([PY, "-m", "reader", "-C", str(proj), "fetch"], env)
    ours = _pack_stats(tmp / "cache" / "git" / "up.git")
    _git(tmp, "clone", "-q", "--bare", upstream.as_uri(), "full.git")
    peer = _pack_stats(tmp / "full.git")
    print(f"git economy: upstream has 300 commits; the pin reads {len(files)} files under pkg/")
    row("objects fetched for the pin", ours[0], peer[0], "obj", "full clone")
    row("bytes fetched for the pin", ours[1] / 1e6, peer[1] / 1e6, "MB", "full clone")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(SECTIONS), help="run only these sections")
    args = parser.parse_args(argv)
    for name in args.only or list(SECTIONS):
        with tempfile.TemporaryDirectory(prefix=f"reader-bench-{name}-") as tmp:
            print(f"== {name}")
            SECTIONS[name](Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
