"""The code view's layout in a real headless browser, from file://: at 1280x800 and 1440x900 an
article shows at least 80 columns of code with its notes beside it (the site's navigation folds
into a drawer); lines far from a note take the whole width; a long line wraps only between tokens,
its continuation indented past its own indentation, or scrolls sideways (the reader's choice, a
toggle kept in localStorage); the page keeps its height while it is scrolled (chunks not yet laid
out are sized as they will be); on a phone the notes sit under their lines."""

from __future__ import annotations

import pytest

from tests.browser_support import (
    COLUMNS_JS,
    SCROLL_STEP_JS,
    WRAPS_JS,
    browser_fixture,
    build_small_site,
    emulate,
    load,
    rect,
    rendered,
    wait,
)

pytestmark = pytest.mark.browser

CALL = ("    result = first_module.second_attribute_name.third_attribute_name(argument_number_one, "
        "argument_number_two, argument_number_three)  # and a comment that runs on for a while\n")
WIDE = "".join(f"def f{n}(x):\n  if x:\n    y = {n}\n{CALL}    return y\n\n" for n in range(1, 121))
FILES = {"pkg/__init__.py": "", "pkg/wide.py": WIDE}
TRACK = """title: "A layout track"
summary: "One article, one file."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "Wide"
        slug: wide
      - source: pkg/wide.py
"""
ARTICLE = """title: "Wide"
slug: wide
phase: 1
kind: article
order: 1
summary: Long lines.
reads:
  - path: pkg/wide.py
notes:
  - id: w-first
    symbol: f1
    body: |
      The first function: its fourth line is longer than any view.
  - id: w-late
    symbol: f100
    body: |
      A late function.
"""
ARTICLE_PAGE, SOURCE_PAGE = "articles/wide.html", "source/pkg/wide.py.html"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build_small_site(tmp_path_factory.mktemp("browser-layout"), FILES, TRACK, {"wide.yaml": ARTICLE})[0]


browser = browser_fixture()


def _load(browser, url: str, width: int, height: int) -> None:
    emulate(browser, width, height)
    load(browser, url, fresh=True)
    wait(browser, lambda b: b.execute_script("return !!document.querySelector('.rd-k.rd-on')"))
    rendered(browser)


_rect = rect


def _scrolled_height(browser) -> tuple[int, int]:
    """The page's height on load, and once scrolled to its end a screen at a time."""
    browser.execute_script("window.scrollTo(0, 0)")
    before = after = browser.execute_script("return document.documentElement.scrollHeight")
    for _ in range(2000):
        moved, after = browser.execute_async_script(SCROLL_STEP_JS)
        if not moved:
            break
    return before, after


@pytest.fixture
def fresh(browser, site):
    """No stored choice before or after the test."""
    _load(browser, (site / ARTICLE_PAGE).as_uri(), 1280, 800)
    browser.execute_script("localStorage.clear()")
    yield
    browser.execute_script("localStorage.clear()")


@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)], ids=["1280", "1440"])
def test_article_shows_80_columns_with_the_notes_beside_them(browser, site, fresh, size):
    _load(browser, (site / ARTICLE_PAGE).as_uri(), *size)
    assert browser.execute_script(COLUMNS_JS) >= 80
    lines, notes = _rect(browser, ".rd-noted .rd-lines"), _rect(browser, ".rd-noted .rd-notes")
    assert notes["left"] >= lines["right"] - 1 and notes["top"] == pytest.approx(lines["top"], abs=1)
    # the navigation gave its column: a drawer the header's menu button opens
    nav = browser.find_element("css selector", ".md-sidebar--primary")
    assert not nav.is_displayed() or _rect(browser, ".md-sidebar--primary")["right"] <= 0
    browser.find_element("css selector", ".md-header__button[for='__drawer']").click()
    wait(browser, lambda b: _rect(b, ".md-sidebar--primary")["left"] >= -1 and nav.is_displayed())
    browser.find_element("css selector", ".md-header__button[for='__drawer']").click()


