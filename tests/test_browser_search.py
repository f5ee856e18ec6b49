"""Search in a real headless browser: a name's definitions first, then its uses; a string in the
code opens its line; a quoted phrase finds the note that has it; each result says where it is
(a note: its article and its first sentence); the error jax raises for a primitive with no rule
lands on the primitive's lowering-rules row; the index comes in pieces, and from disk too. And it
forgives: a misspelt name offers the close one, a `/pattern/` finds every line it matches in
every file (listed by file), `file:`, `in:code` and `in:notes` narrow the results, and `?q=` opens them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser_support import (
    browser_fixture,
    build_small_site,
    pallas_files,
    search,
    server_fixture,
    wait,
)

pytestmark = pytest.mark.browser

LOWERING = '''def _store_rule(ctx, x, acc):
  if acc:
    raise ValueError("Storing into an accumulator is not supported.")
  return x


def aval_to_ir_type(aval):
  return aval


def _load_lowering_rule(ctx, x):
  return x


def lowering_rule_table():  # no underscore: not one of them
  return {}


def _masked_swap_lowering_rule(ctx, *args):
  return args
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


server = server_fixture()


browser = browser_fixture(logs=True)


def _href(a) -> str:
    return a.get_attribute("href") or ""


def _requested(browser) -> list[str]:
    return [json.loads(e["message"])["message"].get("params", {}).get("request", {}).get("url", "")
            for e in browser.get_log("performance")]


def _pack_of(site: Path, key: str) -> str:
    """The script of the site's index that holds the piece `key` (search.js finds it so)."""
    from reader.render.search.index import unpack

    firsts = unpack((site / "search" / "files.js").read_bytes())["files"]["packs"]
    return f"/search/{max(i for i, first in enumerate(firsts) if first <= key)}.js"


def test_a_name_finds_its_definition_first_then_its_uses(browser, server, site, tmp_path):
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
    assert got[0].endswith("/search/files.js") and any(u.endswith(_pack_of(site, "code/blo")) for u in got)
    assert len(got) < 12, got
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


def test_a_misspelt_name_offers_the_close_one(browser, server):
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/index.html")
    browser.execute_script("document.querySelector('.rd-search-open').click()")
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-search-input"))
    box.send_keys("BlokSpec")
    offer = wait(browser, lambda b: b.find_element("css selector", ".rd-sr-offer"))
    status = browser.find_element("css selector", ".rd-search-status").text
    assert (status, offer.text) == ("No results for BlokSpec", "BlockSpec")
    box.send_keys(Keys.ENTER)  # Enter takes it, as a click does
    wait(browser, lambda b: box.get_attribute("value") == "BlockSpec"
         and _href(b.find_element("css selector", "a.rd-sr")).endswith("source/pkg/core.py.html#L6"))
    box.clear()
    box.send_keys("grid blockspce")  # each word the index lacks, respelled
    offer = wait(browser, lambda b: b.find_element("css selector", ".rd-sr-offer"))
    assert offer.text == "grid BlockSpec"


def _defs(text: str, pattern: str) -> list[int]:
    import re

    return [n for n, line in enumerate(text.splitlines(), 1) if re.search(pattern, line)]


