"""Benchmarks: reader against a peer, side by side on this machine, printed as ratios.

    python benchmarks/run.py [--only NAME ...] [--runs N] [--before REV]

Each section runs reader and its peer in the same process tree, one after the other, and prints
the two numbers, their ratio and, where issue 18 sets one, the target and whether it is met.
Nothing here asserts: targets are read off the output. The cold builds and Pycco run `--runs`
times (default 3), alternating, and their rows give the medians. Sections: `git_economy`, `build`
(from a fresh clone of HEAD and an empty cache: the first run and the lines it prints; then the
cold build all in and the source pages' cold build beside Pycco on the same files; the first
rebuild after a cold build, warm, one note, a section's body and a lab's docstring edited, the
note's edit saved while `reader serve` runs; the site's bytes and files; peak memory; the cold
build's `--profile`, and with `--before REV` that revision's before it), `editions`
(cold and warm, with and without the older editions: on the checkout itself, whose git history
they are read from), `check` (cold, warm), `scaling` (a quarter, half and all of the files: time
per 1000 lines), `history` (the build with the rule history and without, cold and warm). Run it
with the machine as quiet as you can: the load average is printed first. Every build and check
runs on a copy of the project (so the one-note edit never touches the checkout) with a cache of
its own.

What "cold" means here: the pinned sources are fetched (the cache holds their blobs, every
edition's, and the rule history's releases' files) and every derived result is empty: parsing,
extraction, highlighting, rendered pages, layouts, link scans, the labs' artifacts (their jax
run: a child process beside the rendering), the rule history's tables. "All in" is the fresh
clone's whole site: both editions, the labs' run, the rule history. "The source pages alone" is
a project of the same pins and files with no articles, labs, editions or history.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PYCCO = str(Path(sys.executable).parent / "pycco")
SECTIONS: dict[str, Callable[[Path], None]] = {}
PROJECT_FILES = ("pins.toml", "pins.lock", "mkdocs.yml", "track.yaml", "docs", "annotations",
                 "kernels")


def section(fn: Callable[[Path], None]) -> Callable[[Path], None]:
    SECTIONS[fn.__name__] = fn
    return fn


@dataclass(frozen=True)
class Run:
    seconds: float
    max_rss_mb: float
    """The largest resident size of one process of the run (from /usr/bin/time)."""
    peak_mb: float
    """With `memory=True`: the peak of the whole process tree's memory, the sum of every
    process's proportional set size (shared pages counted once), sampled every 50 ms."""
    stdout: str
    cpu: float = 0.0
    """User + system CPU seconds of the run and the children it waited for (/usr/bin/time)."""
    stderr: str = ""
    """What the command printed on stderr (its progress lines), /usr/bin/time's line left out."""


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT,
        memory: bool = False) -> Run:
    """Wall seconds, memory and output of `cmd` (sampling the memory costs a little CPU, so
    only the runs that measure memory do it)."""
    start = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "MAXRSS=%M CPU=%U+%S", *cmd], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    sampler = _Sampler(proc.pid)
    if memory:
        sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if memory:
        sampler.stop.set()
        sampler.join()
    if proc.returncode != 0:
        sys.exit(f"benchmark command failed: {' '.join(cmd)}\n{out}\n{err}")
    rss = int(m.group(1)) / 1024 if (m := re.search(r"MAXRSS=(\d+)", err)) else 0.0
    cpu = float(c[1]) + float(c[2]) if (c := re.search(r"CPU=([\d.]+)\+([\d.]+)", err)) else 0.0
    own = "".join(line for line in err.splitlines(keepends=True) if not line.startswith("MAXRSS="))
    return Run(wall, rss, sampler.peak_kb / 1024, out, cpu, own)


class _Sampler(threading.Thread):
    """The peak, over time, of the summed memory of a process and all its descendants."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak_kb, self.stop = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.05):
            self.peak_kb = max(self.peak_kb, sum(_memory_kb(p) for p in _tree(self.pid)))


def _tree(root: int) -> list[int]:
    """The process and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _memory_kb(pid: int) -> int:
    """Proportional set size (resident size when the kernel does not report it)."""
    for name, key in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1])
        except OSError:
            continue
    return 0


