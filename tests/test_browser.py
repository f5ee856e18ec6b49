"""In a real headless browser (Debian's chromium + chromedriver, driven by selenium): an article's
identifier lands on its definition line, a note sits beside its line, search finds BlockSpec; math
is typeset by the site's own KaTeX, no request leaves the site, no page logs an error; the article
has its toc and previous/next links; the lowering-rules matrix keeps both header rows readable,
filters by name, and scrolls in its own box on a phone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser_support import (
    browser_fixture,
    build_small_site,
    console_errors,
    load,
    pallas_files,
    search,
    server_fixture,
    wait,
)

pytestmark = pytest.mark.browser


PRIMITIVES = [f"op{i:02d}" for i in range(60)] + ["dot", "dot_general"]
"""Enough primitives that the matrix scrolls; two of them match the filter `dot`."""
FILES = pallas_files(PRIMITIVES)
TRACK = """title: "A browser track"
summary: "One article."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "A demo article"
        slug: demo
      - source: pkg/core.py
  - title: "Second phase"
    summary: "After the first."
    entries:
      - source: pkg/call.py
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

  ## The cost

  Each of the $N$ blocks costs `$N$ in code` and

  $$m' = \\max(m, s) \\qquad (1)$$
  $$\\alpha = e^{m - m'} \\qquad (2)$$
notes:
  - id: demo-call
    symbol: pallas_call
    body: |
      This builds a **mapping** from the spec, once per call: $O(n^2)$ work.
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("browser")
    return build_small_site(tmp, FILES, TRACK, {"demo.yaml": ARTICLE}, paths=("pkg", "jax"))[0]


server = server_fixture()


browser = browser_fixture(logs=True)


def _rect(browser, element) -> dict:
    return browser.execute_script("return arguments[0].getBoundingClientRect().toJSON();", element)


def test_identifier_lands_on_the_definition_line(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/articles/demo.html")
    link = wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, '.rd-k a[title="pkg.core.BlockSpec"]'))
    link.click()
    wait(browser, lambda b: b.current_url.endswith("/source/pkg/core.py.html#L6"))
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
    results = search(browser, "BlockSpec", lambda href: "source/pkg/core.py.html" in href)
    browser.save_screenshot(str(tmp_path / "search.png"))
    results[0].send_keys(Keys.ENTER)
    wait(browser, lambda b: "/source/pkg/core.py.html" in b.current_url)
    assert "BlockSpec" in browser.find_element(By.CSS_SELECTOR, ".md-content").text


def _requests(browser) -> list[str]:
    """The URLs the page requested since the last call (Chrome's performance log, drained)."""
    out = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            out.append(message["params"]["request"]["url"])
    return out


_errors = console_errors


_load = load


PAGES = ("index.html", "articles/demo.html", "lowering-rules.html", "source/pkg/core.py.html")


def test_no_request_leaves_the_site_and_no_page_logs_an_error(browser, server, site):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1400, 1000)
    _requests(browser), _errors(browser)
    for page in PAGES:
        _load(browser, f"{server}/{page}")
        wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, ".md-content"))
        requested = _requests(browser)
        katex = any(url.startswith(f"{server}/assets/katex/") for url in requested)
        assert katex == (page == "articles/demo.html"), (page, requested)  # only a page with math
        outside = [u for u in requested if not u.startswith((server, "data:", "blob:"))]
        assert outside == [], (page, outside)
        assert _errors(browser) == [], page
    for page in PAGES:  # opened from disk: nothing but the site's own files either
        _load(browser, (site / page).as_uri())
        requested = _requests(browser)
        assert requested and all(u.startswith(("file://", "data:", "blob:")) for u in requested), (
            page, requested)
        assert _errors(browser) == [], page


def test_math_is_typeset_in_prose_and_notes_but_not_in_code(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/articles/demo.html")
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, ".rd-indexed .katex"))
    prose = browser.find_element(By.CSS_SELECTOR, ".rd-indexed")
    assert "of the $N$ blocks" not in prose.text and "\\max" not in prose.text
    display = prose.find_elements(By.CSS_SELECTOR, ".katex-display")
    assert len(display) == 2, "one display equation per $$ line"
    first, second = (_rect(browser, d) for d in display)
    assert second["top"] >= first["bottom"] - 1, (first, second)  # one under the other
    codes = [c.text for c in prose.find_elements(By.CSS_SELECTOR, "code")]
    assert "$N$ in code" in codes, codes
    note = browser.find_element(By.ID, "note-demo-call")
    assert note.find_elements(By.CSS_SELECTOR, ".katex") and "$O(" not in note.text
    browser.save_screenshot(str(tmp_path / "math.png"))


