"""The review in a browser: `reader serve` on a project whose pin moved; /review/ accepts one note,
edits another and re-anchors a third with the keys alone, the YAML then holds exactly those
changes and `reader check` no longer lists them; the note's open page reloads with its new words.
A page of another origin cannot act, even holding the token, and a request without it is refused."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser_support import chromium, serve_folder, wait
from tests.review_project import Moved, moved_project
from tests.test_review import expected_after_review

pytestmark = pytest.mark.browser

TIMEOUT = 120.0
"""Generous: a rebuild on a loaded machine (the speed is benchmarks' business)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Moved:
    return moved_project(tmp_path_factory.mktemp("moved"))


class Served:
    def __init__(self, moved: Moved, proc: subprocess.Popen[str], port: int, log: Path):
        self.moved, self.proc, self.port, self.log = moved, proc, port, log
        self.url = f"http://127.0.0.1:{port}"

    def status(self) -> dict:
        with urllib.request.urlopen(f"{self.url}/__reader__/status", timeout=10) as r:
            return json.loads(r.read())

    def until(self, holds, what: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while True:
            assert self.proc.poll() is None, f"reader serve exited:\n{self.log.read_text()}"
            try:
                status = self.status()
            except (TimeoutError, urllib.error.URLError):  # a loaded machine: ask again
                status = {"busy": True}
            if not status["busy"] and holds(status):
                return status
            assert time.monotonic() < deadline, f"never {what}: {status}\n{self.log.read_text()}"
            time.sleep(0.1)


@pytest.fixture
def served(built: Moved, tmp_path: Path) -> Iterator[Served]:
    moved = Moved(built.small.copy(tmp_path), built.v0, built.v1)
    log = tmp_path / "stderr.txt"
    proc = subprocess.Popen([sys.executable, "-m", "reader", "serve", "--port", "0", "--jobs", "1"],
                            cwd=moved.root, env=moved.small.env(), stdout=subprocess.PIPE,
                            stderr=log.open("w"), text=True)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().rsplit(":", 1)[1].split("/")[0])
        server = Served(moved, proc, port, log)
        server.until(lambda s: s["review"]["notes"] == 4, "four notes to review")
        yield server
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


@pytest.fixture
def browser(tmp_path: Path):
    browsers = chromium(tmp_path / "profile", logs=True)
    yield next(browsers)
    next(browsers, None)


def _screen(browser) -> str:
    """The id of the note on screen."""
    return browser.find_element("css selector", ".rv-id code").text


def _key(browser, keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(keys).perform()


def _said(browser, start: str) -> str:
    return wait(browser, lambda b: (t := b.find_element("id", "rv-said").text).startswith(start)
                and t, TIMEOUT)


def test_accept_edit_and_reanchor_by_keys_then_the_yaml_holds_exactly_those(served, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    before = served.moved.tour()
    browser.get(f"{served.url}/review/")
    wait(browser, lambda b: b.find_elements("css selector", ".rv-screen"), TIMEOUT)
    assert _screen(browser) == "tour-call"  # the surest first: moved, unchanged code
    assert browser.find_element("id", "rv-count").text == "Note 1 of 4 left"
    assert browser.find_element("id", "rv-move").text == (
        f"small {served.moved.v0[:7]} → {served.moved.v1[:7]}")
    _key(browser, "s")  # skipped: it comes back last
    assert _screen(browser) == "tour-spec"
    # the words as the page renders them, the link resolved from the article's page
    link = browser.find_element("css selector", ".rv-note-body a")
    assert link.get_attribute("href").startswith(f"{served.url}/source/pkg/core.py.html#L")
    assert browser.find_element("css selector", ".rv-note-body strong").text == "frozen"
    added = browser.find_elements("css selector", "tr.rv-added td.rv-t.rv-w")
    assert [a.text for a in added if "memory_space" in a.text] == ['  memory_space: str = "any"']
    _key(browser, "a")
    assert _said(browser, "accepted") == "accepted tour-spec (annotations/tour.yaml; line 7)"
    assert _screen(browser) == "tour-init"
    # the note's page, open in its own window: it reloads with the edited words
    review = browser.current_window_handle
    _key(browser, "o")
    wait(browser, lambda b: len(b.window_handles) == 2)
    page = next(h for h in browser.window_handles if h != review)
    browser.switch_to.window(page)
    wait(browser, lambda b: "The mapping keeps its spec and grid." in b.page_source, TIMEOUT)
    browser.switch_to.window(review)
    _key(browser, "e")
    area = browser.find_element("css selector", "textarea.rv-body")
    assert area.get_attribute("value") == "The mapping keeps its spec and grid.\n"
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys("The mapping keeps its spec, grid and index map.")
    ActionChains(browser).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()
    assert _said(browser, "saved") == "saved tour-init (annotations/tour.yaml; line 19)"
    assert _screen(browser) == "tour-grid"
    _key(browser, "r")
    line = wait(browser, lambda b: b.find_element("css selector", '.rv-file .rv-line[data-n="22"]'))
    assert line.text.endswith("self.grid = grid")
    line.click()
    assert browser.find_element("id", "rv-picked-lines").text.startswith("Lines 22–22 picked.")
    _key(browser, Keys.ENTER)
    assert _said(browser, "re-anchored") == "re-anchored tour-grid (annotations/tour.yaml; line 22)"
    assert _screen(browser) == "tour-call"  # the skipped note, back
    served.until(lambda s: s["review"]["notes"] == 1, "one note left")
    wait(browser, lambda b: b.find_element("id", "rv-count").text == "Note 1 of 1 left · 3 done",
         TIMEOUT)
    after = served.moved.tour()
    assert after == expected_after_review(before)
    check = subprocess.run([sys.executable, "-m", "reader", "check"], cwd=served.moved.root,
                           env=served.moved.small.env(), capture_output=True, text=True,
                           timeout=TIMEOUT)
    assert [line.split("'")[1] for line in check.stdout.splitlines()] == ["tour-call"]
    assert "is moved" in check.stdout and check.returncode == 0
    browser.switch_to.window(page)
    wait(browser, lambda b: "The mapping keeps its spec, grid and index map." in b.page_source,
         TIMEOUT)
    # Shift+A: every note whose code moved unchanged, at once (after a confirmation)
    browser.switch_to.window(review)
    ActionChains(browser).key_down(Keys.SHIFT).send_keys("a").key_up(Keys.SHIFT).perform()
    alert = wait(browser, lambda b: b.switch_to.alert)
    assert alert.text.startswith("Accept the note whose code moved unchanged?")
    alert.accept()
    assert _said(browser, "accepted 1") == "accepted 1 note in 1 file"
    served.until(lambda s: s["review"]["notes"] == 0, "no note left")
    wait(browser, lambda b: b.find_element("css selector", ".rv-empty").text.startswith(
        "Every flagged note is done (4)."), TIMEOUT)
    check = subprocess.run([sys.executable, "-m", "reader", "check"], cwd=served.moved.root,
                           env=served.moved.small.env(), capture_output=True, text=True,
                           timeout=TIMEOUT)
    assert (check.returncode, check.stdout) == (0, "")
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


ATTACK = """<!doctype html><html><head><title>waiting</title></head><body><script>
fetch("{url}/review/api/act", {{method: "POST",
  headers: {{"Content-Type": "application/json", "X-Reader-Token": "{token}"}},
  body: JSON.stringify({{action: "accept", note: "tour-spec", digest: "{digest}"}})}})
  .then(r => r.text().then(t => {{ document.title = "answered " + r.status + " " + t; }}),
        e => {{ document.title = "failed " + e; }});
</script></body></html>
"""


def test_a_page_of_another_origin_or_a_request_without_the_token_is_refused(served, browser,
                                                                           tmp_path):
    from reader.cache import blob_sha

    before = served.moved.tour()
    browser.get(f"{served.url}/review/")
    wait(browser, lambda b: b.find_elements("css selector", ".rv-screen"), TIMEOUT)
    token = browser.find_element("css selector", 'meta[name="reader-token"]').get_attribute("content")
    digest = blob_sha(before.encode())
    # the review's own page, without the token: 403 and nothing written
    answer = browser.execute_async_script("""
const done = arguments[arguments.length - 1];
fetch("/review/api/act", {method: "POST", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({action: "accept", note: "tour-spec", digest: arguments[0]})})
  .then(r => r.json().then(j => done([r.status, j.message])));
""", digest)
    assert answer == [403, "refused: the request lacks this run's token (X-Reader-Token); use the "
                           "page at /review/"]
    # a page of another origin, even given the token: the browser's preflight is never answered
    site = tmp_path / "elsewhere"
    site.mkdir()
    (site / "attack.html").write_text(ATTACK.format(url=served.url, token=token, digest=digest))
    pages = serve_folder(site)
    elsewhere = next(pages)
    try:
        browser.get(f"{elsewhere}/attack.html")
        title = wait(browser, lambda b: b.title != "waiting" and b.title, TIMEOUT)
    finally:
        next(pages, None)
    assert title.startswith("failed TypeError")
    # without the preflight (a simple request a form could send), the server refuses it
    simple = urllib.request.Request(f"{served.url}/review/api/act", method="POST",
                                    data=json.dumps({"action": "accept", "note": "tour-spec",
                                                     "digest": digest}).encode(),
                                    headers={"Content-Type": "application/json",
                                             "X-Reader-Token": token, "Origin": elsewhere})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(simple, timeout=10)
    assert refused.value.code == 403
    assert json.loads(refused.value.read())["message"] == (
        f"refused: a request from a page of another origin ({elsewhere})")
    assert served.moved.tour() == before
