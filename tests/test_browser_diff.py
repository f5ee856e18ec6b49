"""A diff page in the browser: unified by default, side by side at the reader's choice (made by
diff.js from the unified view), which the next diff page opened keeps (localStorage); the notes of
both editions in both views."""

from __future__ import annotations

from functools import partial

import pytest

from tests.browser_support import browser_fixture, load, wait
from tests.test_filediff import demo  # noqa: F401  (the demo moved and built once)

pytestmark = pytest.mark.browser


browser = browser_fixture()


_open = partial(load, fresh=True)  # a new document even when only the fragment differs


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
    old, new = (browser.find_element("css selector", f".rd-split .rd-sk > div:nth-child({n})").rect for n in (1, 2))
    assert old["width"] > 200 and new["x"] >= old["x"] + old["width"] - 1  # side by side, half the width each
    _open(browser, (diffs / "primitives.py.html").as_uri())
    assert _shown(browser) == ["split"]
    assert browser.find_element("css selector", '.rd-diff-views button[data-view="split"]'
                                ).get_attribute("aria-pressed") == "true"
    _choose(browser, "unified")
    _open(browser, (diffs / "core.py.html").as_uri())
    assert _shown(browser) == ["unified"]


UNIFIED = ".rd-diff-unified .rd-k > div"
SELECTED = "return Array.from(document.querySelectorAll(arguments[0]), r => r).filter(r => r.classList.contains('rd-sel'))" \
           ".map(r => r.textContent)"
"""The text of the marked (selected) rows among those `arguments[0]` selects."""


def _new_line(n: int) -> str:
    """Line n of the demo's core.py at v1 (the new file of its diff)."""
    from tests.diff_project import CORE_V1

    return CORE_V1.splitlines()[n - 1]


def _choose(browser, view: str) -> None:
    browser.execute_script("window.scrollTo(0, 0)")
    browser.find_element("css selector", f'.rd-diff-views button[data-view="{view}"]').click()


OLD, NEW = ".rd-split .rd-k > [id^='oL']", ".rd-split .rd-k > [id^='sL']"
"""The side-by-side view's cells of each side: the old file's on the left, the new one's on the right."""
OLD_NOTES, NEW_NOTES = ".rd-split .rd-snotes > .rd-sn:first-child", ".rd-split .rd-snotes > .rd-sn:last-child"

_SIDES = """
const rows = s => Array.from(document.querySelectorAll(s)).map(r =>
  [r.className, r.getAttribute('data-l').trim(), r.textContent]);
return [rows(arguments[0]), rows(arguments[1])];
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
    left, right = browser.execute_script(_SIDES, OLD, NEW)
    # Row for row, a removed line beside the line that replaced it, each numbered in its file.
    assert len(left) == len(right)
    assert (["rd-del", "9", "    total = a + b"], ["rd-add", "15", "    total = a * b"]) in list(zip(left, right, strict=True))
    assert ["rd-eq", "5", "    return x + 1"] in left and ["rd-eq", "11", "    return x + 1"] in right
    # The previous edition's note in the left column beside the old lines, this edition's on the right.
    assert browser.execute_script(_NOTE, OLD_NOTES, "Gone in v1.") == {
        "lines": ["def deleted_fn():", "    return None"], "tag": was["tag"], "seen": True}
    assert browser.execute_script(_NOTE, NEW_NOTES, "Gone in v1.") is None
    now = browser.execute_script(_NOTE, NEW_NOTES, "Now the product.")
    assert now == {"lines": ["    total = a * b"], "tag": None, "seen": True}
    assert browser.execute_script(_NOTE, OLD_NOTES, "Now the product.") is None
    # No id twice on the page; a note's link to its lines names its first line's own id (diff.js marks
    # that line in the view shown).
    assert browser.execute_script(
        "const ids = Array.from(document.querySelectorAll('[id]'), e => e.id); return ids.length - new Set(ids).size") == 0
    href = browser.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' .rd-mn')).find(n => n.textContent.includes('Gone in v1.'))"
        ".querySelector('.rd-range').getAttribute('href')", OLD_NOTES)
    target = browser.execute_script("return document.getElementById(arguments[0].slice(1)).textContent", href)
    assert href.startswith("#old-L") and target == "def deleted_fn():"
    # A URL naming a line of either file lands on it, side by side and unified.
    for line, side, text in (("new-L15", NEW, "    total = a * b"), ("old-L9", OLD, "    total = a + b")):
        _open(browser, (diffs / "core.py.html").as_uri() + "#" + line)
        assert browser.execute_script(SELECTED, side) == [text]
    _choose(browser, "unified")
    _open(browser, (diffs / "core.py.html").as_uri() + "#old-L9")
    assert browser.execute_script(SELECTED, UNIFIED) == ["    total = a + b"]
    _choose(browser, "split")
    # Side by side, names stay linked and highlighted (painted as the reader scrolls to them).
    _open(browser, (diffs / "triton" / "lowering.py.html").as_uri())
    wait(browser, lambda b: b.execute_script("return document.querySelectorAll('.rd-split .rd-k.rd-on').length > 0"))
    link = browser.execute_script(
        "const a = Array.from(document.querySelectorAll(arguments[0] + ' a')).find(a => a.textContent === 'get_p');"
        "return a && [a.getAttribute('href'), a.title]", NEW)  # its title put back as it was painted
    assert link and link[0].endswith("source/jax/_src/pallas/primitives.py.html#L5") and link[1].endswith("get_p")
    assert browser.execute_script("return document.querySelectorAll(arguments[0] + ' span[class]').length", OLD) > 0
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
    for view, side in (("unified", UNIFIED), ("split", NEW)):
        _open(browser, (diffs / "core.py.html").as_uri())
        _choose(browser, view)
        _go_to_line(browser, 15)
        assert browser.current_url.endswith("#new-L15")
        assert browser.execute_script(SELECTED, side) == ["    total = a * b"]
    _choose(browser, "unified")
    # A line the diff does not show: its context opens around it, and it is marked.
    unshown = browser.execute_script(_UNSHOWN)
    assert unshown, "the demo's core.py diff shows every line"
    _go_to_line(browser, unshown)
    wait(browser, lambda b: b.execute_script(SELECTED, UNIFIED) == [_new_line(unshown)])


_ALIGNMENT = """
// The worst vertical offset between a row's two sides, and between each hunk head's, in px.
const cells = Array.from(document.querySelectorAll('.rd-split .rd-sk > div'));
let worst = 0, heads = 0;
for (let i = 0; i + 1 < cells.length; i += 2) {
  const a = cells[i].getBoundingClientRect(), b = cells[i + 1].getBoundingClientRect();
  worst = Math.max(worst, Math.abs(a.top - b.top), Math.abs(a.height - b.height));
  if (cells[i].classList.contains('rd-hunk')) heads = Math.max(heads, Math.abs(a.top - b.top));
}
return [worst, heads, cells.length / 2];
"""


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_side_by_side_keeps_each_rows_sides_and_hunk_heads_aligned(demo, browser, size):  # noqa: F811
    """A row's sides share its height (a long line wrapped on one side, notes in rows of their own):
    every hunk head's two sides are on one row."""
    root, _cache = demo
    browser.set_window_size(*size)
    try:
        _open(browser, (root / "site/diffs/jax/_src/pallas/core.py.html").as_uri())
        _choose(browser, "split")
        worst, heads, rows = browser.execute_script(_ALIGNMENT)
        assert rows > 10 and worst < 1 and heads < 1, (worst, heads)
        assert browser.execute_script("return document.querySelectorAll('.rd-split .rd-snotes').length") >= 2
    finally:
        browser.set_window_size(1400, 1000)
        _choose(browser, "unified")


