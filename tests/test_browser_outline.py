"""In a real headless browser: a source page opens on its code (desktop and phone), its outline is
a sticky column beside the code on a wide screen and a drawer on a phone, opened and closed by the
keyboard; search lands on lines: a definition's result on `#L<n>`, a note's words on the note."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser_support import (
    browser_fixture,
    build_small_site,
    console_errors,
    load,
    rect,
    search,
    server_fixture,
    wait,
)

pytestmark = pytest.mark.browser

OPS = '"""Lowering rules for the small backend."""\n\nrules = {}\n\n\nclass Registry:\n' \
    '    """Where each rule is kept."""\n\n    def add(self, name, fn, *, replace=False):\n' \
    '        rules[name] = fn\n\n    def get(self, name):\n        return rules[name]\n' + "".join(
        f'\n\ndef _op{i:02d}_rule(ctx, x):\n    """The rule of op{i:02d}."""\n    return x\n'
        for i in range(80))
FILES = {"pkg/__init__.py": "", "pkg/ops.py": OPS}
NOTE_FN = "_op70_rule"
TRACK = """title: "An outline track"
summary: "One article."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "Rules"
        slug: rules
      - source: pkg/ops.py
"""
ARTICLE = f"""title: "Rules"
slug: rules
phase: 1
kind: article
order: 1
summary: Reads the rules.
reads:
  - path: pkg/ops.py
intro: |
  The rules, line by line.
notes:
  - id: rules-late
    symbol: {NOTE_FN}
    body: |
      A HiPrimitive pre-registers generic rules here, once per backend.
