"""`reader serve`: the site over http on a small project; a saved note shows on the served page,
a broken one shows its located error there, the server keeps running and a fix recovers it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reader.serve_http import inject
from tests.small_project import Small, build_small, tree_digest

TIMEOUT = 120.0
"""Generous: a build on a loaded machine; the speed is measured by benchmarks/run.py."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return build_small(tmp_path_factory.mktemp("small"))


class Served:
    def __init__(self, small: Small, proc: subprocess.Popen[str], port: int, log: Path):
        self.small, self.proc, self.port, self.log = small, proc, port, log

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/{path}", timeout=10) as r:
                return r.status, r.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8")

    def status(self) -> dict:
        return json.loads(self.get("__reader__/status")[1])

    def until(self, path: str, holds: Callable[[str], bool]) -> str:
        """The page at `path` once `holds(page)`; fails after TIMEOUT or if the server exits."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert self.proc.poll() is None, "reader serve exited"
            page = self.get(path)[1]
            if holds(page):
                return page
            assert time.monotonic() < deadline, (f"{path} never showed what was expected:\n"
                                                 f"{page}\nreader serve said:\n{self.log.read_text()}")
            time.sleep(0.1)

    def edit(self, old: str, new: str) -> None:
        tour = self.small.root / "annotations" / "tour.yaml"
        text = tour.read_text()
        assert old in text
        tour.write_text(text.replace(old, new))


@pytest.fixture
def served(built: Small, tmp_path: Path) -> Iterator[Served]:
    small = built.copy(tmp_path)
    log = tmp_path / "stderr.txt"
    proc = subprocess.Popen([sys.executable, "-m", "reader", "serve", "--port", "0", "--jobs", "1"],
                            cwd=small.root, env=small.env(), stdout=subprocess.PIPE,
                            stderr=log.open("w"), text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith(f"serving {small.root / 'site'} at http://127.0.0.1:"), first
        port = int(first.rsplit(":", 1)[1].split("/")[0])
        server = Served(small, proc, port, log)
        deadline = time.monotonic() + TIMEOUT
        while server.status()["version"] < 1:  # the first build
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        yield server
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_a_saved_note_shows_on_the_served_page(served):
    code, page = served.get("articles/tour.html")
    assert code == 200 and "The spec." in page
    assert '<script src="/__reader__/reload.js" data-version="1"></script></body>' in page
    served.edit("body: The spec.", "body: The spec, saved.")
    # the site is swapped in, then the version moves on (the page reloads)
    page = served.until("articles/tour.html", lambda p: 'data-version="2"' in p)
    assert "The spec, saved." in page and "reader-serve-error" not in page
    status = served.status()
    assert (status["version"], status["error"], status["problems"]) == (2, "", [])
    # the reload script is the server's: the site's files do not hold it
    on_disk = (served.small.root / "site" / "articles" / "tour.html").read_text()
    assert "The spec, saved." in on_disk and "__reader__" not in on_disk
    code, script = served.get("__reader__/reload.js")
    assert code == 200 and "location.reload()" in script
    code, css = served.get("assets/bundle.css")
    assert code == 200 and "__reader__" not in css
    assert served.get("no/such/page.html")[0] == 404


def test_a_build_while_serve_rebuilds_both_finish_and_the_site_is_whole(served):
    small = served.small
    track = small.root / "track.yaml"
    track.write_text(track.read_text().replace("A small track", "A changed track"))
    served.edit("body: The spec.", "body: The spec, saved.")  # serve rebuilds: and so does build
    build = subprocess.run([sys.executable, "-m", "reader", "build", "--jobs", "1"], cwd=small.root,
                           env=small.env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert build.returncode == 0, build.stderr
    assert "The spec, saved." in served.until("articles/tour.html", lambda p: "saved." in p)
    assert "A changed track" in served.until("index.html", lambda p: "A changed track" in p)
    site = small.root / "site"
    assert sorted(p.name for p in small.root.glob(".site-*")) == []
    # Whole: one more build (after serve's, which waits for the lock) changes nothing.
    before = tree_digest(site)
    again = subprocess.run([sys.executable, "-m", "reader", "build", "--jobs", "1"], cwd=small.root,
                           env=small.env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert again.returncode == 0, again.stderr
    assert tree_digest(site) == before


def test_a_broken_note_shows_its_error_and_a_fix_recovers(served):
    served.edit("phase: 1", "phase: one")
    page = served.until("articles/tour.html", lambda p: "reader-serve-error" in p)
    assert ("annotations/tour.yaml:3: `phase` must be an integer, not a string; write it as an "
            "integer") in page
    assert "The spec." in page  # the previous site, under the error
    assert served.proc.poll() is None
    served.edit("phase: one", "phase: 1")
    served.edit("body: The spec.", "body: The spec, fixed.")
    page = served.until("articles/tour.html",
                        lambda p: "The spec, fixed." in p and "reader-serve-error" not in p)
    assert served.status()["error"] == ""


def test_a_note_that_does_not_anchor_shows_where_and_what_to_do(served):
    """The site builds (the note shows unanchored); `reader check`'s error is on every page."""
    tour = served.small.root / "annotations" / "tour.yaml"
    accepted = tour.read_text()
    tour.write_text(accepted + "  - id: tour-new\n    symbol: BlockSpek\n    body: New.\n")
    page = served.until("index.html", lambda p: "reader-serve-error" in p)
    assert ("annotations/tour.yaml:18: note &#x27;tour-new&#x27;: symbol &#x27;BlockSpek&#x27; not "
            "found in pkg/core.py@") in page
    assert "(did you mean &#x27;BlockSpec&#x27;?); fix the note&#x27;s anchor" in page
    assert "reader check: 1 problem(s) in the notes" in page
    served.edit("symbol: BlockSpek", "symbol: BlockSpec")  # anchors; not accepted yet: a finding
    page = served.until("index.html", lambda p: "is unfingerprinted" in p)
    assert "run &#x27;reader accept tour-new&#x27;" in page
    tour.write_text(accepted)
    served.until("index.html", lambda p: "reader-serve-error" not in p)
    assert served.status()["problems"] == [] and served.proc.poll() is None


