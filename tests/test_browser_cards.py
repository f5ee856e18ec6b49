"""Hover cards in a real headless browser (Debian's chromium + chromedriver, driven by selenium):
hovering an identifier on a source page or an article shows its definition's card (header and
first lines, docstring, file:line, count of uses, notes), loaded from the file's card script on demand;
focusing the link shows it too, Down arrow enters it, Escape closes it; it works opened from disk
(file://), logs no error, and its text keeps WCAG AA contrast in the light and dark schemes. A
`#uses-` fragment, the card's "Find references", `r` on a name and a definitions list's count open
the references list: every use with its line of code and a link, the definition first."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser_support import (
    CONTRAST_JS,
    browser_fixture,
    build_small_site,
    console_errors,
    load,
    server_fixture,
    wait,
)
from tests.golden import CALL, CORE

pytestmark = pytest.mark.browser

FILES = {"pkg/__init__.py": "", "pkg/core.py": CORE.replace("fixture", "pkg"),
         "pkg/call.py": CALL.replace("fixture", "pkg")}
TRACK = """title: "A card track"
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
    body: The caller.
  - id: demo-spec
    path: pkg/core.py
    symbol: BlockSpec
    body: A spec is **frozen**, so a mapping is made once per call.
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_small_site(tmp_path_factory.mktemp("cards"), FILES, TRACK, {"demo.yaml": ARTICLE})[0]


server = server_fixture()


browser = browser_fixture(logs=True)


_load = load


_errors = console_errors


def _hover(browser, css: str):
    """Hover the first element `css` selects; the card once it shows."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    link = browser.find_element(By.CSS_SELECTOR, css)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
    ActionChains(browser).move_to_element(link).perform()
    return link, wait(browser, lambda b: _shown_card(b))


def _shown_card(browser):
    from selenium.webdriver.common.by import By

    found = browser.find_elements(By.CSS_SELECTOR, "#rd-card")
    return found[0] if found and found[0].is_displayed() else None


def _hrefs(card, css: str = "a") -> list[str]:
    from selenium.webdriver.common.by import By

    return [a.get_attribute("href") for a in card.find_elements(By.CSS_SELECTOR, css)]


def test_hovering_an_identifier_on_a_source_page_shows_its_card(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    _load(browser, f"{server}/source/pkg/call.py.html")
    _errors(browser)
    link, card = _hover(browser, '.rd-file a[href="core.py.html#L6"]')
    text = card.text
    assert "BlockSpec" in text and "CLASS" in text.upper()
    assert "class BlockSpec:" in text and "@dataclasses.dataclass(frozen=True)" in text  # header
    assert "A block of an array." in text  # the docstring's first line
    assert "pkg/core.py:6" in text and f"{server}/source/pkg/core.py.html#L6" in _hrefs(card)
    assert "1 use in 1 file" in text
    assert link.get_attribute("aria-expanded") == "true"
    note = card.find_element(By.CSS_SELECTOR, ".rd-card-notes a")
    assert note.get_attribute("href") == f"{server}/articles/demo.html#note-demo-spec"
    assert "A spec is frozen, so a mapping" in text
    assert _hrefs(card, ".rd-card-refs") == [f"{server}/source/pkg/core.py.html#uses-BlockSpec"]
    browser.save_screenshot(str(tmp_path / "card-source.png"))
    assert _errors(browser) == []


def test_an_article_peeks_at_a_definition_without_leaving_the_page(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    _load(browser, f"{server}/articles/demo.html")
    _errors(browser)
    _, card = _hover(browser, '.rd-file a[href="../source/pkg/core.py.html#L17"]')
    code = card.find_element(By.CSS_SELECTOR, ".rd-card-code").text
    assert "class BlockMapping:" in code and "def __init__(self, spec, grid):" in code
    assert "self.spec = spec" in code  # the body's first lines: a peek
    assert "2 uses in 2 files" in card.text
    assert browser.current_url == f"{server}/articles/demo.html"
    # a definition's own name (it links to its `#uses-` entry) has a card too
    _, card = _hover(browser, '.rd-file a[href="../source/pkg/call.py.html#uses-pallas_call"]')
    assert "def pallas_call(kernel, spec: BlockSpec):" in card.text
    note = card.find_element(By.CSS_SELECTOR, ".rd-card-notes a")
    assert note.get_attribute("href") == f"{server}/articles/demo.html#note-demo-call"
    browser.save_screenshot(str(tmp_path / "card-article.png"))
    assert _errors(browser) == []


def test_the_card_opens_and_closes_from_the_keyboard(browser, server):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    _load(browser, f"{server}/source/pkg/call.py.html")
    _errors(browser)
    link = browser.find_element(By.CSS_SELECTOR, '.rd-file a[href="core.py.html#L6"]')
    browser.execute_script("arguments[0].focus()", link)  # as a Tab onto it does
    card = wait(browser, lambda b: _shown_card(b))
    assert "moves into this card" in card.text
    keys = ActionChains(browser)
    keys.send_keys(Keys.ARROW_DOWN).perform()
    focused = browser.switch_to.active_element
    assert browser.execute_script("return arguments[0].closest('#rd-card') !== null", focused)
    assert focused.get_attribute("href") == f"{server}/source/pkg/core.py.html#L6"
    for _ in range(3):  # Tab moves through the card: "more lines", then "Find references"
        ActionChains(browser).send_keys(Keys.TAB).perform()
        if "rd-card-refs" in browser.switch_to.active_element.get_attribute("class"):
            break
    assert browser.switch_to.active_element.text == "Find references"
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, lambda b: _shown_card(b) is None)
    assert browser.switch_to.active_element == link  # back where the reader was
    assert link.get_attribute("aria-expanded") == "false"
    browser.execute_script("arguments[0].blur(); arguments[0].focus()", link)
    wait(browser, lambda b: _shown_card(b))
    ActionChains(browser).send_keys(Keys.ARROW_DOWN).perform()
    ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
    assert browser.switch_to.active_element == link and _shown_card(browser)  # back, still open
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()  # closes from the link too
    wait(browser, lambda b: _shown_card(b) is None)
    assert _errors(browser) == []


REFS = """
const box = document.querySelector('#uses-' + CSS.escape(arguments[0]) + ' > .rd-refs');
if (!box || box.hidden) return null;
return {sum: box.querySelector('.rd-refs-sum').textContent,
        groups: [...box.querySelectorAll('.rd-refs-file')].map(g => [g.querySelector('.rd-refs-path').textContent,
          [...g.querySelectorAll('li')].map(li => [li.textContent, li.querySelector('a').href])]),
        marked: [...box.querySelectorAll('mark')].map(m => m.textContent),
        top: box.parentElement.getBoundingClientRect().top};