def row(label: str, ours: float, peer: float, unit: str, peer_name: str, target: str = "",
        met: bool | None = None) -> None:
    ratio = ours / peer if peer else float("inf")
    goal = f"  target {target}: {'met' if met else 'NOT met'}" if target else ""
    print(f"  {label:<46} reader {ours:>8.2f} {unit:<3} {peer_name} {peer:>8.2f} {unit:<3} "
          f"ratio {ratio:5.2f}x{goal}")


def note(text: str) -> None:
    print(f"    {text}")


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
    print(f"  upstream has 300 commits; the pin reads {len(files)} files under pkg/")
    row("objects fetched for the pin", ours[0], peer[0], "obj", "full clone")
    row("bytes fetched for the pin", ours[1] / 1e6, peer[1] / 1e6, "MB", "full clone",
        "the pinned commit's objects only", ours[0] < peer[0] / 10)


def _project(tmp: Path) -> Path:
    """A copy of the project's inputs: builds and the one-note edit never touch the checkout."""
    dest = tmp / "project"
    dest.mkdir()
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            shutil.copy2(src, dest / name)
    return dest


def _corpus_files(dest: Path, project: Path = ROOT, cache: Path | None = None) -> list[Path]:
    """Write every verified pinned file of `project` under `dest` (as Pycco needs files on disk)."""
    sys.path.insert(0, str(ROOT))
    from reader.cache import Cache
    from reader.corpus import Corpus, Project

    corpus = Corpus.open(Project.load(project), Cache(cache) if cache else None)
    out = []
    for pin, path in corpus.all_files():
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(corpus.read_bytes(pin, path))
        out.append(target)
    return out


def _source_cache() -> Path:
    sys.path.insert(0, str(ROOT))
    from reader.cache import default_root

    return default_root()


SOURCES = ("objects", "pins", "git")
"""What a cache holds once the pinned files are fetched: the blobs, the pins' file lists, the git
objects fetched for them; and `derived/kept/release`: each history release's file list."""


def _cold_cache(dest: Path, kept_from: Path | None = None, sources: Path | None = None) -> Path:
    """A cache holding the fetched sources of `sources` (default: the default cache) only, and
    the labs' artifacts of `kept_from`: every derived result empty."""
    src = sources or _source_cache()
    from reader.cache import KEPT

    for part in SOURCES:
        if (src / part).is_dir():
            shutil.copytree(src / part, dest / part)
    if (src / "derived" / KEPT / "release").is_dir():
        shutil.copytree(src / "derived" / KEPT / "release", dest / "derived" / KEPT / "release")
    if kept_from is not None and (kept_from / "derived" / KEPT).is_dir():
        shutil.copytree(kept_from / "derived" / KEPT, dest / "derived" / KEPT, dirs_exist_ok=True)
    return dest


def _reader(project: Path, *args: str, verbose: bool = True) -> list[str]:
    """`reader ARGS` on `project`; a build with `--verbose` (its steps and counts: `_steps`)."""
    more = ["--verbose"] if args[:1] == ("build",) and verbose else []
    return [PY, "-m", "reader", "-C", str(project), *args, *more]


def _env(cache: Path, code: Path = ROOT) -> dict[str, str]:
    """A run's environment: its cache, and reader's code from `code` (a clone's own)."""
    return {"READER_CACHE": str(cache), "PYTHONPATH": str(code)}


def _steps(out: str) -> str:
    """reader build's own account of a build: its steps and what it rendered or read back."""
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    steps = re.search(r"\((pages .*)\)", lines[0]) if lines else None
    counts = [line for line in lines[1:] if " rendered / " in line][:1]  # not a warning before it
    return "; ".join(([steps.group(1)] if steps else []) + counts)