def test_a_pattern_finds_every_line_it_matches_in_every_file_listed_by_file(browser, server):
    wanted = sorted((path, n) for path, text in FILES.items() if path.endswith(".py")
                    for n in _defs(text, r"oad_\w*rule"))
    assert len({path for path, _ in wanted}) >= 2
    by_file = ("return [...document.querySelectorAll('.rd-sr-file')].flatMap(f => [...f.querySelectorAll('a.rd-sr')]"
               ".map(a => [f.querySelector('h4 a').textContent, +a.getAttribute('href').split('#L')[1]]))")
    for page in ("source/jax/_src/pallas/mosaic/lowering.py.html", "index.html"):  # a file's page or any
        browser.get(f"{server}/{page}")
        search(browser, "/oad_\\w*rule/")  # no word it begins with: its letters' triples
        assert sorted(map(tuple, browser.execute_script(by_file))) == wanted
        status = browser.find_element("css selector", ".rd-search-status").text
        assert status == f"{len(wanted)} lines match in every file"
    found = search(browser, "file:mosaic/lowering.py /def _.*_lowering_rule/")
    assert [a.get_attribute("href").split("#")[1] for a in found] == [f"L{n}" for n in _defs(LOWERING, "def _.*_lowering_rule")]
    assert found[0].find_element("css selector", "mark").text == "def _load_lowering_rule"
    box = browser.find_element("css selector", "input.rd-search-input")
    box.clear()
    box.send_keys("/def _.*_lowering_rule/ in:notes")
    wait(browser, lambda b: "in:notes takes words" in b.find_element("css selector", ".rd-search-status").text)
    box.clear()
    box.send_keys("/(a|b)_.*/")  # nothing to look up: it says what to add
    wait(browser, lambda b: "holds nothing the index can look up" in b.find_element("css selector", ".rd-search-status").text)
    box.clear()
    box.send_keys("/^def _\\w+_rule\\(/")  # a word it begins with: every file, from the index
    wait(browser, lambda b: "lines match in every file" in b.find_element("css selector", ".rd-search-status").text)
    lines = sorted(a.get_attribute("href").split("/source/")[1] for a in browser.find_elements("css selector", "a.rd-sr"))
    assert lines == sorted(f"{path}.html#L{n}" for path, text in FILES.items() if path.endswith(".py")
                           for n in _defs(text, r"^def _\w+_rule\("))
    box.clear()
    box.send_keys("/[unclosed/")
    wait(browser, lambda b: b.find_element("css selector", ".rd-search-status").text.startswith("Not a regular expression"))


def test_filters_keep_a_file_or_one_side(browser, server):
    browser.get(f"{server}/index.html")
    hrefs = lambda typed, wanted=lambda h: True: [_href(a) for a in search(browser, typed, wanted)]  # noqa: E731
    code = hrefs("BlockSpec in:code", lambda h: "call.py" in h)
    assert code and all("/source/" in h for h in code)
    notes = hrefs("accumulator in:notes", lambda h: "#note-" in h)
    assert notes and all("#note-" in h or "/articles/" in h for h in notes), notes
    called = hrefs("BlockSpec file:call.py", lambda h: "call.py" in h)
    assert called and all("source/pkg/call.py.html" in h for h in called), called
    listed = search(browser, "file:lowering", lambda h: "triton/lowering.py.html" in h)
    assert sorted(a.text.split("\n")[0] for a in listed) == [
        "jax/_src/pallas/mosaic/lowering.py", "jax/_src/pallas/mosaic_gpu/lowering.py", "jax/_src/pallas/triton/lowering.py"]


def test_a_q_url_opens_its_results_and_the_dialog_keeps_it(browser, server):
    from urllib.parse import parse_qs, urlparse

    from selenium.webdriver.common.keys import Keys

    browser.get(f"{server}/index.html?q=BlockSpec")
    first = wait(browser, lambda b: b.find_elements("css selector", "a.rd-sr"))[0]
    assert _href(first).endswith("source/pkg/core.py.html#L6")
    assert browser.find_element("css selector", "input.rd-search-input").get_attribute("value") == "BlockSpec"
    box = browser.find_element("css selector", "input.rd-search-input")
    box.send_keys(Keys.END, " file:core")
    wait(browser, lambda b: parse_qs(urlparse(b.current_url).query).get("q") == ["BlockSpec file:core"])
    first = wait(browser, lambda b: b.find_elements("css selector", "a.rd-sr"))[0]
    first.click()  # the result's page; Back brings the results back
    wait(browser, lambda b: b.current_url.endswith("core.py.html#L6"))
    browser.back()
    wait(browser, lambda b: b.find_elements("css selector", "a.rd-sr")
         and b.find_element("css selector", "input.rd-search-input").get_attribute("value") == "BlockSpec file:core")
    browser.find_element("css selector", ".rd-search-close").click()
    wait(browser, lambda b: "q=" not in b.current_url)