def test_article_has_its_toc_previous_next_and_home_a_clean_title(browser, server):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/articles/demo.html")
    toc = {a.get_attribute("href").rsplit("#", 1)[-1]: a.get_attribute("textContent").strip()
           for a in browser.find_elements(By.CSS_SELECTOR,  # the contents, folded into the nav
                                          ".md-sidebar--primary .md-nav--secondary .md-nav__link[href*='#']")}
    assert toc.get("h-the-cost") == "The cost", toc  # the prose's heading
    assert "pkg/call.py" in toc.values(), toc  # the file the article reads
    before = browser.find_element(By.CSS_SELECTOR, ".md-footer__link--prev").get_attribute("href")
    after = browser.find_element(By.CSS_SELECTOR, ".md-footer__link--next").get_attribute("href")
    assert before.endswith("/phases/1.html") or "phase" in before, before
    assert after.endswith("/source/pkg/core.py.html"), after
    _load(browser, f"{server}/index.html")
    assert browser.title == "Pallas, From the Inside"
    assert browser.find_element(By.CSS_SELECTOR, ".md-content h1").text == "A browser track"


def _header_rows(browser):
    from selenium.webdriver.common.by import By

    rows = browser.find_elements(By.CSS_SELECTOR, ".rd-matrix thead tr")
    return [_rect(browser, r.find_elements(By.CSS_SELECTOR, "th")[-1]) for r in rows]


def test_matrix_headers_stay_distinct_when_scrolled_and_the_filter_hides_rows(browser, server,
                                                                               tmp_path):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1400, 700)
    _load(browser, f"{server}/lowering-rules.html")
    box = browser.find_element(By.CSS_SELECTOR, ".rd-matrix-scroll")
    browser.execute_script("arguments[0].scrollIntoView(); window.scrollBy(0, -80);", box)
    browser.execute_script("arguments[0].scrollTop = 600;", box)
    assert browser.execute_script("return arguments[0].scrollTop", box) > 0  # it does scroll
    top = _rect(browser, box)["top"]
    groups, columns = _header_rows(browser)
    assert abs(groups["top"] - top) < 2, (groups, top)  # stuck at the box's top
    assert columns["top"] >= groups["bottom"] - 1, (groups, columns)  # the second under it
    hit = browser.execute_script(
        "var r = arguments[0]; return document.elementFromPoint(r.left + r.width / 2,"
        " r.top + r.height / 2).closest('tr').className;", columns)
    assert hit == "rd-head-columns"  # visible, not covered by a body row
    browser.save_screenshot(str(tmp_path / "matrix-scrolled.png"))

    box.find_element(By.XPATH, "..").find_element(By.CSS_SELECTOR, ".rd-filter-input")
    field = browser.find_element(By.CSS_SELECTOR, ".rd-filter-input")
    field.send_keys("dot")
    shown = [r.find_element(By.CSS_SELECTOR, "th code").text
             for r in browser.find_elements(By.CSS_SELECTOR, ".rd-matrix tbody tr") if r.is_displayed()]
    assert shown == ["dot", "dot_general"], shown
    assert "2 of 62" in browser.find_element(By.CSS_SELECTOR, ".rd-filter-count").text
    field.clear()
    field.send_keys("x")  # clear() fires no input event; a new value does
    field.send_keys("\b")
    assert len([r for r in browser.find_elements(By.CSS_SELECTOR, ".rd-matrix tbody tr")
                if r.is_displayed()]) == 62


def test_a_phone_never_scrolls_the_page_sideways(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    browser.set_window_size(390, 844)
    try:
        for page in ("lowering-rules.html", "articles/demo.html"):
            _load(browser, f"{server}/{page}")
            width = browser.execute_script("return window.innerWidth")
            scroll = browser.execute_script("return document.documentElement.scrollWidth")
            assert scroll <= width, (page, scroll, width)
            browser.save_screenshot(str(tmp_path / f"phone-{page.replace('/', '-')}.png"))
        _load(browser, f"{server}/lowering-rules.html")
        matrix = browser.find_element(By.CSS_SELECTOR, ".rd-matrix-scroll")
        width = browser.execute_script("return window.innerWidth")
        assert _rect(browser, matrix)["right"] <= width  # a wider matrix scrolls in its own box
        assert browser.execute_script("return getComputedStyle(arguments[0]).overflowX", matrix) == "auto"
        names = _rect(browser, browser.find_element(By.CSS_SELECTOR, ".rd-matrix tbody th"))
        assert names["width"] < width / 2, names  # the sticky names leave room for the columns
    finally:
        browser.set_window_size(1400, 1000)


def test_search_works_from_disk(browser, site):

    browser.set_window_size(1400, 1000)
    _load(browser, (site / "index.html").as_uri())
    results = search(browser, "BlockSpec", lambda href: "source/pkg/core.py.html#L6" in href)
    assert results[0].get_attribute("href").endswith("source/pkg/core.py.html#L6")
    assert _errors(browser) == []