"""


def _refs(browser, qualname: str):
    return wait(browser, lambda b: b.execute_script(REFS, qualname))


def test_a_uses_fragment_lists_every_use_with_its_line_of_code_and_a_link(browser, server):
    _load(browser, f"{server}/source/pkg/core.py.html#uses-BlockSpec")
    refs = _refs(browser, "BlockSpec")
    assert refs["sum"] == "1 use in 1 file \u00b7 1 note"
    core, call = f"{server}/source/pkg/core.py.html", f"{server}/source/pkg/call.py.html"
    assert refs["groups"] == [
        ["Definition", [["6class BlockSpec:", f"{core}#L6"]]],  # its own line first
        ["pkg/call.py", [["5def pallas_call(kernel, spec: BlockSpec):", f"{call}#L5"]]],
        ["Notes", [["A demo article: A spec is frozen, so a mapping is made once per call.",
                    f"{server}/articles/demo.html#note-demo-spec"]]]]
    assert refs["marked"] == ["BlockSpec", "BlockSpec"]
    assert 0 <= refs["top"] < browser.execute_script("return innerHeight")  # in view
    # a use's link lands on its line
    browser.execute_script("document.querySelector('.rd-refs a[href$=\"call.py.html#L5\"]').click()")
    wait(browser, lambda b: b.current_url == f"{call}#L5")
    assert _errors(browser) == []


def test_find_references_from_a_card_from_the_key_and_from_a_count(browser, server):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    _load(browser, f"{server}/articles/demo.html")
    _, card = _hover(browser, '.rd-file a[href="../source/pkg/core.py.html#L17"]')
    card.find_element(By.CSS_SELECTOR, ".rd-card-refs").click()
    wait(browser, lambda b: b.current_url == f"{server}/source/pkg/core.py.html#uses-BlockMapping")
    assert [g[0] for g in _refs(browser, "BlockMapping")["groups"]] == [
        "Definition", "pkg/core.py (this file)", "pkg/call.py"]
    # `r` on a focused name: its definition's list
    _load(browser, f"{server}/source/pkg/call.py.html")
    link = browser.find_element(By.CSS_SELECTOR, '.rd-file a[href="core.py.html#L6"]')
    browser.execute_script("arguments[0].focus()", link)
    wait(browser, lambda b: _shown_card(b))
    ActionChains(browser).send_keys("r").perform()
    wait(browser, lambda b: b.current_url == f"{server}/source/pkg/core.py.html#uses-BlockSpec")
    _refs(browser, "BlockSpec")
    # a count in the definitions list opens its list, and folds it again
    count = browser.find_element(By.CSS_SELECTOR, '#uses-BlockMapping a.rd-uses')
    browser.execute_script("arguments[0].click()", count)
    _refs(browser, "BlockMapping")
    assert count.get_attribute("aria-expanded") == "true"
    browser.execute_script("arguments[0].click()", count)
    wait(browser, lambda b: b.execute_script(REFS, "BlockMapping") is None)
    assert _errors(browser) == []


def test_cards_work_opened_from_disk(browser, site):
    _load(browser, (site / "articles/demo.html").as_uri())
    _errors(browser)
    _, card = _hover(browser, '.rd-file a[href="../source/pkg/core.py.html#L6"]')
    assert "A block of an array." in card.text
    assert (site / "source/pkg/core.py.html").as_uri() + "#L6" in _hrefs(card)
    assert _errors(browser) == []


CONTRAST = CONTRAST_JS + """
const worst = [], walker = document.createTreeWalker(arguments[0], NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, el = node.parentElement;
  if (!node.textContent.trim() || !el.getClientRects().length) continue;
  const bg = background(el), r = ratio(over(rgba(getComputedStyle(el).color), bg), bg);
  if (r < 4.5) worst.push([node.textContent.trim().slice(0, 30), el.className, r.toFixed(2)]);
}
return worst;
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_card_text_keeps_aa_contrast_in_both_schemes(browser, server, scheme, tmp_path):

    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    try:
        _load(browser, f"{server}/source/pkg/call.py.html")
        browser.execute_script("localStorage.clear()")
        _load(browser, f"{server}/source/pkg/call.py.html")
        want = "slate" if scheme == "dark" else "default"
        wait(browser, lambda b: b.execute_script(
            "return document.body.getAttribute('data-md-color-scheme')") == want)
        _, card = _hover(browser, '.rd-file a[href="core.py.html#L6"]')
        browser.save_screenshot(str(tmp_path / f"card-{scheme}.png"))
        assert browser.execute_script(CONTRAST, card) == []
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
