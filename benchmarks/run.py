"""Benchmarks: reader against a peer, side by side on this machine, printed as ratios.

    python benchmarks/run.py [--only NAME ...]

Each section runs reader and its peer in the same process tree, one after the other, and prints
the two numbers and their ratio. Nothing here asserts: targets are read off the output.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PYCCO = str(Path(sys.executable).parent / "pycco")
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


def _corpus_files(dest: Path) -> list[Path]:
    """Write every verified pinned file under `dest` (as Pycco needs files on disk)."""
    sys.path.insert(0, str(ROOT))
    from reader.corpus import Corpus, Project

    corpus = Corpus.open(Project.load(ROOT))
    out = []
    for pin, path in corpus.all_files():
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(corpus.read_bytes(pin, path))
        out.append(target)
    return out


def _cold_cache(tmp: Path) -> Path:
    """A cache holding the fetched sources only: no derived results, no rendered pages."""
    src = Path(os.environ.get("READER_CACHE") or _default_cache())
    cold = tmp / "cold-cache"
    for part in ("objects", "pins"):
        shutil.copytree(src / part, cold / part)
    return cold


def _default_cache() -> str:
    sys.path.insert(0, str(ROOT))
    from reader.cache import default_root

    return str(default_root())


def _reader(*args: str) -> list[str]:
    return [PY, "-m", "reader", "-C", str(ROOT), *args]


@section
def build(tmp: Path) -> None:
    """Cold full build against Pycco on the same files; warm rebuilds; peak memory."""
    subprocess.run(_reader("fetch"), check=True, capture_output=True)
    files = _corpus_files(tmp / "src")
    env = {"READER_CACHE": str(_cold_cache(tmp)), "NO_MKDOCS_2_WARNING": "1"}
    site = tmp / "site"
    cold, cold_rss, _ = run(_reader("build", "--site", str(site)), env)
    pycco, pycco_rss, _ = run([PYCCO, "-p", "-s", "-d", str(tmp / "pycco"),
                               *[str(f.relative_to(tmp / "src")) for f in files]], cwd=tmp / "src")
    print(f"build: {len(files)} pinned files; reader builds a page for each plus articles, labs, rules")
    row("cold full build (sources fetched)", cold, pycco, "s", "pycco")
    warm, _, _ = run(_reader("build", "--site", str(site)), env)
    row("warm rebuild, nothing changed", warm, pycco, "s", "pycco")
    edited = _edit_one_note(tmp)
    try:
        one, _, _ = run(_reader("build", "--site", str(site)), env)
    finally:
        edited()
    row("warm rebuild after editing one note", one, pycco, "s", "pycco")
    row("peak RSS of the cold build", cold_rss, pycco_rss, "MB", "pycco")


def _edit_one_note(tmp: Path) -> Callable[[], None]:
    """Change one note's text in place; return the function that restores it."""
    path = sorted((ROOT / "annotations").glob("*.yaml"))[0]
    original = path.read_bytes()
    text = original.decode()
    marker = "    body: |\n"
    at = text.index(marker) + len(marker)
    indent = text[at:].split("\n", 1)[0]
    indent = indent[: len(indent) - len(indent.lstrip())]
    path.write_text(text[:at] + f"{indent}(edited by the benchmark)\n" + text[at:])
    return lambda: path.write_bytes(original)


@section
def check(tmp: Path) -> None:
    """`reader check`, cold (no derived results) and warm, against Pycco on one file."""
    env = {"READER_CACHE": str(_cold_cache(tmp))}
    cold, _, _ = run(_reader("check"), env)
    warm, _, _ = run(_reader("check"), env)
    files = _corpus_files(tmp / "src")
    one = next(f for f in files if f.name == "pallas_call.py")
    pycco, _, _ = run([PYCCO, "-d", str(tmp / "pycco"), str(one)])
    row("reader check, cold", cold, pycco, "s", "pycco 1 file")
    row("reader check, warm", warm, pycco, "s", "pycco 1 file")


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