def test_a_line_in_the_url_is_marked_and_shown_on_a_fresh_load_in_both_views(demo, browser):  # noqa: F811
    root, _cache = demo
    url = (root / "site/diffs/jax/_src/pallas/core.py.html").as_uri()
    for view, line, side, text in (("unified", "new-L15", UNIFIED, "    total = a * b"),
                                   ("unified", "old-L9", UNIFIED, "    total = a + b"),
                                   ("split", "new-L15", NEW, "    total = a * b"),
                                   ("split", "old-L9", OLD, "    total = a + b")):
        _open(browser, url)
        _choose(browser, view)  # kept for the next load
        _open(browser, f"{url}#{line}")
        wait(browser, lambda b, side=side, text=text: b.execute_script(SELECTED, side) == [text])
        top = browser.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).find(r => r.classList.contains('rd-sel'))"
            ".getBoundingClientRect().top", side)
        assert 0 < top < browser.execute_script("return innerHeight"), (view, line, top)
    _choose(browser, "unified")


def test_hidden_context_expands_in_both_views(demo, browser):  # noqa: F811
    """Between the demo's two hunks, new lines 19-20 (old 13-14) are hidden: one button shows them."""
    root, _cache = demo
    _open(browser, (root / "site/diffs/jax/_src/pallas/core.py.html").as_uri())
    _choose(browser, "unified")
    button = wait(browser, lambda b: b.find_element("css selector", ".rd-diff-unified .rd-expand button"))
    assert button.text == "2 unchanged lines (19\u201320)"
    button.click()
    rows = wait(browser, lambda b: b.execute_script(
        "return Array.from(document.querySelectorAll('.rd-diff-unified .rd-ctx[data-l]'), r => [r.getAttribute('data-l'), r.textContent])"))
    assert rows == [["   13    19", _new_line(19)], ["   14    20", _new_line(20)]]
    assert not browser.find_elements("css selector", ".rd-diff-unified .rd-expand:not([hidden])")
    _choose(browser, "split")  # the side-by-side view has them too, each side numbered in its file
    left, right = browser.execute_script(_SIDES, OLD, NEW)
    assert ["rd-eq rd-ctx", "13", _new_line(19)] in left and ["rd-eq rd-ctx", "19", _new_line(19)] in right
    _choose(browser, "unified")


def test_n_and_p_go_to_the_next_and_previous_change_and_the_files_list_links_the_others(demo, browser):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains

    root, _cache = demo
    _open(browser, (root / "site/diffs/jax/_src/pallas/core.py.html").as_uri())
    _choose(browser, "unified")
    seen = []
    for key in ("n", "n", "n", "p"):
        ActionChains(browser).send_keys(key).perform()
        wait(browser, lambda b: b.execute_script("return location.hash") not in ("", *seen[-1:]))
        seen.append(browser.execute_script("return location.hash"))
    assert seen[0] == "#new-L3" and seen[3] == seen[1] and len(set(seen[:3])) == 3, seen
    status = browser.find_element("css selector", ".rd-diff-status").text
    assert status.startswith("Change 2 of "), status
    # The other changed files: one script for every page, listed when the list opens.
    browser.find_element("css selector", ".rd-diff-files summary").click()
    files = wait(browser, lambda b: b.execute_script(
        "return Array.from(document.querySelectorAll('.rd-diff-files li a'), a => [a.textContent, a.getAttribute('aria-current'),"
        " a.href])"))
    assert ["jax/_src/pallas/core.py", "page"] in [f[:2] for f in files] and len(files) >= 2
    assert all(current is None for path, current, _ in files if path != "jax/_src/pallas/core.py")
    other = next(href for path, _, href in files if path != "jax/_src/pallas/core.py")
    assert (root / "site" / "diffs").joinpath(other.split("/diffs/", 1)[1]).is_file()
