"""The HTTP side of `reader serve`: the built site over http, with a reload script (and the last
build's error, if it failed) put into each HTML page as it is served, never into the site's files.

It runs as a child process of `reader serve` (`python -m reader.serve_http FD SITE STATUS ROOT`),
on a socket the command bound, so that the command's builds (which fork workers) run in a process
with no server threads. `STATUS` is a small JSON file the command rewrites after every build:
`{"version": n, "error": "path:line: what is wrong; what to do" or "", "problems": [...],
"review": {"notes": n, "digest": ...}}` (the problems `reader check` finds in the notes of a site
that built, and the review of a move in progress). A page polls `/__reader__/status` and reloads
when the version is not the one it was served with. `/review/` is the review of the project at
`ROOT` (`reader.review.web`: its page, its state, `review.json` beside `STATUS`, and its actions).
"""

from __future__ import annotations

import html
import json
import os
import socket
import sys
import threading
import time
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reader.review.web import Reply, ReviewSite

PREFIX = "/__reader__/"
POLL_MS = 200
REVIEW = "/review"
"""The review's pages and API (`reader.review.web`), imported on their first request so that the
server answers the site's pages as soon as it starts."""
MAX_REQUEST = 256 * 1024
"""The largest request body read (the review's edited note is at most 64k characters)."""

RELOAD_JS = f"""(function () {{
  var version = document.currentScript.dataset.version;
  function poll() {{
    fetch("{PREFIX}status", {{cache: "no-store"}})
      .then(function (r) {{ return r.json(); }})
      .then(function (s) {{
        if (String(s.version) !== version) {{ location.reload(); }} else {{ setTimeout(poll, {POLL_MS}); }}
      }}, function () {{ setTimeout(poll, 1000); }});
  }}
  setTimeout(poll, {POLL_MS});
}})();
"""

_BANNER = ('<div id="reader-serve-error" role="alert" style="position:relative;z-index:10;'
           'margin:0;padding:.8em 1.2em;background:#fff0f0;color:#8a1010;'
           'border-bottom:3px solid #8a1010;font:14px/1.5 monospace;white-space:pre-wrap">'
           '<strong>{title}</strong>\n{error}</div>')
_FAILED = "reader serve: the last build failed; the site below is the previous one."
_PROBLEMS = "reader check: {n} problem(s) in the notes; the site below is built from them."
_REVIEW = ('<p id="reader-serve-review" style="margin:0;padding:.5em 1.2em;background:#fff8e0;'
           'color:#5a4300;border-bottom:2px solid #b08800;font:14px/1.5 sans-serif">'
           'A pin move is in progress: <a href="/review/" style="color:#5a4300;font-weight:bold">'
           'review its {n} flagged note{s}</a></p>')

_NO_SITE = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>reader serve</title></head><body><main><h1>No site yet</h1>"
            "<p>The first build has not finished, or failed.</p></main></body></html>")


def read_status(path: Path) -> dict[str, Any]:
    try:
        status = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"version": 0, "error": ""}
    return status if isinstance(status, dict) else {"version": 0, "error": ""}


def inject(page: str, status: dict[str, Any]) -> str:
    """`page` with the reload script before `</body>`, and the error banner after `<body>`."""
    script = f'<script src="{PREFIX}reload.js" data-version="{int(status.get("version", 0))}"></script>'
    at = page.lower().rfind("</body>")
    page = page[:at] + script + page[at:] if at >= 0 else page + script
    error = str(status.get("error") or "")
    problems = [str(p) for p in status.get("problems") or ()]
    review: dict[str, Any] = status["review"] if isinstance(status.get("review"), dict) else {}
    left = int(review.get("notes") or 0)
    banner = _REVIEW.format(n=left, s="" if left == 1 else "s") if left else ""
    if error or problems:
        title = _FAILED if error else _PROBLEMS.format(n=len(problems))
        text = error or "\n".join(problems)
        banner += _BANNER.format(title=html.escape(title), error=html.escape(text))
    if banner:
        start = page.lower().find("<body")
        end = page.find(">", start) + 1 if start >= 0 else 0
        page = page[:end] + banner + page[end:]
    return page