@section
def build(tmp: Path) -> None:
    """From a fresh clone and an empty cache: the first run (its lines), then, alternating, Pycco,
    the cold build all in (the labs' jax run, the older editions, the rule history) and the cold
    build of the source pages alone, on the same files; warm rebuilds; peak memory; the site."""
    clone = _clone(tmp / "clone")
    seed = tmp / "cache-first-run"
    first = run(_reader(clone, "build", "--site", str(tmp / "site-first-run"), verbose=False), _env(seed, clone), cwd=clone)
    printed = len((first.stderr + first.stdout).splitlines())
    print(f"  the first run (`reader build` in a fresh clone, an empty cache): {first.seconds:.0f} s, "
          f"{printed} lines printed (scripts/venv adds one)")
    row("first run's lines", printed, 171, "", "before", "a newcomer can read it: <= 25 lines", printed <= 25)
    files = _corpus_files(tmp / "src", clone, seed)
    lines = _lines(files)
    print(f"  {len(files)} pinned files, {lines} lines; reader builds a page for each, plus "
          "articles, labs, rules, the older editions")
    pages = _share_project(tmp / "pages", *_corpus(clone, seed))
    pyccos, colds, sources = [], [], []
    for i in range(RUNS):  # alternating, so that a slow spell of the machine slows all three
        shutil.rmtree(tmp / "pycco", ignore_errors=True)
        pyccos.append(run([PYCCO, "-p", "-s", "-d", str(tmp / "pycco"),
                           *[str(f.relative_to(tmp / "src")) for f in files]], cwd=tmp / "src"))
        cache = _cold_cache(tmp / f"cache-{i}", sources=seed)
        colds.append(run(_reader(clone, "build", "--site", str(tmp / f"site-{i}")), _env(cache, clone), cwd=clone))
        pages_cache = _cold_cache(tmp / f"cache-pages-{i}", sources=seed)
        sources.append(run(_reader(pages, "build", "--site", str(tmp / f"site-pages-{i}")),
                           _env(pages_cache, clone), cwd=pages))
    pycco, cold, alone = (_median(runs) for runs in (pyccos, colds, sources))
    if RUNS > 1:
        note(f"medians of {RUNS} alternating runs; pycco {_spread(pyccos)}, reader all in "
             f"{_spread(colds)}, the source pages alone {_spread(sources)}")
    row("cold build, all in", cold.seconds, pycco.seconds, "s", "pycco", "<= 1.50x pycco",
        cold.seconds <= 1.5 * pycco.seconds)
    note(f"CPU (user + system) reader {cold.cpu:.1f} s, pycco {pycco.cpu:.1f} s; {_steps(cold.stdout)}")
    row("cold build, the source pages alone", alone.seconds, pycco.seconds, "s", "pycco",
        "<= 0.50x pycco", alone.seconds <= 0.5 * pycco.seconds)
    note(f"CPU reader {alone.cpu:.1f} s; the pins alone (no articles, labs, editions or history): "
         f"{_steps(alone.stdout)}")
    site, cache = tmp / f"site-{RUNS - 1}", tmp / f"cache-{RUNS - 1}"
    _site_size(site)
    after = run(_reader(clone, "build", "--site", str(site)), _env(cache, clone), cwd=clone)
    row("first rebuild after that cold build", after.seconds, pycco.seconds, "s", "pycco",
        "renders no page, <= 2 s", after.seconds <= 2 and _rendered(after.stdout) == 0)
    note(f"{_steps(after.stdout)}; CPU {after.cpu:.2f} s")
    rebuild = partial(run, _reader(clone, "build", "--site", str(site)), _env(cache, clone), cwd=clone)
    warm = _warm(rebuild)
    row("warm rebuild, nothing changed", warm.seconds, pycco.seconds, "s", "pycco", "<= 2 s",
        warm.seconds <= 2)
    note(_steps(warm.stdout))
    one = _warm(rebuild, lambda: _edit_one_note(clone))
    row("warm rebuild after editing one note", one.seconds, pycco.seconds, "s", "pycco", "<= 2 s",
        one.seconds <= 2)
    note(_steps(one.stdout))
    note(f"CPU {one.cpu:.2f} s (user + system; the wall time is noisy on a shared machine)")
    for label, edit in (("a section's body", _edit_section), ("a lab's docstring", _edit_docstring)):
        edited = _warm(rebuild, partial(edit, clone))
        row(f"warm rebuild after editing {label}", edited.seconds, pycco.seconds, "s", "pycco",
            "<= 2 s", edited.seconds <= 2)
        note(f"{_steps(edited.stdout)}; CPU {edited.cpu:.2f} s")
    serve_saved(clone, site, cache, one)
    memory = run(_reader(clone, "build", "--site", str(tmp / "site-memory")),
                 _env(_cold_cache(tmp / "cache-memory", seed, sources=seed), clone), cwd=clone, memory=True)
    row("peak memory of a cold build (process tree)", memory.peak_mb, pycco.peak_mb or
        pycco.max_rss_mb, "MB", "pycco", "<= 1 GB", memory.peak_mb <= 1024)
    note(f"a run of its own (sampling costs CPU); its largest single process: "
         f"{memory.max_rss_mb:.0f} MB resident; pycco is one process ({pycco.max_rss_mb:.0f} MB)")
    _profiles(tmp, clone, seed)


