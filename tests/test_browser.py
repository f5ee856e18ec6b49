"""In a real headless browser (Debian's chromium + chromedriver, driven by selenium): an article's
identifier lands on its definition line, a note sits beside its line, search finds BlockSpec."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

from reader.site import build_site
from tests.conftest import REPO_ROOT, make_upstream, write_project
from tests.golden import CALL, CORE

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")

FILES = {"pkg/__init__.py": "", "pkg/core.py": CORE.replace("fixture", "pkg"),
         "pkg/call.py": CALL.replace("fixture", "pkg")}
TRACK = """title: "A browser track"
summary: "One article."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "A demo article"
        slug: demo
      - source: pkg/core.py
"""
ARTICLE = """title: "A demo article"
slug: demo
phase: 1
kind: article
order: 1
summary: Reads the caller of BlockSpec.
reads:
  - path: pkg/call.py
intro: |
  The caller of [[pkg/core.py::BlockSpec]], line by line.
notes:
  - id: demo-call
    symbol: pallas_call
    body: |
      This builds a **mapping** from the spec, once per call.
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("browser")
    env = pytest.MonkeyPatch()
    env.setenv("READER_CACHE", str(tmp / "cache"))
    upstream = make_upstream(tmp / "upstream", [FILES])
    root = write_project(tmp / "project", "small", upstream.url, upstream.commits[0], FILES)
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(TRACK)
    (root / "annotations").mkdir()
    (root / "annotations/demo.yaml").write_text(ARTICLE)
    try:
        build_site(root, jobs=1)
    finally:
        env.undo()
    return root / "site"


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("needs Debian's chromium and chromedriver (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.add_argument("--window-size=1400,1000")
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _wait(browser, condition, timeout=15):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout).until(condition)


def _rect(browser, element) -> dict:
    return browser.execute_script("return arguments[0].getBoundingClientRect().toJSON();", element)


def test_identifier_lands_on_the_definition_line(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/articles/demo.html")
    link = browser.find_element(By.CSS_SELECTOR, '.rd-c a[title="pkg.core.BlockSpec"]')
    link.click()
    _wait(browser, lambda b: b.current_url.endswith("/source/pkg/core.py.html#L6"))
    target = browser.execute_script("return document.querySelector(':target').id")
    assert target == "L6"
    line = browser.find_element(By.ID, "L6")
    assert "class BlockSpec" in line.text
    top = _rect(browser, line)["top"]
    assert 0 <= top < browser.execute_script("return window.innerHeight")
    browser.save_screenshot(str(tmp_path / "definition.png"))


def test_note_sits_beside_its_line_and_under_it_on_a_phone(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/articles/demo.html#note-demo-call")
    note = browser.find_element(By.ID, "note-demo-call")
    line = browser.find_element(By.ID, "L5")
    assert "mapping" in note.text and note.is_displayed()
    n, ln = _rect(browser, note), _rect(browser, line)
    assert n["left"] >= ln["right"] - 1, (n, ln)  # the margin column, right of the code
    assert abs(n["top"] - ln["top"]) < 40, (n, ln)  # level with its first line
    browser.save_screenshot(str(tmp_path / "article-wide.png"))

    browser.set_window_size(420, 900)
    browser.get(f"{server}/articles/demo.html#note-demo-call")
    note = browser.find_element(By.ID, "note-demo-call")
    last = browser.find_element(By.ID, "L6")
    n, ln = _rect(browser, note), _rect(browser, last)
    assert n["top"] >= ln["bottom"] - 1, (n, ln)  # inline, under the lines it explains
    browser.save_screenshot(str(tmp_path / "article-phone.png"))
    browser.set_window_size(1400, 1000)


def test_search_finds_blockspec_and_its_page(browser, server, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/index.html")
    browser.find_element(By.CSS_SELECTOR, "label.md-search__icon, .md-search__input").click()
    box = _wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, "input.md-search__input"))
    _wait(browser, lambda b: box.is_displayed() and box.is_enabled())
    box.send_keys("BlockSpec")
    results = _wait(browser, lambda b: [a for a in b.find_elements(By.CSS_SELECTOR, ".md-search-result__link")
                                        if "source/pkg/core.py.html" in (a.get_attribute("href") or "")])
    browser.save_screenshot(str(tmp_path / "search.png"))
    results[0].send_keys(Keys.ENTER)
    _wait(browser, lambda b: "/source/pkg/core.py.html" in b.current_url)
    assert "BlockSpec" in browser.find_element(By.CSS_SELECTOR, ".md-content").text