class Handler(SimpleHTTPRequestHandler):
    """Files of the site; HTML with the reload script; `/__reader__/status` and `reload.js`; the
    review's routes."""

    status_file: Path
    review: ReviewRoutes | None

    def __init__(self, *args: Any, status_file: Path, review: ReviewRoutes | None = None,
                 **kwargs: Any) -> None:
        self.status_file, self.review = status_file, review
        super().__init__(*args, **kwargs)

    def _reviewed(self, path: str) -> bool:
        return self.review is not None and (path == REVIEW or path.startswith(REVIEW + "/"))

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        if self.review is None or not self._reviewed(path):
            self._send(HTTPStatus.METHOD_NOT_ALLOWED, "text/plain", b"the site is read-only\n")
            return
        size = int(self.headers.get("Content-Length") or 0)
        if not 0 <= size <= MAX_REQUEST:
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "text/plain", b"too large\n")
            return
        self._reply(self.review.site().post(path, self._headers(), self.rfile.read(size)))

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _reply(self, reply: Reply) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.kind)
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(reply.body)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if self.review is not None and self._reviewed(path):
            self._reply(self.review.site().get(path, self._headers()))
            return
        if path == PREFIX + "status":
            status = read_status(self.status_file)
            self._send(HTTPStatus.OK, "application/json", json.dumps(status).encode())
            return
        if path == PREFIX + "reload.js":
            self._send(HTTPStatus.OK, "text/javascript", RELOAD_JS.encode())
            return
        local = Path(self.translate_path(path))
        if local.is_dir():
            if not path.endswith("/"):
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", path + "/")
                self.end_headers()
                return
            local = local / "index.html"
        if local.suffix == ".html" or not Path(self.directory).is_dir():
            self._page(local)
            return
        super().do_GET()

    def _page(self, local: Path) -> None:
        status = read_status(self.status_file)
        code = HTTPStatus.OK
        try:
            text = local.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            code = HTTPStatus.NOT_FOUND
            try:
                text = (Path(self.directory) / "404.html").read_text(encoding="utf-8")
                text = text.replace("<head>", '<head><base href="/">', 1)  # its links are relative
            except (OSError, UnicodeDecodeError):
                text = _NO_SITE
        self._send(code, "text/html; charset=utf-8", inject(text, status).encode("utf-8"))

    def _send(self, code: HTTPStatus, kind: str, data: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


class ReviewRoutes:
    """The review of the project at `root` (`reader.review.web`), made on its first request."""

    def __init__(self, root: Path, state: Path, port: int):
        self.root, self.state, self.port = root, state, port
        self._site: ReviewSite | None = None
        self._lock = threading.Lock()

    def site(self) -> ReviewSite:
        with self._lock:
            if self._site is None:
                from reader.review.web import ReviewSite

                self._site = ReviewSite(self.root, self.state, self.port)
            return self._site


def serve(fd: int, site: Path, status_file: Path, root: Path | None = None) -> None:
    """Serve `site` on the listening socket `fd` until killed (with the review of the project at
    `root`, when given)."""
    sock = socket.socket(fileno=fd)
    review = ReviewRoutes(root, status_file.with_name("review.json"), sock.getsockname()[1]) \
        if root is not None else None
    handler = partial(Handler, directory=str(site), status_file=status_file, review=review)
    server = ThreadingHTTPServer(sock.getsockname()[:2], handler, bind_and_activate=False)
    server.socket.close()
    server.socket = sock
    server.daemon_threads = True
    parent = os.getppid()
    threading.Thread(target=_orphaned, args=(parent, server), daemon=True).start()
    server.serve_forever(poll_interval=0.2)


def _orphaned(parent: int, server: ThreadingHTTPServer) -> None:
    """Stop serving when `reader serve` is gone (killed without stopping its server)."""
    while os.getppid() == parent:
        time.sleep(0.5)
    server.shutdown()


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]),
          Path(sys.argv[4]) if len(sys.argv) > 4 else None)