def test_lines_far_from_a_note_take_the_whole_width(browser, site, fresh):
    _load(browser, (site / SOURCE_PAGE).as_uri(), 1280, 800)
    free = browser.execute_script(
        "return Array.from(document.querySelectorAll('.rd-margin > .rd-block'), b => ["
        "b.className, b.querySelector('.rd-lines').getBoundingClientRect().width])")
    noted = [w for c, w in free if "rd-noted" in c]
    whole = [w for c, w in free if "rd-free" in c]
    assert noted and whole and min(whole) > max(noted) + 150, free


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["1280", "phone"])
def test_long_lines_wrap_between_tokens_indented_past_their_own_indentation(browser, site, fresh, size):
    _load(browser, (site / ARTICLE_PAGE).as_uri(), *size)
    lines, wrapped, mid_word = browser.execute_script(WRAPS_JS)
    assert wrapped >= 120 and mid_word == 0, (lines, wrapped, mid_word)
    rows = browser.execute_script(  # the left edge of each row of line 4 (its indentation: 4)
        "const line = document.getElementById('L4'), range = document.createRange(), lefts = new Map();"
        "const walk = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);"
        "for (let n = walk.nextNode(); n; n = walk.nextNode()) for (let i = 0; i < n.data.length; i++) {"
        "  if (n.data[i] === ' ') continue; range.setStart(n, i); range.setEnd(n, i + 1);"
        "  const r = range.getBoundingClientRect(); if (!lefts.has(r.top)) lefts.set(r.top, [r.left, r.width]); }"
        "return Array.from(lefts.values());")
    (first, ch), rest = rows[0], rows[1:]
    assert rest and all(left >= first + 4 * ch - 1 for left, _ in rest), rows
    if size[0] < 600:  # a phone: each note under its lines
        lines_box, notes_box = _rect(browser, ".rd-noted .rd-lines"), _rect(browser, ".rd-noted .rd-notes")
        assert notes_box["top"] >= lines_box["bottom"] - 1


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["1280", "phone"])
def test_page_keeps_its_height_while_scrolled_to_the_end(browser, site, fresh, size):
    _load(browser, (site / SOURCE_PAGE).as_uri(), *size)
    before, after = _scrolled_height(browser)
    assert abs(after - before) <= 0.005 * before, (before, after)


def test_wrap_toggle_scrolls_long_lines_and_is_remembered(browser, site, fresh):
    from selenium.webdriver.common.keys import Keys

    _load(browser, (site / ARTICLE_PAGE).as_uri(), 1280, 800)
    toggle = browser.find_element("css selector", ".rd-wrap")
    assert toggle.is_displayed() and toggle.get_attribute("aria-pressed") == "true"
    toggle.send_keys(Keys.SPACE)  # a button: the keyboard works it
    assert toggle.get_attribute("aria-pressed") == "false"
    assert browser.execute_script("return localStorage.getItem('reader.wrap')") == "scroll"
    _load(browser, (site / SOURCE_PAGE).as_uri(), 1280, 800)  # another page: the choice holds
    assert browser.execute_script("return document.documentElement.classList.contains('rd-scroll')")
    assert browser.find_element("css selector", ".rd-wrap").get_attribute("aria-pressed") == "false"
    lines, wrapped, _ = browser.execute_script(WRAPS_JS)
    assert wrapped == 0 and lines > 700
    box = browser.execute_script(
        "const b = document.getElementById('L4').closest('.rd-lines'); b.scrollLeft = 200;"
        "return [b.scrollWidth > b.clientWidth, b.scrollLeft];")
    assert box == [True, 200]
    before, after = _scrolled_height(browser)
    assert abs(after - before) <= 0.005 * before, (before, after)
    browser.execute_script("window.scrollTo(0, 0)")
    browser.find_element("css selector", ".rd-wrap").click()
    assert browser.execute_script("return localStorage.getItem('reader.wrap')") == "wrap"