BEFORE = ""
"""`--before REV`: the revision whose cold build's profile is printed before this tree's."""


def _profiles(tmp: Path, clone: Path, seed: Path) -> None:
    """`reader build --profile` of a cold build (untimed rows: the profile times each scan alone),
    of `BEFORE`'s fresh clone first when given, then of this tree's: where the CPU went."""
    sides = [(f"before ({BEFORE})", _clone(tmp / "before", BEFORE))] if BEFORE else []
    for n, (label, project) in enumerate([*sides, ("this tree", clone)]):
        cache = _cold_cache(tmp / f"cache-profile-{n}", sources=seed)
        out = run(_reader(project, "build", "--site", str(tmp / f"site-profile-{n}"), "--profile",
                          verbose=False), _env(cache, project), cwd=project)
        print(f"  the profile of a cold build, {label}: {out.seconds:.1f} s, CPU {out.cpu:.1f} s")
        lines = out.stdout.splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("profile:")), len(lines))
        for line in lines[start:]:
            print(f"    {line.strip()}")


def _clone(dest: Path, rev: str = "") -> Path:
    """A fresh clone of the checkout's HEAD (or `rev`; its history holds the older editions'
    projects), byte-compiled as `scripts/venv` leaves a checkout (where PYTHONDONTWRITEBYTECODE is
    set, each run would compile reader again: about 0.4 s of every warm build)."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)], check=True)
    if rev:
        subprocess.run(["git", "checkout", "--quiet", rev], cwd=dest, check=True)
    subprocess.run([PY, "-m", "compileall", "-q", "reader", "kernels"], cwd=dest, check=True,
                   stdout=subprocess.DEVNULL)
    return dest


def _corpus(project: Path, cache: Path):
    """The project's corpus (from `cache`) and every pinned file of it."""
    sys.path.insert(0, str(ROOT))
    from reader.cache import Cache
    from reader.corpus import Corpus, Project

    corpus = Corpus.open(Project.load(project), Cache(cache))
    return corpus, corpus.all_files()


RUNS = 3
"""Cold builds (and Pycco beside them) run this many times, alternating; rows give the medians."""


def _median(runs: list[Run]) -> Run:
    return sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]


def _spread(runs: list[Run]) -> str:
    return " / ".join(f"{r.seconds:.2f}" for r in runs) + " s"


SITE_TARGET = 120e6
"""The site's bytes on disk (allocated blocks, as `du` counts them), the wider corpus included."""


def _lines(files: list[Path]) -> int:
    return sum(len(f.read_bytes().splitlines()) for f in files)


