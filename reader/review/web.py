"""The review over HTTP, for `reader serve`'s server (`reader.serve_http`): its page, its state and
its actions under `/review/`, as functions of a request (the server only carries bytes).

Safe by construction: the server listens on 127.0.0.1 only; a request must name that host
(`Host`, so a DNS name rebound to it is refused); the page holds a token made for this run, which
every API request must send back (`X-Reader-Token`) and which a page of another origin cannot
read; a request a browser says comes from another origin (`Origin`, `Sec-Fetch-Site`) is refused;
an action must be JSON (a form of another site cannot post it without a preflight, which is never
answered); the page cannot be framed; and the only files written are annotation files (`act.py`).
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from reader.errors import ReaderError
from reader.model import split_lines
from reader.render.code.highlight import highlighted
from reader.review.act import Desk, parse_action
from reader.review.model import Review, from_json

ROOT = "/review/"
API = ROOT + "api/"
TOKEN_HEADER = "X-Reader-Token"
ASSETS = {"review.js": "text/javascript; charset=utf-8", "review.css": "text/css; charset=utf-8"}

SECURITY = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                               "script-src 'self'; frame-ancestors 'none'; form-action 'none'; "
                               "base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "same-origin",
}


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, content type, body and extra headers."""

    status: int
    kind: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)


def _json(status: int, data: Any) -> Reply:
    return Reply(status, "application/json", json.dumps(data).encode(), SECURITY)


def _error(status: int, message: str) -> Reply:
    return _json(status, {"ok": False, "message": message})


class ReviewSite:
    """The `/review/` routes of one `reader serve` run (its token is made here). Requests' headers
    come as a mapping with lower-case names."""

    def __init__(self, root: Path, state: Path, port: int, token: str | None = None):
        self.state, self.port = state, port
        self.token = token or secrets.token_urlsafe(24)
        self.desk = Desk(root)
        self.origins = {f"http://127.0.0.1:{port}", f"http://localhost:{port}"}

    def get(self, path: str, headers: Mapping[str, str]) -> Reply:
        if (refused := self._refused(headers, api=path.startswith(API))) is not None:
            return refused
        if path == ROOT.rstrip("/"):
            return Reply(301, "text/plain", b"", {"Location": ROOT})
        if path == ROOT:
            return Reply(200, "text/html; charset=utf-8", self._page(), SECURITY)
        if path.removeprefix(ROOT) in ASSETS:
            name = path.removeprefix(ROOT)
            return Reply(200, ASSETS[name], _asset(name), SECURITY)
        if path == API + "state":
            return Reply(200, "application/json", self._state_bytes(), SECURITY)
        if path.startswith(API + "blob/"):
            return self._blob(path.removeprefix(API + "blob/"))
        return _error(404, f"no such page: {path}")

    def post(self, path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        if (refused := self._refused(headers, api=True)) is not None:
            return refused
        if path != API + "act":
            return _error(404, f"no such action: {path}")
        if headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return _error(415, "an action is a JSON body (Content-Type: application/json)")
        try:
            action = parse_action(json.loads(body.decode("utf-8")))
        except (ValueError, UnicodeDecodeError) as e:
            return _error(400, str(e))
        review = self.review()
        if not review.active:
            return _error(409, "no move is in progress")
        done = self.desk.act(review, action)
        return _json(done.status, {"ok": done.status == 200, "message": done.message,
                                   "digest": done.digest})

    def _refused(self, headers: Mapping[str, str], api: bool) -> Reply | None:
        """Why a request is refused: another host name, another origin, no token."""
        host = headers.get("host", "")
        if f"http://{host}" not in self.origins:
            return _error(403, f"refused: the review answers http://127.0.0.1:{self.port}/ only, "
                               f"not a request for host {host!r}")
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return _error(403, f"refused: a request from a page of another origin ({origin})")
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return _error(403, "refused: a request from a page of another site")
        if api and not hmac.compare_digest(headers.get(TOKEN_HEADER.lower(), ""), self.token):
            return _error(403, f"refused: the request lacks this run's token ({TOKEN_HEADER}); "
                               "use the page at /review/")
        return None

    def review(self) -> Review:
        try:
            return from_json(json.loads(self._state_bytes()))
        except (ValueError, KeyError, TypeError):
            return Review(False, "reader serve has not gathered the review yet")

    def _state_bytes(self) -> bytes:
        try:
            return self.state.read_bytes()
        except OSError:
            return json.dumps(Review(False, "reader serve is building the site; the review "
                                            "follows").to_json()).encode()

    def _blob(self, sha: str) -> Reply:
        """A file the review shows, its lines and their highlighting (the whole new code, to
        pick lines on)."""
        shown = {s.new.blob for s in self.review().screens if s.new}
        if sha not in shown:
            return _error(404, "not a file of the review")
        data = self.desk.cache.get_blob(sha)
        if data is None:
            return _error(404, "the file left the cache; run 'reader fetch'")
        text = data.decode("utf-8", "replace").replace("\r\n", "\n")
        runs = highlighted(self.desk.cache, sha, text).runs
        return _json(200, {"lines": split_lines(text), "runs": [list(r) for r in runs]})

    def _page(self) -> bytes:
        from jinja2 import Environment, StrictUndefined

        env = Environment(autoescape=True, undefined=StrictUndefined)
        template = env.from_string(_asset("review.html.j2").decode("utf-8"))
        return template.render(token=self.token, header=TOKEN_HEADER).encode("utf-8")


def _asset(name: str) -> bytes:
    try:
        return resources.files("reader.review").joinpath("assets", name).read_bytes()
    except OSError as e:
        raise ReaderError(f"reader's review asset {name} is missing: {e}") from None
