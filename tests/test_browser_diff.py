"""A diff page in the browser: unified by default, side by side at the reader's choice (made by
diff.js from the unified view), which the next diff page opened keeps (localStorage); the notes of
both editions in both views."""

from __future__ import annotations

import pytest

from tests.browser_support import chromium, wait
from tests.test_filediff import demo  # noqa: F401  (the demo moved and built once)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium(tmp_path_factory.mktemp("chromium-profile"))


def _open(browser, url: str) -> None:
    browser.get(url)
    wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")


def _shown(browser) -> list[str]:
    """The diff views made and laid out (display not none)."""
    return browser.execute_script(
        "return ['unified', 'split'].filter(v => { const e = document.querySelector('.rd-diff-' + v);"
        " return e && getComputedStyle(e).display !== 'none'; })")


def test_the_choice_of_layout_is_kept_for_the_next_diff_page(demo, browser):  # noqa: F811
    root, _cache = demo
    diffs = root / "site" / "diffs" / "jax" / "_src" / "pallas"
    _open(browser, (diffs / "core.py.html").as_uri())
    assert _shown(browser) == ["unified"]
    browser.find_element("css selector", '.rd-diff-views button[data-view="split"]').click()
    assert _shown(browser) == ["split"]
    # Both sides are on the screen at once, the new one to the right of the old one.
    old, new = (browser.find_element("css selector", f".rd-diff-{s}").rect for s in ("old", "new"))
    assert old["width"] > 200 and new["x"] >= old["x"] + old["width"]
    _open(browser, (diffs / "primitives.py.html").as_uri())
    assert _shown(browser) == ["split"]
    assert browser.find_element("css selector", '.rd-diff-views button[data-view="split"]'
                                ).get_attribute("aria-pressed") == "true"
    _choose(browser, "unified")
    _open(browser, (diffs / "core.py.html").as_uri())
    assert _shown(browser) == ["unified"]


def _choose(browser, view: str) -> None:
    browser.execute_script("window.scrollTo(0, 0)")
    browser.find_element("css selector", f'.rd-diff-views button[data-view="{view}"]').click()


_SIDES = """
const rows = s => Array.from(document.querySelectorAll('.rd-diff-' + s + ' .rd-k > div')).map(r =>
  [r.className, r.getAttribute('data-l').trim(), r.textContent]);
return [rows('old'), rows('new')];
"""

_NOTE = """
const note = Array.from(document.querySelectorAll(arguments[0] + ' .rd-mn'))
  .find(n => n.textContent.includes(arguments[1]));
if (!note) return null;
const m = /^(.*?L)(\\d+)(?:-L(\\d+))?$/.exec(note.getAttribute('data-lines'));
const lines = [];
for (let n = +m[2]; n <= +(m[3] || m[2]); n++) lines.push(document.getElementById(m[1] + n).textContent);
const tag = note.querySelector('.rd-old-tag');
return {lines, tag: tag && tag.textContent, seen: note.getBoundingClientRect().height > 0};
"""


