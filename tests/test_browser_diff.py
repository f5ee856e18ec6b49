"""A diff page in the browser: unified by default, side by side at the reader's choice, which
the next diff page opened keeps (localStorage)."""

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
    """The diff views laid out (display not none)."""
    return browser.execute_script(
        "return ['unified', 'split'].filter(v => getComputedStyle("
        "document.querySelector('.rd-diff-' + v)).display !== 'none')")


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
    browser.find_element("css selector", '.rd-diff-views button[data-view="unified"]').click()
    _open(browser, (diffs / "core.py.html").as_uri())
    assert _shown(browser) == ["unified"]
