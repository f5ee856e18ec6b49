"""Search in a real headless browser: a name's definitions first, then its uses; a string in the
code opens its line; a quoted phrase finds the note that has it; each result says where it is
(a note: its article and its first sentence); the error jax raises for a primitive with no rule
lands on the primitive's lowering-rules row; the index comes in pieces, and from disk too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser_support import (
    build_small_site,
    chromium,
    pallas_files,
    search,
    serve_folder,
    wait,
)

pytestmark = pytest.mark.browser

LOWERING = '''def _store_rule(ctx, x, acc):
  if acc:
    raise ValueError("Storing into an accumulator is not supported.")
  return x


def aval_to_ir_type(aval):
  return aval
'''
GPU = '''def aval_to_ir_type(aval, layout):
  return aval
'''
TRITON_RAISES = '''

def lower_jaxpr_to_triton_ir(jaxpr):
  for eqn in jaxpr.eqns:
    if eqn.primitive not in triton_lowering_rules:
      raise NotImplementedError(
          "Unimplemented primitive in Pallas Triton lowering:"
          f" {eqn.primitive.name}. Please file an issue at"
          " https://github.com/jax-ml/jax/issues/new/choose."
      )
'''
FILES = {**pallas_files(["load"]), "jax/_src/pallas/mosaic/lowering.py": LOWERING,
         "jax/_src/pallas/mosaic_gpu/lowering.py": GPU}
FILES["jax/_src/pallas/triton/lowering.py"] += TRITON_RAISES
TRACK = """title: "A search track"
summary: "One article."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "Semaphores"
        slug: sems
      - source: pkg/core.py
"""
ARTICLE = """title: "Semaphores"
slug: sems
phase: 1
kind: article
order: 1
summary: Where a kernel waits.
reads:
  - path: jax/_src/pallas/mosaic/lowering.py
intro: |
  Signals, waits and no matching words in the intro.
notes:
  - id: sems-store
    symbol: _store_rule
    body: |
      A store into an accumulator is refused. A wait with no matching signal hangs the kernel.
  - id: sems-type
    symbol: aval_to_ir_type
    body: |
      The type of a value; with it, a wait here has no signal, matching nothing.
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("search")
    return build_small_site(tmp, FILES, TRACK, {"sems.yaml": ARTICLE}, paths=("pkg", "jax"))[0]


@pytest.fixture(scope="module")
def server(site):
    yield from serve_folder(site)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium(tmp_path_factory.mktemp("chromium-profile"), logs=True)


def _href(a) -> str:
    return a.get_attribute("href") or ""


def _requested(browser) -> list[str]:
    return [json.loads(e["message"])["message"].get("params", {}).get("request", {}).get("url", "")
            for e in browser.get_log("performance")]


def test_a_name_finds_its_definition_first_then_its_uses(browser, server, tmp_path):
    browser.set_window_size(1280, 800)
    browser.get(f"{server}/index.html")
    _requested(browser)
    results = search(browser, "BlockSpec", lambda h: "core.py.html#L" in h)
    browser.save_screenshot(str(tmp_path / "search-name.png"))
    assert _href(results[0]).endswith("source/pkg/core.py.html#L6")  # class BlockSpec
    assert results[0].text.startswith("class BlockSpec\npkg/core.py:6")
    hrefs = [_href(a) for a in results]
    assert any(h.endswith("source/pkg/call.py.html#L2") for h in hrefs)  # a use: the import
    # the pieces fetched: a few scripts of the index, not all of it
    got = [u for u in _requested(browser) if "/search/" in u]
    assert any(u.endswith("/search/code/blo.js") for u in got) and len(got) < 12, got
    # the result opens its line
    results[0].click()
    wait(browser, lambda b: b.current_url.endswith("/source/pkg/core.py.html#L6"))
    assert "class BlockSpec" in browser.find_element("id", "L6").text


def test_every_definition_of_a_name_is_a_result_of_its_own(browser, server):
    browser.get(f"{server}/index.html")
    results = search(browser, "aval_to_ir_type", lambda h: "mosaic_gpu" in h)
    defs = [a.text.split("\n")[1] for a in results[:2]]
    assert sorted(defs) == ["jax/_src/pallas/mosaic/lowering.py:7", "jax/_src/pallas/mosaic_gpu/lowering.py:1"]


def test_a_string_in_the_code_opens_its_line(browser, server):
    browser.get(f"{server}/index.html")
    results = search(browser, "Storing into an accumulator", lambda h: "lowering.py.html#L3" in h)
    assert _href(results[0]).endswith("source/jax/_src/pallas/mosaic/lowering.py.html#L3")
    assert 'raise ValueError("Storing into an accumulator is not supported.")' in results[0].text
    results[0].click()
    wait(browser, lambda b: b.current_url.endswith("lowering.py.html#L3"))
    line = browser.find_element("id", "L3")
    top = line.rect["y"] - browser.execute_script("return window.scrollY")
    assert 0 <= top < browser.execute_script("return window.innerHeight")


def test_a_quoted_phrase_finds_only_the_note_that_has_it(browser, server):
    browser.get(f"{server}/index.html")
    results = search(browser, '"wait with no matching signal"', lambda h: "#note-" in h)
    assert [_href(a).rsplit("/", 1)[1] for a in results] == ["sems.html#note-sems-store"]
    title, where = results[0].text.split("\n")[:2]
    assert title == "A store into an accumulator is refused."
    assert where == "Semaphores · jax/_src/pallas/mosaic/lowering.py, lines 1–4"
    # unquoted, the words find the other note and the intro too, the phrase's note first
    results = search(browser, "wait with no matching signal", lambda h: "#note-sems-type" in h)
    assert _href(results[0]).endswith("#note-sems-store")


def test_the_error_for_a_primitive_without_a_rule_lands_on_its_row(browser, server):
    browser.get(f"{server}/index.html")
    results = search(browser, "Unimplemented primitive in Pallas Triton lowering: load",
                     lambda h: "lowering-rules.html" in h)
    assert _href(results[0]).endswith("/lowering-rules.html#p-jax-src-pallas-primitives-load-p")
    results[0].click()
    row = wait(browser, lambda b: b.find_element("css selector", "tr:target"))
    assert row.get_attribute("id") == "p-jax-src-pallas-primitives-load-p"
    assert row.find_element("css selector", "a[aria-label*='_load_rule']").text == "✓"


def test_search_from_the_keyboard_and_from_disk(browser, site):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser.get((site / "source/pkg/call.py.html").as_uri())
    ActionChains(browser).send_keys("/").perform()
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-search-input"))
    assert browser.switch_to.active_element == box
    box.send_keys("BlockSpec")
    wait(browser, lambda b: b.find_elements("css selector", "a.rd-sr"))
    box.send_keys(Keys.ARROW_DOWN)
    first = browser.switch_to.active_element
    assert "rd-sr" in first.get_attribute("class") and _href(first).endswith("core.py.html#L6")
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    wait(browser, lambda b: not b.find_element("css selector", "dialog.rd-search").is_displayed())
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
