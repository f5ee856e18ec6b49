"""Line anchors in a real headless browser, from file:// as a reader opens the built site: a range
`#L75-L83` tints exactly its lines and scrolls to them, a line number's menu works from the
keyboard and links to the pinned commit on GitHub, shift-click makes a range, and text on the
tint keeps a contrast of at least 4.5:1 in both colour schemes."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from tests.browser_support import (
    CONTRAST_JS,
    browser_fixture,
    build_small_site,
    load,
    wait,
)
from tests.golden import CALL, CORE

pytestmark = pytest.mark.browser


LONG = "".join(f"value_{n} = {n}  # line {n} of a long file\n" for n in range(1, 301))
FILES = {"pkg/__init__.py": "", "pkg/core.py": CORE.replace("fixture", "pkg"),
         "pkg/call.py": CALL.replace("fixture", "pkg"), "pkg/long.py": LONG}
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
summary: Reads the caller of BlockSpec, then BlockSpec.
reads:
  - path: pkg/call.py
  - path: pkg/core.py
intro: |
  The caller of [[pkg/core.py::BlockSpec]], line by line.
notes:
  - id: demo-call
    symbol: pallas_call
    body: |
      This builds a **mapping** from the spec, once per call.
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Path, str]:
    """The built site's folder and the GitHub-style blob URL prefix of the pin."""
    return build_small_site(tmp_path_factory.mktemp("browser-lines"), FILES, TRACK, {"demo.yaml": ARTICLE})


@pytest.fixture(scope="module")
def site(project) -> str:
    return project[0].as_uri()


browser = browser_fixture()


_load = partial(load, fresh=True)


def _selected(browser) -> list[str]:
    return browser.execute_script("return [...document.querySelectorAll('.rd-k > .rd-sel')].map(e => e.id)")


def _top(browser, element_id: str) -> float:
    return browser.execute_script(f"return document.getElementById('{element_id}').getBoundingClientRect().top")


def _number(browser, line_id: str):
    from selenium.webdriver.common.by import By

    return wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, f"#{line_id} > .rd-n"))  # near the viewport


def _focused(browser) -> dict:
    return browser.execute_script(
        "const a = document.activeElement;"
        "return {text: a.textContent, href: a.getAttribute('href'), cls: a.className,"
        " line: a.closest('.rd-k > div') && a.closest('.rd-k > div').id};")


def test_a_range_in_the_url_tints_exactly_its_lines_and_scrolls_to_them(browser, site, tmp_path):
    browser.set_window_size(1400, 900)
    _load(browser, f"{site}/source/pkg/long.py.html#L200-L205")
    assert _selected(browser) == [f"L{n}" for n in range(200, 206)]
    height = browser.execute_script("return window.innerHeight")
    assert browser.execute_script("return window.scrollY") > 0
    assert 0 <= _top(browser, "L200") < height / 3
    assert _top(browser, "L205") < height
    browser.save_screenshot(str(tmp_path / "range.png"))

    _load(browser, f"{site}/source/pkg/core.py.html#BlockSpec")  # a definition's anchor: its line
    assert _selected(browser) == ["L6"]

    _load(browser, f"{site}/articles/demo.html#core-L6-L8")
    assert _selected(browser) == ["core-L6", "core-L7", "core-L8"]
    assert 0 <= _top(browser, "core-L6") < height / 3


def test_a_range_from_a_link_on_the_page_follows_the_hash(browser, site):
    _load(browser, f"{site}/source/pkg/long.py.html#L3")
    assert _selected(browser) == ["L3"]
    browser.execute_script("location.hash = '#L250-L252'")
    wait(browser, lambda b: _selected(b) == ["L250", "L251", "L252"])
    assert 0 <= _top(browser, "L250") < browser.execute_script("return window.innerHeight")


