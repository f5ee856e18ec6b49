"""`reader serve [--site DIR] [--port N] [--jobs N]`: build the site, serve it on localhost, and
rebuild it when the project's inputs change; the open page reloads itself, or shows the error.
While a pin move is in progress, `/review/` reviews its flagged notes (`reader.review`)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from reader.atomic import atomic_write
from reader.errors import InputError, Location, ReaderError
from reader.site_patch import FileStat

WATCHED = ("annotations", "kernels", "moves", "docs", "pins.toml", "pins.lock", "track.yaml",
           "mkdocs.yml")
"""What a build reads of the project (relative to its root): folders are watched whole."""

Snapshot = dict[str, FileStat]


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="build the site, serve it on localhost and rebuild it when "
                                     "a note, a lab or the outline changes (the page reloads)")
    p.add_argument("--site", metavar="DIR", help="where the site is built (default: site/ in the project)")
    p.add_argument("--port", type=int, default=8000, help="the port on 127.0.0.1 (default: 8000; "
                                                          "0: any free port)")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="worker processes for rendering (default: one per core)")
    p.add_argument("--interval", type=float, default=0.2, metavar="S",
                   help="seconds between looks for changed files (default: 0.2)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    root = Path(args.project).resolve()
    site = Path(args.site).resolve() if args.site else root / "site"
    listener = _listen(args.port)
    state = Path(tempfile.mkdtemp(prefix="reader-serve-"))
    status = Status(state / "status.json")
    server = subprocess.Popen([sys.executable, "-m", "reader.serve_http", str(listener.fileno()),
                               str(site), str(status.path), str(root)], pass_fds=[listener.fileno()])
    port = listener.getsockname()[1]
    print(f"serving {site} at http://127.0.0.1:{port}/ (Ctrl-C to stop)", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        watch(root, lambda: rebuild(root, site, args.jobs or None, status, port), args.interval,
              alive=lambda: server.poll() is None)
        print("reader: error: the HTTP server stopped", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.terminate()
        server.wait(timeout=10)
        listener.close()
        shutil.rmtree(state, ignore_errors=True)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _listen(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as e:
        sock.close()
        raise InputError(f"cannot serve on port {port}: {e.strerror}", Location("--port"),
                         "pass another --port (0 picks a free one)") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def watch(root: Path, build: Callable[[], None], interval: float,
          alive: Callable[[], bool] = lambda: True) -> None:
    """Build once, then again after each change of the watched files, while `alive()`."""
    seen = snapshot(root)
    build()
    while alive():
        time.sleep(interval)
        now = snapshot(root)
        if now != seen:
            seen = settled(root, now)
            build()


def settled(root: Path, now: Snapshot, pause: float = 0.05, tries: int = 10) -> Snapshot:
    """The watched files once a look `pause` later finds them unchanged (an editor's save may
    take more than one write)."""
    for _ in range(tries):
        time.sleep(pause)
        later = snapshot(root)
        if later == now:
            break
        now = later
    return now


def snapshot(root: Path) -> Snapshot:
    """The size and mtime of every watched file: a few hundred stat calls."""
    out: Snapshot = {}
    for name in WATCHED:
        path = root / name
        if path.is_file():
            st = path.stat()
            out[name] = FileStat(st.st_size, st.st_mtime_ns)
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            for file in files:
                full = os.path.join(folder, file)
                try:
                    st = os.stat(full)
                except OSError:
                    continue
                out[full] = FileStat(st.st_size, st.st_mtime_ns)
    return out


class Status:
    """What the served pages are told (`reader.serve_http`): a version that moves on whenever
    the site, the problems shown or the review change, the last build's error, `reader check`'s
    problems, whether a build or check is under way (`busy`), and the review's notes left and
    digest. The review itself is `review.json` beside the status file."""

    def __init__(self, path: Path):
        self.path, self.version, self.error, self.busy = path, 0, "", True
        self.problems: tuple[str, ...] = ()
        self.review: dict[str, int | str] = {"notes": 0, "digest": ""}
        self._write()

    @property
    def review_path(self) -> Path:
        return self.path.with_name("review.json")

    def working(self) -> None:
        self.busy = True
        self._write()

    def publish(self, error: str, problems: tuple[str, ...], changed: bool, done: bool,
                review: dict[str, int | str] | None = None) -> None:
        review = review if review is not None else self.review
        if changed or (error, problems, review) != (self.error, self.problems, self.review):
            self.version += 1
            self.error, self.problems, self.review = error, problems, review
        self.busy = not done
        self._write()

    def _write(self) -> None:
        data = {"version": self.version, "error": self.error, "problems": list(self.problems),
                "busy": self.busy, "review": self.review}
        atomic_write(self.path, json.dumps(data).encode(), durable=False)


def rebuild(root: Path, site: Path, jobs: int | None, status: Status, port: int = 0) -> None:
    """Build (the pages reload), then check the notes (the pages show what `reader check` finds)
    and gather the review of a move in progress, whether the build failed or not (a move that
    breaks the build is one to review); a failed build shows its error over the previous site."""
    from reader.annotations.load import ready_to_parse
    from reader.progress import reporter, reporting
    from reader.site import build_site

    start = time.perf_counter()
    status.working()
    error = ""
    try:
        with reporting(reporter(quiet=True)):
            report = build_site(root, site, jobs)
    except Exception as e:  # a bug must not stop the server either: it is shown like an input error
        error = str(e) if isinstance(e, ReaderError) else traceback.format_exc()
        print(f"reader: error: {error}", file=sys.stderr, flush=True)
    else:
        print(f"built in {time.perf_counter() - start:.1f} s ({report.caching()})", flush=True)
    status.publish(error, status.problems, changed=True, done=False)
    problems, review = check_notes(root, site, status.review_path)
    left = status.review["notes"]
    status.publish(error, problems, changed=False, done=True, review=review)
    for line in problems:
        print(line, file=sys.stderr, flush=True)
    if review["notes"] and review["notes"] != left:
        print(f"a move is in progress: review its {review['notes']} flagged notes at "
              f"http://127.0.0.1:{port}/review/", flush=True)
    ready_to_parse()  # while it waits for the next edit
    ready_to_render()


def ready_to_render() -> None:
    """Compile the page templates and make the Markdown converter (0.1 s) while waiting for an
    edit: the server's first build, with nothing changed, renders no page, so its first edit's
    pages were the first this process rendered."""
    from reader.render.common.markdown import render_markdown
    from reader.render.common.templates import environment

    env = environment()
    for name in env.list_templates(extensions=["j2"]):
        env.get_template(name)
    render_markdown("ready")


def check_notes(root: Path, site: Path, review_file: Path) -> tuple[tuple[str, ...],
                                                                   dict[str, int | str]]:
    """`reader check`'s errors and findings, one `path:line: message; what to do` each; and the
    review of a move in progress, written to `review_file` (its notes' count and digest)."""
    from reader.annotations import check as checking
    from reader.annotations.model import Severity
    from reader.cache import Cache
    from reader.corpus import Corpus, Project
    from reader.render.figures.registry import FIGURES, unreadable
    from reader.review.gather import digest, gather

    cache = Cache()
    corpus: list[Corpus] = []

    def opened() -> Corpus:
        corpus.append(Corpus.open(Project.load(root), cache))
        return corpus[0]

    try:
        with cache.staged():
            report = checking.check(root, opened, checking.computed_facts, cache, figures=FIGURES,
                                    figure_reads=unreadable)
            problems = tuple(str(p) for p in report.problems if p.severity is not Severity.NOTICE)
            review = gather(root, site, report, corpus[0], cache) if corpus else None
    except Exception as e:  # a bug must not stop the server: shown as the build's are
        review_file.unlink(missing_ok=True)
        return (str(e) if isinstance(e, ReaderError) else traceback.format_exc(),), {
            "notes": 0, "digest": ""}
    if review is None:
        review_file.unlink(missing_ok=True)
        return problems, {"notes": 0, "digest": ""}
    atomic_write(review_file, json.dumps(review.to_json()).encode(), durable=False)
    return problems, {"notes": len(review.screens), "digest": digest(review) if review.active else ""}