def _disk_bytes(folder: Path) -> int:
    """What the folder's files take on disk (allocated blocks, as `du` counts them)."""
    return sum(p.lstat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def _site_size(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.is_file()]
    disk, apparent = _disk_bytes(site), sum(p.stat().st_size for p in files)
    row("the site's bytes on disk", disk / 1e6, 187, "MB", "before", "<= 120 MB", disk <= SITE_TARGET)
    note(f"{apparent / 1e6:.1f} MB in the files themselves, {len(files)} files (15,218 before)")


WARM = 3
"""Warm rebuilds per row, each after its own edit (a line more each time); rows give the medians."""


def _warm(rebuild: Callable[[], Run], edit: Callable[[], object] | None = None) -> Run:
    """The median of `WARM` rebuilds, each after `edit` (when given), with every run's seconds noted."""
    runs = []
    for _ in range(WARM):
        if edit is not None:
            edit()
        runs.append(rebuild())
    note(f"{WARM} runs: {_spread(runs)}")
    return _median(runs)


def _edit_one_note(project: Path, edit: str = "(edited by the benchmark)") -> str:
    """Change one note's text in place (in the benchmark's copy of the project); the slug of
    its article."""
    path = sorted((project / "annotations").glob("*.yaml"))[0]
    text = path.read_text()
    marker = "    body: |\n"
    at = text.index(marker, text.index("\nnotes:\n")) + len(marker)  # a note's, not a section's
    indent = text[at:].split("\n", 1)[0]
    indent = indent[: len(indent) - len(indent.lstrip())]
    path.write_text(text[:at] + f"{indent}{edit}\n" + text[at:])
    return path.stem


def _rendered(out: str) -> int:
    """How many pages a build rendered (reader build's `N rendered` counts)."""
    return sum(int(n) for n in re.findall(r"(\d+) rendered /", out.split("theme layouts")[0]))


def _edit_section(project: Path) -> None:
    """Change the body of one article's first section (in the benchmark's copy of the project)."""
    path = next(p for p in sorted((project / "annotations").glob("*.yaml")) if "\nsections:\n" in p.read_text())
    text = path.read_text()
    marker = "    body: |\n"
    at = text.index(marker, text.index("\nsections:\n")) + len(marker)
    indent = text[at:].split("\n", 1)[0]
    indent = indent[: len(indent) - len(indent.lstrip())]
    path.write_text(text[:at] + f"{indent}(a section edited by the benchmark)\n" + text[at:])


def _edit_docstring(project: Path) -> None:
    """Reword a line of one lab's docstring (its line count kept), in the benchmark's copy."""
    import ast

    path = project / "kernels" / "tiled_matmul.py"
    text = path.read_text()
    doc = ast.get_docstring(ast.parse(text), clean=False) or ""
    line = next(line for line in doc.splitlines()[1:] if line.strip())
    path.write_text(text.replace(line, line.rstrip() + " (reworded by the benchmark)", 1))


def serve_saved(project: Path, site: Path, cache: Path, build_one: Run) -> None:
    """`reader serve` on the warm site: from a note's save to the served article showing it
    (polled over http every 20 ms; the median of `WARM` saves), against `reader build` after the
    same edit; and the CPU the server spent on each. A browser shows it at most one poll later
    (200 ms: reader/serve_http.py)."""
    proc = subprocess.Popen(_reader(project, "serve", "--port", "0", "--site", str(site)), cwd=project,
                            env={**os.environ, **_env(cache, project)}, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        base = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
        assert base is not None, "reader serve did not say where it serves"
        status = lambda: json.loads(_get(base.group(0) + "__reader__/status"))  # noqa: E731
        while status()["busy"] or status()["version"] < 1:  # its first build and check
            time.sleep(0.1)
        cpu = _cpu(proc.pid)
        times = []
        for n in range(WARM):
            edit = f"(saved while serving {time.time():.0f}, {n})"
            start = time.perf_counter()
            slug = _edit_one_note(project, edit)
            while edit not in _get(f"{base.group(0)}articles/{slug}.html"):
                time.sleep(0.02)
            times.append(time.perf_counter() - start)
            while status()["busy"]:  # then `reader check`'s problems are published
                time.sleep(0.05)
        shown = sorted(times)[len(times) // 2]
        note(f"{WARM} saves: " + " / ".join(f"{s:.2f}" for s in times) + " s")
        row("serve: note saved -> page shows it", shown, build_one.seconds, "s",
            "build", "<= 2 s", shown <= 2)
        note(f"server CPU {(_cpu(proc.pid) - cpu) / WARM:.2f} s a save, for the rebuild and the check after it")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode("utf-8")


def _cpu(pid: int) -> float:
    """User + system CPU seconds of a process and its children it has waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


BUILD = ("import sys; from pathlib import Path; from reader.site import build_site; "
         "r = build_site(Path(sys.argv[1]), Path(sys.argv[2]), older=sys.argv[3] == 'with'); "
         "print(r.timings())")
"""A build of the checkout (the older editions are read from its git history) with or without them."""


@section
def editions(tmp: Path) -> None:
    """The build with and without the older editions (`moves/*.json`), cold and warm: what the
    previous edition adds (target: at most half of a cold build without it)."""
    subprocess.run(_reader(ROOT, "fetch"), check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    kept = _source_cache()  # the labs' artifacts as the checkout's builds left them
    runs: dict[str, tuple[Run, Run]] = {}
    for which in ("without", "with"):
        cache, site = _cold_cache(tmp / f"cache-{which}", kept_from=kept), tmp / f"site-{which}"
        cmd = [PY, "-c", BUILD, str(ROOT), str(site), which]
        cold = run(cmd, _env(cache))
        runs[which] = (cold, run(cmd, _env(cache)))
        note(f"{which} the older editions, cold: {cold.stdout.strip()}")
    (cold_without, warm_without), (cold_with, warm_with) = runs["without"], runs["with"]
    print(f"  cold build without the older editions {cold_without.seconds:.1f} s, with them "
          f"{cold_with.seconds:.1f} s; warm {warm_without.seconds:.1f} s and {warm_with.seconds:.1f} s")
    added = cold_with.seconds - cold_without.seconds
    row("what the older editions add to a cold build", added, cold_without.seconds, "s",
        "the cold build without them", "<= 0.50x", added <= cold_without.seconds / 2)
    # The same within one build, by its own steps: steady against other work on the machine.
    steps = [(name, float(s)) for name, s in re.findall(r"([a-z' ]+) ([\d.]+) s", cold_with.stdout)]
    older = sum(s for name, s in steps if "older editions" in name)
    rest = sum(s for name, s in steps if "older editions" not in name)
    row("older editions' steps in that cold build", older, rest, "s", "its other steps",
        "<= 0.50x", older <= rest / 2)


@section
def check(tmp: Path) -> None:
    """`reader check`, cold (nothing derived) and warm (the median of 5), against Pycco on one
    file; reader's code from a fresh clone, byte-compiled as `scripts/venv` leaves it."""
    clone = _clone(tmp / "clone")
    env = _env(_cold_cache(tmp / "cache"), clone)
    cold = run(_reader(clone, "check"), env, cwd=clone)
    warms = [run(_reader(clone, "check"), env, cwd=clone) for _ in range(5)]
    warm = _median(warms)
    note(f"warm runs: {_spread(warms)}")
    files = _corpus_files(tmp / "src")
    one = next(f for f in files if f.name == "pallas_call.py")
    pycco = run([PYCCO, "-d", str(tmp / "pycco"), str(one)])
    row("reader check, cold", cold.seconds, pycco.seconds, "s", "pycco 1 file", "<= 10 s",
        cold.seconds <= 10)
    row("reader check, warm", warm.seconds, pycco.seconds, "s", "pycco 1 file", "<= 0.5 s",
        warm.seconds <= 0.5)


@section
def history(tmp: Path) -> None:
    """The build with the rule history (the jax pin's `history` releases read from their
    archives, which are fetched first, once) and without it (`history` removed), cold and warm."""
    subprocess.run(_reader(ROOT, "rules", "--history"), check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})  # the releases' archives, once
    with_history = _project(tmp)
    without = tmp / "no-history"
    shutil.copytree(with_history, without)
    pins = without / "pins.toml"
    pins.write_text("".join(line for line in pins.read_text().splitlines(keepends=True)
                            if not line.startswith("history = ")))
    withs, withouts, loads = [], [], []
    for i in range(RUNS):
        caches = (_cold_cache(tmp / f"cache-with-{i}", kept_from=_source_cache()),
                  _cold_cache(tmp / f"cache-without-{i}", kept_from=_source_cache()))
        loads.append(os.getloadavg()[0])
        withs.append(run(_reader(with_history, "build", "--site", str(tmp / f"site-with-{i}")),
                         _env(caches[0])))
        loads.append(os.getloadavg()[0])
        withouts.append(run(_reader(without, "build", "--site", str(tmp / f"site-without-{i}")),
                            _env(caches[1])))
    cold, bare = _median(withs), _median(withouts)
    if RUNS > 1:
        note(f"medians of {RUNS} alternating runs; with the history {_spread(withs)}, without "
             f"{_spread(withouts)}")
    row("cold build with the rule history", cold.seconds, bare.seconds, "s", "without")
    row("its CPU time (user + sys, children included)", cold.cpu, bare.cpu, "s", "without")
    note("the releases' files in the cache (downloaded once, before), every derived result empty: "
         "each release scanned and its rule tables extracted again; the labs' artifacts cached")
    warm = run(_reader(with_history, "build", "--site", str(tmp / f"site-with-{RUNS - 1}")),
               _env(tmp / f"cache-with-{RUNS - 1}"))
    warm_bare = run(_reader(without, "build", "--site", str(tmp / f"site-without-{RUNS - 1}")),
                    _env(tmp / f"cache-without-{RUNS - 1}"))
    row("warm rebuild with the rule history", warm.seconds, warm_bare.seconds, "s", "without")
    note(_steps(warm.stdout))
    note("load average (1 min) before each run: " + ", ".join(f"{x:.2f}" for x in loads))


SCALING_TRACK = """title: "Scaling"
summary: "The benchmark's share of the pinned files."
phases:
  - title: "Every file"
    summary: "No articles, no labs: the pinned files' pages."
    entries:
      - source: {first}
"""


@section
def scaling(tmp: Path) -> None:
    """Cold builds of a quarter, a half and all of the pinned files, each a project pinning only
    those files, with no articles and no labs: the cost per thousand lines as the corpus grows."""
    sys.path.insert(0, str(ROOT))
    from reader.corpus import Corpus, Project

    corpus = Corpus.open(Project.load(ROOT))
    per_kline: dict[str, float] = {}
    note("the files: every file of the jax pin (the rules page resolves its registrations "
         "across them), then the other pins' files sorted by pin and path, evenly spaced, up to "
         "a quarter, a half and all of the corpus")
    for share, part in (("a quarter", 4), ("half", 2), ("all", 1)):
        chosen = _share(corpus.all_files(), len(corpus.all_files()) // part)
        lines = sum(len(corpus.read_bytes(pin, path).splitlines()) for pin, path in chosen)
        project = _share_project(tmp / f"share-{part}", corpus, chosen)
        cache = tmp / f"cache-{part}"
        shutil.copytree(_source_cache() / "objects", cache / "objects")
        done = run(_reader(project, "build", "--site", str(tmp / f"site-{part}")), _env(cache))
        per_kline[share] = done.seconds / lines * 1000
        print(f"  cold build, {share} of the files ({len(chosen)} files, {lines} lines): "
              f"{done.seconds:8.2f} s, {per_kline[share]:6.3f} s per 1000 lines")
        note(_steps(done.stdout))
    ratio = per_kline["all"] / per_kline["a quarter"]
    print(f"  time per 1000 lines, all / a quarter: ratio {ratio:5.2f}x  target <= 1.10x: "
          f"{'met' if ratio <= 1.1 else 'NOT met'}")


def _share(files: list[tuple[str, str]], count: int) -> list[tuple[str, str]]:
    """`count` of `files`: every jax file, then the rest evenly spaced in their sorted order."""
    jax = [f for f in files if f[0] == "jax"]
    rest = sorted(f for f in files if f[0] != "jax")
    want = max(0, count - len(jax))
    return jax + [rest[i * len(rest) // want] for i in range(want)] if want else jax[:count]


def _share_project(dest: Path, corpus, chosen: list[tuple[str, str]]) -> Path:
    """A project pinning `chosen` (pin, path) only, at the same commits, with the checkout's
    mkdocs.yml and docs, an outline of one source entry, no articles and no labs."""
    pins = corpus.project.pins
    dest.mkdir(parents=True)
    toml, lock = [], []
    for name in sorted({pin for pin, _ in chosen}):
        paths = [path for pin, path in chosen if pin == name]
        pin = pins[name]
        toml.append(f'[pins.{name}]\nrepo = "{pin.repo}"\ncommit = "{pin.commit}"\n'
                    + (f'release = "{pin.release}"\n' if pin.release else "")
                    + "paths = [" + ", ".join(f'"{p}"' for p in paths) + "]\n")
        lock.append(f'[{name}]\ncommit = "{pin.commit}"\n'
                    + (f'source = "archive {pin.release}"\n' if pin.release else "")
                    + f"\n[{name}.files]\n"
                    + "".join(f'"{p}" = "{corpus.blob(name, p)}"\n' for p in paths))
    (dest / "pins.toml").write_text("\n".join(toml))
    (dest / "pins.lock").write_text("\n".join(lock))
    shutil.copy2(ROOT / "mkdocs.yml", dest / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", dest / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "track.yaml").write_text(SCALING_TRACK.format(first=chosen[0][1]))
    (dest / "annotations").mkdir()
    (dest / "kernels").mkdir()
    return dest


def main(argv: list[str] | None = None) -> int:
    global RUNS, BEFORE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(SECTIONS), help="run only these sections")
    parser.add_argument("--runs", type=int, default=RUNS, metavar="N",
                        help=f"cold builds and Pycco runs per row, alternating; the median is shown (default {RUNS})")
    parser.add_argument("--before", metavar="REV", default="",
                        help="also profile a cold build of this revision, printed before this tree's "
                             "(build section)")
    args = parser.parse_args(argv)
    RUNS, BEFORE = max(1, args.runs), args.before
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} cores, load average {load:.2f} at the start "
          "(other work on the machine slows both sides)")
    for name in args.only or list(SECTIONS):
        with tempfile.TemporaryDirectory(prefix=f"reader-bench-{name}-") as tmp:
            print(f"== {name}")
            SECTIONS[name](Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