def test_inject_puts_the_script_last_and_the_error_first_as_text():
    page = "<html><body class='x'><p>hi</p></body></html>"
    out = inject(page, {"version": 7, "error": "a.yaml:2: bad <script>; fix it"})
    assert out.startswith("<html><body class='x'><div id=\"reader-serve-error\" role=\"alert\"")
    assert "a.yaml:2: bad &lt;script&gt;; fix it</div><p>hi</p>" in out
    assert out.endswith('<p>hi</p><script src="/__reader__/reload.js" data-version="7"></script>'
                        "</body></html>")
    assert inject(page, {"version": 1, "error": ""}).count("reader-serve-error") == 0


def test_the_open_page_reloads_itself_in_a_browser(served, tmp_path):
    from selenium.webdriver.common.by import By

    from tests.browser_support import chromium, wait

    browsers = chromium(tmp_path / "profile", logs=True)
    browser = next(browsers)
    try:
        browser.get_log("performance"), browser.get_log("browser")  # the browser's own start
        browser.get(f"http://127.0.0.1:{served.port}/articles/tour.html")
        assert "The spec." in browser.find_element(By.TAG_NAME, "article").text
        served.edit("body: The spec.", "body: The spec, reloaded.")
        wait(browser, lambda b: "The spec, reloaded." in b.find_element(By.TAG_NAME, "article").text,
             TIMEOUT)
        served.edit("phase: 1", "phase: one")
        wait(browser, lambda b: "tour.yaml:3: `phase` must be an integer" in
             "".join(e.text for e in b.find_elements(By.ID, "reader-serve-error")), TIMEOUT)
        assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
        requests = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
        urls = {m["params"]["request"]["url"] for m in requests
                if m["method"] == "Network.requestWillBeSent"}
        here = f"http://127.0.0.1:{served.port}/"
        assert any(u.startswith(here + "__reader__/status") for u in urls)  # the page polls
        network = [u for u in urls if u.startswith(("http:", "https:", "ws:", "wss:", "//"))]
        assert [u for u in network if not u.startswith(here)] == []  # (chrome:// is the browser's)
    finally:
        next(browsers, None)


def test_the_server_readies_the_templates_and_markdown_while_it_waits(monkeypatch):
    """Its first build, with nothing changed, renders no page: the first edit's pages would compile
    the templates and make the Markdown converter (0.1 s) unless readied while it waits."""
    from reader.commands.serve import ready_to_render
    from reader.render.common import markdown, templates

    templates.environment.cache_clear()
    markdown._converter.cache_clear()
    ready_to_render()
    env = templates.environment()

    def compiled(*_args, **_kwargs):
        raise AssertionError("a template compiled after ready_to_render")

    monkeypatch.setattr(env, "compile", compiled)
    names = env.list_templates(extensions=["j2"])
    assert "source.j2" in names and all(env.get_template(name) for name in names)
    assert markdown._converter.cache_info().currsize == 1
