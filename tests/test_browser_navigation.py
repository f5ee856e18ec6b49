"""A source page as a code browser, in a real headless browser: the sticky line names the class
and function at the top of the view, a name's occurrences are marked (a local's in its function
only), `t` finds a file, `l` goes to a line; each from the keyboard too."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.browser_support import (
    build_small_site,
    chromium,
    pallas_files,
    rendered,
    server_fixture,
    wait,
)

pytestmark = pytest.mark.browser

SCOPES = '''"""Scopes."""
import math

total = 0


def area(width, height):
  total = width * height
  return total


class Shape:

  def scale(self, total):
    for i in range(3):
      total = total * 2
    return total + math.pi


def use():
  return total


def long_one(x):
''' + "  x = x + 1\n" * 80 + "  return x\n" + '''

class Spec:

  def to_mapping(self, block_shape):
    if self.block_shape:
      block_shape = resize(block_shape=block_shape)
    return self.block_shape, block_shape  # not block_shape in a comment


def resize(block_shape=None):
  return block_shape
'''
FAR = ("def target():\n    return 1\n\n\n" + "".join(f"filler_{n} = {n}\n" for n in range(240))
       + "\n\ndef caller():\n    return target()\n")  # a link at the end to the file's first line
FILES = {**pallas_files(["load"]), "pkg/scopes.py": SCOPES, "pkg/far.py": FAR}
TRACK = """title: "A navigation track"
summary: "Files."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - source: pkg/scopes.py
      - source: pkg/core.py
      - article: spec
"""
ARTICLE = """title: Spec
slug: spec
phase: 1
kind: article
order: 1
summary: One method.
reads:
  - path: pkg/scopes.py
notes:
  - id: spec-mapping
    symbol: Spec.to_mapping
    body: |
      `block_shape` is the argument; [[pkg/core.py::BlockSpec]] is another file's.