def test_the_line_menu_works_from_the_keyboard_and_links_to_the_pinned_commit(browser, site, project):
    from selenium.webdriver.common.keys import Keys

    blob = project[1]
    _load(browser, f"{site}/source/pkg/core.py.html")
    _number(browser, "L6").send_keys(Keys.ENTER)
    menu = wait(browser, lambda b: b.find_element("id", "rd-line-menu"))
    assert menu.is_displayed()
    assert _focused(browser)["text"] == "Copy link to line 6"
    assert browser.current_url.endswith("/source/pkg/core.py.html#L6")
    assert _selected(browser) == ["L6"]
    browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)  # the source page's own item is hidden
    github = _focused(browser)
    assert github["href"] == f"{blob}/pkg/core.py#L6"
    assert "Open on GitHub at" in github["text"]
    browser.switch_to.active_element.send_keys(Keys.TAB)  # Tab stays in the menu, back to the top
    assert _focused(browser)["text"] == "Copy link to line 6"
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not menu.is_displayed()
    assert _focused(browser)["line"] == "L6"  # focus back on the line number
    browser.switch_to.active_element.send_keys(Keys.SPACE)
    wait(browser, lambda b: menu.is_displayed())
    browser.switch_to.active_element.send_keys(Keys.ENTER)  # copy the link to this line on this page
    status = wait(browser, lambda b: b.find_element("css selector", ".rd-menu-status").text)
    link = f"{site}/source/pkg/core.py.html#L6"
    assert status in ("Link copied", f"Copy failed: {link}")  # headless chromium may refuse the clipboard


def test_on_an_article_the_menu_opens_the_line_on_its_source_page_and_on_github(browser, site, project):
    from selenium.webdriver.common.keys import Keys

    blob = project[1]
    _load(browser, f"{site}/articles/demo.html")
    _number(browser, "core-L13").send_keys(Keys.ENTER)
    wait(browser, lambda b: _focused(b)["text"] == "Copy link to line 13")
    assert browser.current_url.endswith("/articles/demo.html#core-L13")
    browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    assert _focused(browser)["href"] == "../source/pkg/core.py.html#L13"
    browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    assert _focused(browser)["href"] == f"{blob}/pkg/core.py#L13"
    browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)  # round to the top
    assert _focused(browser)["text"] == "Copy link to line 13"
    browser.switch_to.active_element.send_keys(Keys.ARROW_UP, Keys.ARROW_UP, Keys.ENTER)
    wait(browser, lambda b: b.current_url.endswith("/source/pkg/core.py.html#L13"))
    assert _selected(browser) == ["L13"]


def test_shift_click_extends_the_selection_to_a_range(browser, site, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    _load(browser, f"{site}/source/pkg/long.py.html")
    _number(browser, "L3").click()
    ActionChains(browser).key_down(Keys.SHIFT).click(_number(browser, "L7")).key_up(Keys.SHIFT).perform()
    assert browser.current_url.endswith("/source/pkg/long.py.html#L3-L7")
    assert _selected(browser) == [f"L{n}" for n in range(3, 8)]
    assert _focused(browser)["text"] == "Copy link to lines 3\u20137"
    _number(browser, "L2").click()  # a plain click starts a new selection
    assert browser.current_url.endswith("#L2") and _selected(browser) == ["L2"]

    _load(browser, f"{site}/articles/demo.html")
    _number(browser, "core-L14").click()
    ActionChains(browser).key_down(Keys.SHIFT).click(_number(browser, "core-L12")).key_up(Keys.SHIFT).perform()
    assert browser.current_url.endswith("/articles/demo.html#core-L12-L14")
    assert _selected(browser) == ["core-L12", "core-L13", "core-L14"]
    _load(browser, browser.current_url)  # the link it made selects the same lines
    assert _selected(browser) == ["core-L12", "core-L13", "core-L14"]


_CONTRAST = CONTRAST_JS + """
const lines = [...document.querySelectorAll('.rd-k > .rd-sel')];
let worst = 99, plain = '';
for (const line of lines) for (const el of [line, ...line.querySelectorAll('*')]) {
  if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
  const bg = background(el);
  const r = ratio(over(rgba(getComputedStyle(el).color), bg), bg);
  if (r < worst) { worst = r; plain = el.outerHTML.slice(0, 80) + ' ' + getComputedStyle(el).color; }
}
const tint = background(lines[0]), code = background(lines[0].parentElement);
return {worst: worst, at: plain, tint: tint, code: code, lines: lines.length};
"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_the_tint_is_visible_and_text_on_it_stays_readable(browser, site, scheme, tmp_path):
    browser.set_window_size(1400, 900)
    _load(browser, f"{site}/source/pkg/core.py.html#L5-L24")
    browser.execute_script("document.head.insertAdjacentHTML('beforeend',"
                           " '<style>* { transition: none !important; }</style>');"
                           f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    browser.save_screenshot(str(tmp_path / f"tint-{scheme}.png"))
    seen = browser.execute_script(_CONTRAST)
    assert seen["lines"] == 20
    assert seen["worst"] >= 4.5, seen
    assert max(abs(a - b) for a, b in zip(seen["tint"][:3], seen["code"][:3], strict=True)) >= 24, seen  # a visible step