"""
PAGE = "source/pkg/ops.py.html"
DESKTOP, WIDE, PHONE = (1400, 1000), (2000, 1000), (412, 915)  # the column from 120em (outline.css)


def _line_of(name: str) -> int:
    return next(n for n, text in enumerate(OPS.split("\n"), 1) if f"def {name}(" in text)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_small_site(tmp_path_factory.mktemp("outline"), FILES, TRACK, {"rules.yaml": ARTICLE})[0]


server = server_fixture()


browser = browser_fixture(logs=True)


def _load(browser, url: str, size: tuple[int, int]) -> None:
    browser.set_window_size(*size)
    load(browser, url, fresh=True)


_rect = rect


def _panel_shown(browser) -> bool:
    return browser.execute_script(
        "return getComputedStyle(document.querySelector('.rd-outline-panel')).display !== 'none'")


_errors = console_errors


@pytest.mark.parametrize("size", [DESKTOP, WIDE, PHONE], ids=["desktop", "wide", "phone"])
def test_the_code_is_the_first_thing_under_the_title(browser, server, size, tmp_path):
    _load(browser, f"{server}/{PAGE}", size)
    height = browser.execute_script("return window.innerHeight")
    title, code = _rect(browser, ".md-content h1"), _rect(browser, ".rd-file")
    assert title["bottom"] <= code["top"] < height / 2, (title, code)
    between = browser.execute_script("""
        var out = [], el = document.querySelector('.md-content h1').nextElementSibling;
        for (; el && !el.querySelector('.rd-file'); el = el.nextElementSibling) {
          if (el.id !== 'rd-main') out.push(el.className);  // the skip link's target: empty
        }
        return out;""")
    assert between == ["rd-meta"], between  # no wall of names above the code
    assert "Defines" not in browser.find_element("css selector", ".md-content").text
    browser.save_screenshot(str(tmp_path / f"top-{size[0]}.png"))
    assert _errors(browser) == []


def test_wide_screen_outline_is_a_sticky_column_beside_the_code(browser, server):
    _load(browser, f"{server}/{PAGE}", WIDE)
    assert _panel_shown(browser)
    panel, code = _rect(browser, ".rd-outline-panel"), _rect(browser, ".rd-file")
    assert panel["left"] >= code["right"] - 1, (panel, code)
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight / 2)")
    panel = _rect(browser, ".rd-outline-panel")
    assert 0 <= panel["top"] < 200, panel  # still in view halfway down the file
    names = browser.execute_script(
        "return Array.from(document.querySelectorAll('.rd-ol > li > a'), a => a.textContent)")
    assert names[:3] == ["rules", "Registry", "_op00_rule"]
    methods = browser.execute_script(
        "return Array.from(document.querySelectorAll('.rd-ol > li > ul a'), a => a.getAttribute('href'))")
    assert methods == [f"#L{_line_of('add')}", f"#L{_line_of('get')}"]


def test_outline_opens_and_closes_by_keyboard_and_keeps_the_choice(browser, server):
    from selenium.webdriver.common.keys import Keys

    _load(browser, f"{server}/{PAGE}", WIDE)
    browser.execute_script("localStorage.clear()")
    _load(browser, f"{server}/{PAGE}", WIDE)
    toggle = browser.find_element("css selector", ".rd-outline-toggle")
    assert _panel_shown(browser) and toggle.get_attribute("aria-expanded") == "true"
    toggle.send_keys(Keys.ENTER)
    assert not _panel_shown(browser) and toggle.get_attribute("aria-expanded") == "false"
    _load(browser, f"{server}/{PAGE}", WIDE)  # the reader's choice is kept
    toggle = browser.find_element("css selector", ".rd-outline-toggle")
    assert not _panel_shown(browser) and toggle.get_attribute("aria-expanded") == "false"
    toggle.send_keys(Keys.SPACE)
    assert _panel_shown(browser)
    browser.execute_script("localStorage.clear()")


def test_phone_outline_is_a_drawer_escape_closes_and_a_name_lands_on_its_line(browser, server, tmp_path):
    from selenium.webdriver.common.keys import Keys

    _load(browser, f"{server}/{PAGE}", PHONE)
    toggle = browser.find_element("css selector", ".rd-outline-toggle")
    assert not _panel_shown(browser) and toggle.get_attribute("aria-expanded") == "false"
    code_top = _rect(browser, ".rd-file")["top"]
    toggle.send_keys(Keys.ENTER)
    assert _panel_shown(browser) and toggle.get_attribute("aria-expanded") == "true"
    focused = browser.execute_script("return document.activeElement.classList.contains('rd-outline-filter')")
    assert focused  # the focus moves into the drawer
    assert _rect(browser, ".rd-file")["top"] == code_top  # drawn over the page, not pushing it
    browser.save_screenshot(str(tmp_path / "drawer.png"))
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert not _panel_shown(browser)
    assert browser.execute_script("return document.activeElement.classList.contains('rd-outline-toggle')")
    # the filter narrows the names; Tab past the last one closes the drawer
    toggle.send_keys(Keys.ENTER)
    browser.switch_to.active_element.send_keys("op41", Keys.TAB)
    assert browser.switch_to.active_element.text == "_op41_rule"
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert not _panel_shown(browser)
    # a name chosen closes the drawer and lands on its line, which takes the focus
    toggle.send_keys(Keys.ENTER)
    box = browser.switch_to.active_element
    box.send_keys(Keys.BACKSPACE, "2")
    shown = browser.execute_script("return Array.from(document.querySelectorAll('.rd-ol a'))"
                                   ".filter(a => a.offsetParent).map(a => a.textContent)")
    assert shown == ["_op42_rule"]
    line = _line_of("_op42_rule")
    browser.find_element("css selector", f'.rd-ol a[href="#L{line}"]').click()
    wait(browser, lambda b: b.current_url.endswith(f"#L{line}"))
    assert not _panel_shown(browser)
    top = _rect(browser, f"#L{line}")["top"]
    assert 0 <= top < browser.execute_script("return window.innerHeight"), top
    assert browser.execute_script(f"return !!document.activeElement.closest('#L{line}')")


def _at(url: str, page: str, fragment: str) -> bool:
    """`url` is `page` (its path's end) at `#fragment`, whatever its query (`?h=`: highlighting)."""
    parts = urlsplit(url)
    return parts.path.endswith("/" + page) and parts.fragment == fragment


def _search(browser, words: str, page: str, fragment: str):
    """The search results for `words` that link to `page#fragment`."""
    return [a for a in search(browser, words, lambda href: _at(href, page, fragment))
            if _at(a.get_attribute("href") or "", page, fragment)]


def test_a_notes_words_find_the_note_and_land_on_its_line(browser, server, tmp_path):
    from selenium.webdriver.common.keys import Keys

    _load(browser, f"{server}/index.html", DESKTOP)
    results = _search(browser, "HiPrimitive", "articles/rules.html", "note-rules-late")
    assert "pre-registers generic" in results[0].text
    browser.save_screenshot(str(tmp_path / "search-note.png"))
    results[0].send_keys(Keys.ENTER)
    wait(browser, lambda b: _at(b.current_url, "articles/rules.html", "note-rules-late"))
    line = _line_of(NOTE_FN)
    note, first = _rect(browser, "#note-rules-late"), _rect(browser, f"#L{line}")
    height = browser.execute_script("return window.innerHeight")
    assert 0 <= note["top"] < height and 0 <= first["top"] < height, (note, first)
    assert abs(note["top"] - first["top"]) < 40, (note, first)  # the note beside its line
    assert _errors(browser) == []


def test_a_definitions_result_lands_on_its_line(browser, server):
    from selenium.webdriver.common.keys import Keys

    line = _line_of("_op55_rule")
    _load(browser, f"{server}/index.html", DESKTOP)
    results = _search(browser, "_op55_rule", PAGE, f"L{line}")
    assert results[0].text.startswith("function _op55_rule\n")
    assert "_op55_rule(ctx, x): The rule of op55." in results[0].text
    results[0].send_keys(Keys.ENTER)
    wait(browser, lambda b: _at(b.current_url, PAGE, f"L{line}"))
    el = browser.find_element("id", f"L{line}")
    assert "def _op55_rule" in el.text
    top = _rect(browser, f"#L{line}")["top"]
    assert 0 <= top < browser.execute_script("return window.innerHeight"), top


def test_search_from_disk_finds_a_method_by_its_name(browser, site):
    _load(browser, (site / "index.html").as_uri(), DESKTOP)
    results = _search(browser, "Registry.add", PAGE, f"L{_line_of('add')}")
    assert results[0].text.startswith("method Registry.add\n")
    assert "add(self, name, fn, *, replace)" in results[0].text
    assert _errors(browser) == []


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_with_the_outline_open(browser, server, scheme):
    from selenium.webdriver.common.keys import Keys

    from tests.test_browser_a11y import axe_violations, set_scheme

    _load(browser, f"{server}/{PAGE}#L{_line_of('_op03_rule')}", WIDE)
    set_scheme(browser, scheme)
    assert _panel_shown(browser)  # with the current name marked
    assert browser.execute_script("return document.querySelector('.rd-ol a[aria-current]').textContent") \
        == "_op03_rule"
    assert axe_violations(browser, scheme) == []
    _load(browser, f"{server}/{PAGE}", PHONE)
    browser.find_element("css selector", ".rd-outline-toggle").send_keys(Keys.ENTER)
    assert _panel_shown(browser)
    assert axe_violations(browser, scheme) == []
    browser.set_window_size(*DESKTOP)


@pytest.mark.parametrize("size", [WIDE, DESKTOP], ids=["column", "drawer"])
def test_choosing_a_name_keeps_the_focus(browser, server, size):
    """In the column the chosen name keeps it; from the drawer (which closes) its line's number takes it."""
    from selenium.webdriver.common.keys import Keys

    _load(browser, f"{server}/{PAGE}", size)
    browser.execute_script("localStorage.clear()")
    _load(browser, f"{server}/{PAGE}", size)
    if not _panel_shown(browser):
        browser.find_element("css selector", ".rd-outline-toggle").send_keys(Keys.ENTER)
    line = _line_of("_op30_rule")
    link = browser.find_element("css selector", f'.rd-ol a[href="#L{line}"]')
    browser.execute_script("arguments[0].focus()", link)
    link.send_keys(Keys.ENTER)
    wait(browser, lambda b: b.current_url.endswith(f"#L{line}"))
    want = "a" if size == WIDE else ".rd-n"
    wait(browser, lambda b: b.execute_script(
        "const a = document.activeElement; return a !== document.body && a.matches(arguments[0])"
        " && (a.getAttribute('href') === arguments[1] || a.closest('[id]').id === arguments[1].slice(1))",
        want, f"#L{line}"))


@pytest.mark.parametrize("size", [(1440, 900), PHONE], ids=["1440", "phone"])
def test_the_drawer_opens_under_its_button_which_stays_in_view(browser, server, size):
    _load(browser, f"{server}/{PAGE}", size)
    wait(browser, lambda b: b.find_elements("css selector", ".rd-scope"))
    toggle = browser.find_element("css selector", ".rd-outline-toggle")
    toggle.click()
    wait(browser, _panel_shown)
    button, panel = _rect(browser, ".rd-outline-toggle"), _rect(browser, ".rd-outline-panel")
    assert button["bottom"] <= panel["top"] + 1, (button, panel)
    clear = ("const r = arguments[0].getBoundingClientRect();"
             "return document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2) === arguments[0]")
    assert browser.execute_script(clear, toggle)
    browser.execute_script("window.scrollBy(0, 600)")  # the scope line sticks under the header: the drawer follows
    wait(browser, lambda b: _rect(b, ".rd-outline-panel")["top"] < panel["top"] - 100)
    button, panel = _rect(browser, ".rd-outline-toggle"), _rect(browser, ".rd-outline-panel")
    assert button["bottom"] <= panel["top"] + 1 and browser.execute_script(clear, toggle), (button, panel)
    toggle.click()  # and it closes the drawer
    assert not _panel_shown(browser)