"""
PAGE = "source/pkg/scopes.py.html"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_small_site(tmp_path_factory.mktemp("navigation"), FILES, TRACK, {"spec.yaml": ARTICLE},
                            paths=("pkg", "jax"))[0]


server = server_fixture()


@pytest.fixture(scope="module")
def browser():
    with tempfile.TemporaryDirectory() as profile:
        yield from chromium(Path(profile), logs=True)


def _open(browser, url: str) -> None:
    browser.set_window_size(1280, 800)
    browser.get(url)
    wait(browser, lambda b: b.execute_script(
        "const w = document.querySelector('.rd-scope-where'); return w && w.textContent"))


def _scope(browser) -> str:
    return browser.execute_script("return document.querySelector('.rd-scope-where').textContent")


def _hover(browser, line: int, name: str, nth: int = 0) -> None:
    """The pointer on the `nth` `name` of line `line` (scrolled into view first)."""
    browser.execute_script("document.getElementById(arguments[0]).scrollIntoView({block: 'center'})", f"L{line}")
    x, y = browser.execute_script("""
      const [id, name, nth] = arguments, line = document.getElementById(id);
      const walk = document.createTreeWalker(line, NodeFilter.SHOW_TEXT); let node, seen = 0;
      while ((node = walk.nextNode())) {
        let at = -1;
        while ((at = node.data.indexOf(name, at + 1)) >= 0) {
          if (seen++ === nth) { const r = new Range(); r.setStart(node, at + 1); r.setEnd(node, at + 2);
            const b = r.getBoundingClientRect(); return [b.x + 1, b.y + b.height / 2]; }
        }
      }""", f"L{line}", name, nth)
    browser.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})


def _marked(browser) -> list[tuple[int, str]]:
    """(line, text) of each range of the `rd-ref` highlight."""
    return [tuple(x) for x in browser.execute_script("""
      const h = CSS.highlights.get('rd-ref'); if (!h) return [];
      return [...h].map(r => [+r.startContainer.parentElement.closest('[id^=L]').id.slice(1), r.toString()]);""")]


def test_the_sticky_line_names_the_function_at_the_top_of_the_view(browser, server):
    _open(browser, f"{server}/{PAGE}")
    assert _scope(browser) == "module level"
    browser.execute_script("document.getElementById('L60').scrollIntoView({block: 'start'})")
    wait(browser, lambda b: _scope(b) == "def long_one")
    browser.execute_script("document.getElementById('L16').scrollIntoView({block: 'start'})")
    wait(browser, lambda b: _scope(b) == "class Shape › def scale")
    bar, header = (browser.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().toJSON()", s)
                   for s in (".rd-scope", ".md-header"))
    assert abs(bar["top"] - header["bottom"]) < 2, (bar, header)  # stuck right under the header
    link = browser.find_element("css selector", ".rd-scope-where a:last-child")
    assert link.get_attribute("href").endswith("#L14")


def test_a_local_is_marked_in_its_function_and_a_global_in_the_file(browser, server):
    _open(browser, f"{server}/{PAGE}")
    _hover(browser, 9, "total")  # area's own `total`
    wait(browser, lambda b: _marked(b) == [(8, "total"), (9, "total")])
    assert browser.find_element("css selector", ".rd-scope-count").text == "2 × total"
    _hover(browser, 17, "total")  # scale's parameter: the def line and its body
    wait(browser, lambda b: _marked(b) == [(14, "total"), (16, "total"), (16, "total"), (17, "total")])
    _hover(browser, 21, "total")  # the module's, read in use()
    wait(browser, lambda b: _marked(b) == [(4, "total"), (21, "total")])
    _hover(browser, 17, "math")  # an import: everywhere in the file
    wait(browser, lambda b: _marked(b) == [(2, "math"), (17, "math")])


def _line_with(text: str) -> int:
    return next(n for n, line in enumerate(SCOPES.splitlines(), 1) if text in line)


def test_a_locals_marks_skip_the_attributes_and_keywords_that_share_its_name(browser, server):
    _open(browser, f"{server}/{PAGE}")
    params, call, back = (_line_with(t) for t in ("def to_mapping", "resize(block_shape", "return self.block"))
    _hover(browser, back, "block_shape", 1)  # the local, after `self.block_shape, `
    wait(browser, lambda b: _marked(b) == [(params, "block_shape"), (call, "block_shape"), (call, "block_shape"),
                                           (back, "block_shape")])
    # not `self.block_shape` (two lines), not `resize(block_shape=` nor the comment's word
    assert browser.find_element("css selector", ".rd-scope-count").text == "4 × block_shape"
    _hover(browser, back, "block_shape", 0)  # met as the attribute: the attribute's reads only
    wait(browser, lambda b: _marked(b) == [(call - 1, "block_shape"), (back, "block_shape")])
    assert browser.find_element("css selector", ".rd-scope-count").text == "2 × .block_shape"
    _hover(browser, _line_with("def resize"), "block_shape")  # a parameter in a def's header
    wait(browser, lambda b: _marked(b) == [(_line_with("def resize"), "block_shape"),
                                           (_line_with("def resize") + 1, "block_shape")])


def _hover_note(browser, word: str) -> None:
    x, y = browser.execute_script("""
      const note = document.querySelector('.rd-mn'); note.scrollIntoView({block: 'center'});
      const walk = document.createTreeWalker(note, NodeFilter.SHOW_TEXT); let node;
      while ((node = walk.nextNode())) { const at = node.data.indexOf(arguments[0]);
        if (at >= 0) { const r = new Range(); r.setStart(node, at + 1); r.setEnd(node, at + 2);
          const b = r.getBoundingClientRect(); return [b.x + 1, b.y + b.height / 2]; } }""", word)
    browser.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})


def test_a_name_in_a_note_means_what_it_means_in_the_code_beside_it(browser, server):
    _open(browser, f"{server}/{PAGE}")
    _hover_note(browser, "block_shape")  # read at the note's lines: to_mapping's local
    params = _line_with("def to_mapping")
    wait(browser, lambda b: _marked(b)[:1] == [(params, "block_shape")] and len(_marked(b)) == 4)
    _hover_note(browser, "BlockSpec")  # a link to another file's definition: no count of 0
    wait(browser, lambda b: b.find_element("css selector", ".rd-scope-count").text
         == "BlockSpec is defined in pkg/core.py")
    assert _marked(browser) == []


def test_a_focused_name_is_marked_from_the_keyboard(browser, server):
    from selenium.webdriver.common.keys import Keys

    _open(browser, f"{server}/source/pkg/call.py.html")
    link = browser.find_element("css selector", '.rd-k a[href$="core.py.html#L6"]')
    browser.execute_script("arguments[0].focus()", link)
    wait(browser, lambda b: [t for _, t in _marked(b)] == ["BlockSpec", "BlockSpec"])
    link.send_keys(Keys.TAB)


def test_t_finds_a_file_and_l_goes_to_a_line(browser, server):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    _open(browser, f"{server}/{PAGE}")
    ActionChains(browser).send_keys("t").perform()
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-finder-input"))
    assert browser.switch_to.active_element == box
    box.send_keys("pkgcor")
    wait(browser, lambda b: [a.text for a in b.find_elements("css selector", ".rd-finder-list a")][:1] == ["pkg/core.py"])
    box.send_keys(Keys.ENTER)
    wait(browser, lambda b: b.current_url.endswith("/source/pkg/core.py.html"))
    wait(browser, lambda b: b.find_elements("css selector", ".rd-scope"))
    ActionChains(browser).send_keys("l").perform()
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-goto-input"))
    box.send_keys("13", Keys.ENTER)
    wait(browser, lambda b: b.current_url.endswith("/source/pkg/core.py.html#L13"))
    top = browser.execute_script("return document.getElementById('L13').getBoundingClientRect().top")
    assert 0 < top < browser.execute_script("return innerHeight")
    assert browser.switch_to.active_element.get_attribute("aria-label") == "line 13"


def test_the_sticky_lines_buttons_open_both_from_the_keyboard(browser, server):
    from selenium.webdriver.common.keys import Keys

    _open(browser, f"{server}/{PAGE}")
    buttons = browser.find_elements("css selector", ".rd-scope-keys button")
    assert [b.text for b in buttons] == ["Go to line l", "Find a file t"]
    buttons[0].send_keys(Keys.ENTER)
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-goto-input"))
    assert browser.switch_to.active_element == box
    box.send_keys(Keys.ESCAPE)
    buttons[1].send_keys(Keys.ENTER)
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-finder-input"))
    wait(browser, lambda b: len(b.find_elements("css selector", ".rd-finder-list a")) >= 3)
    box.send_keys(Keys.ARROW_DOWN)
    assert browser.switch_to.active_element.tag_name == "a"
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_back_after_the_finder_brings_the_page_back_without_it(browser, server):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    _open(browser, f"{server}/{PAGE}")
    ActionChains(browser).send_keys("t").perform()
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-finder-input"))
    box.send_keys("pkgcor")
    wait(browser, lambda b: [a.text for a in b.find_elements("css selector", ".rd-finder-list a")][:1] == ["pkg/core.py"])
    box.send_keys(Keys.ENTER)
    wait(browser, lambda b: b.current_url.endswith("/source/pkg/core.py.html"))
    browser.back()
    wait(browser, lambda b: b.current_url.endswith(PAGE) and b.execute_script("return document.readyState") == "complete")
    assert browser.execute_script("return document.querySelectorAll('dialog[open]').length") == 0
    ActionChains(browser).send_keys("t").perform()  # opened again: empty, not the old query
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-finder-input"))
    wait(browser, lambda b: box.is_displayed())
    assert box.get_attribute("value") == ""
    box.send_keys(Keys.ESCAPE)


def test_back_within_a_file_returns_to_where_the_reader_was(browser, server):
    from selenium.webdriver.common.action_chains import ActionChains

    _open(browser, f"{server}/source/pkg/far.py.html")
    last = FAR.count("\n")
    link = browser.find_element("css selector", f"#L{last} a[href^='#']")
    for _ in range(20):  # the wheel, as a reader scrolls, until the call is in view
        top = browser.execute_script("return arguments[0].getBoundingClientRect().top", link)
        if 300 < top < 600:
            break
        ActionChains(browser).scroll_by_amount(0, int(top - 450)).perform()
        rendered(browser)
    where = browser.execute_script("return scrollY")
    assert where > 1000
    link.click()
    wait(browser, lambda b: b.execute_script("return scrollY") < where - 1000)  # the definition, at the top
    browser.back()
    wait(browser, lambda b: abs(b.execute_script("return scrollY") - where) <= 2)
    browser.forward()  # and Forward to the definition again
    wait(browser, lambda b: b.execute_script("return scrollY") < where - 1000)


def test_on_a_phone_a_path_in_the_title_breaks_after_a_slash(browser, server):
    from tests.browser_support import emulate

    emulate(browser, 390, 844)
    try:
        browser.get(f"{server}/source/jax/_src/pallas/triton/lowering.py.html")
        wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")
        rows = browser.execute_script("""
          const h1 = document.querySelector('.md-content h1'), range = document.createRange(), rows = [];
          let top = null;
          for (const node of [...h1.childNodes].filter(n => n.nodeType === 3)) {
            for (let i = 0; i < node.data.length; i++) {
              range.setStart(node, i); range.setEnd(node, i + 1);
              const r = range.getClientRects()[0];
              if (!r) continue;
              if (top === null || r.top > top + r.height / 2) { rows.push(''); top = r.top; }
              rows[rows.length - 1] += node.data[i];
            }
          }
          return rows;""")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert "".join(rows) == "jax/_src/pallas/triton/lowering.py" and len(rows) > 1, rows
    assert all(row.endswith("/") for row in rows[:-1]), rows  # never inside a name