def test_both_views_show_both_editions_notes_with_live_code(demo, browser):  # noqa: F811
    root, _cache = demo
    diffs = root / "site" / "diffs" / "jax" / "_src" / "pallas"
    _open(browser, (diffs / "core.py.html").as_uri())
    _choose(browser, "unified")
    # Unified: v0's note on deleted_fn beside its removed lines, tagged; v1's beside the new line.
    was = browser.execute_script(_NOTE, ".rd-diff-unified", "Gone in v1.")
    assert was == {"lines": ["def deleted_fn():", "    return None"], "tag": was["tag"], "seen": True}
    assert was["tag"].startswith("jax ") and was["tag"].endswith(" edition")
    assert browser.execute_script(_NOTE, ".rd-diff-unified", "Now the product.")["tag"] is None
    _choose(browser, "split")
    left, right = browser.execute_script(_SIDES)
    # Row for row, a removed line beside the line that replaced it, each numbered in its file.
    assert len(left) == len(right)
    assert (["rd-del", "9", "    total = a + b"], ["rd-add", "15", "    total = a * b"]) in list(zip(left, right, strict=True))
    assert ["rd-eq", "5", "    return x + 1"] in left and ["rd-eq", "11", "    return x + 1"] in right
    # The previous edition's note in the left column beside the old lines, this edition's on the right.
    assert browser.execute_script(_NOTE, ".rd-diff-old", "Gone in v1.") == {
        "lines": ["def deleted_fn():", "    return None"], "tag": was["tag"], "seen": True}
    assert browser.execute_script(_NOTE, ".rd-diff-new", "Gone in v1.") is None
    now = browser.execute_script(_NOTE, ".rd-diff-new", "Now the product.")
    assert now == {"lines": ["    total = a * b"], "tag": None, "seen": True}
    assert browser.execute_script(_NOTE, ".rd-diff-old", "Now the product.") is None
    # No id twice on the page; a note's link to its lines goes to the side's own row.
    assert browser.execute_script(
        "const ids = Array.from(document.querySelectorAll('[id]'), e => e.id); return ids.length - new Set(ids).size") == 0
    href = browser.execute_script(
        "return Array.from(document.querySelectorAll('.rd-diff-old .rd-mn')).find(n => n.textContent.includes('Gone in v1.'))"
        ".querySelector('.rd-range').getAttribute('href')")
    target = browser.execute_script("return document.getElementById(arguments[0].slice(1)).textContent", href)
    assert href.startswith("#oL") and target == "def deleted_fn():"
    # A URL naming a line of either file lands on it, side by side and unified.
    selected = "return Array.from(document.querySelectorAll(arguments[0] + ' .rd-sel'), r => r.textContent)"
    for line, side, text in (("new-L15", ".rd-diff-new", "    total = a * b"), ("old-L9", ".rd-diff-old", "    total = a + b")):
        _open(browser, (diffs / "core.py.html").as_uri() + "#" + line)
        assert browser.execute_script(selected, side) == [text]
    _choose(browser, "unified")
    _open(browser, (diffs / "core.py.html").as_uri() + "#old-L9")
    assert browser.execute_script(selected, ".rd-diff-unified") == ["    total = a + b"]
    _choose(browser, "split")
    # Side by side, names stay linked and highlighted (painted as the reader scrolls to them).
    _open(browser, (diffs / "triton" / "lowering.py.html").as_uri())
    wait(browser, lambda b: b.execute_script("return document.querySelectorAll('.rd-diff-new .rd-k.rd-on').length > 0"))
    link = browser.execute_script(
        "const a = Array.from(document.querySelectorAll('.rd-diff-new a')).find(a => a.textContent === 'get_p');"
        "return a && [a.getAttribute('href'), a.title]")  # its title put back as it was painted
    assert link and link[0].endswith("source/jax/_src/pallas/primitives.py.html#L5") and link[1].endswith("get_p")
    assert browser.execute_script("return document.querySelectorAll('.rd-diff-old .rd-k.rd-on span[class]').length") > 0
    _choose(browser, "unified")


_UNSHOWN = """
const shown = new Set(Array.from(document.querySelectorAll('.rd-diff-unified .rd-k > div:not(.rd-hunk, .rd-del)'),
                                 r => +r.getAttribute('data-l').slice(6, 11)));
for (let n = 1; n <= window.readerDiff.lines; n++) if (!shown.has(n)) return n;
return null;
"""


def _go_to_line(browser, n: int) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser.find_element("tag name", "body").click()
    ActionChains(browser).send_keys("l").perform()
    wait(browser, lambda b: b.find_element("css selector", "input.rd-goto-input").is_displayed())
    ActionChains(browser).send_keys(str(n), Keys.ENTER).perform()


def test_go_to_line_goes_to_the_new_files_line_in_the_view_shown(demo, browser):  # noqa: F811
    root, _cache = demo
    diffs = root / "site" / "diffs" / "jax" / "_src" / "pallas"
    selected = "return Array.from(document.querySelectorAll(arguments[0] + ' .rd-sel'), r => r.textContent)"
    for view, side in (("unified", ".rd-diff-unified"), ("split", ".rd-diff-new")):
        _open(browser, (diffs / "core.py.html").as_uri())
        _choose(browser, view)
        _go_to_line(browser, 15)
        assert browser.current_url.endswith("#new-L15")
        assert browser.execute_script(selected, side) == ["    total = a * b"]
    _choose(browser, "unified")
    # A line the diff does not show: on the file's own page.
    unshown = browser.execute_script(_UNSHOWN)
    assert unshown, "the demo's core.py diff shows every line"
    _go_to_line(browser, unshown)
    wait(browser, lambda b: b.current_url.endswith(f"source/jax/_src/pallas/core.py.html#L{unshown}"))
