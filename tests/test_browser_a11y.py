"""Accessibility in a real headless browser: axe-core (tests/vendor/axe-core, WCAG 2.0/2.1 A and AA
rules) finds no serious or critical violation on the home page, an article, a source page, a lab,
the lowering-rules matrix, a phase page and a diff page (both views), in the light (`default`) and dark (`slate`) schemes;
line numbers (which axe does not read) keep 4.5:1; the interactive parts (line-number menu, matrix
filter, scheme toggle, search) work from the keyboard alone, and a wide listing or table scrolls
from it."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from tests.browser_support import (
    CONTRAST_JS,
    browser_fixture,
    build_small_site,
    load,
    pallas_files,
    press,
    serve_folder,
    server_fixture,
    wait,
)
from tests.test_filediff import demo  # noqa: F401  (the demo moved and built once)
from tests.test_render_labs import REGISTRY

pytestmark = pytest.mark.browser

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")


def set_scheme(browser, scheme: str) -> None:
    """Pages of the site load in `scheme` from now on: the system preference emulated and the
    choice stored as material's toggle stores it (call on a loaded page of the site)."""
    dark = "dark" if scheme == "slate" else "light"
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": dark}]})
    for _ in range(5):  # material may store its own choice once more as the page starts
        browser.execute_script(
            "const input = document.querySelector(`.md-option[data-md-color-scheme='${arguments[0]}']`);"
            "const color = {}; for (const k of ['media', 'scheme', 'primary', 'accent'])"
            " color[k] = input.getAttribute('data-md-color-' + k);"
            "__md_set('__palette', {index: [...document.querySelectorAll('.md-option')].indexOf(input),"
            " color: color});", scheme)
        browser.refresh()
        wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")
        if browser.execute_script("return [document.body.dataset.mdColorScheme,"
                                  " __md_get('__palette').color.scheme]") == [scheme, scheme]:
            return
    raise AssertionError(f"the {scheme} scheme did not stick")


def axe_violations(browser, scheme: str | None = None) -> list[dict]:
    """The serious and critical violations axe finds on the loaded page, once it is complete (and
    in `scheme`, when given): each {id, impact, help, nodes: [{target, summary}]}."""
    wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")
    if scheme is not None:
        shown = browser.execute_script("return document.body.dataset.mdColorScheme")
        assert shown == scheme, f"{browser.current_url} shows the {shown} scheme, not {scheme}"
    # Everything laid out and highlighted as it is once scrolled to: lazily rendered code chunks
    # (content-visibility) painted, as for printing; no transition half way.
    browser.execute_script("document.head.insertAdjacentHTML('beforeend', '<style>*, *::before"
                           " { transition: none !important; content-visibility: visible !important; }"
                           "</style>'); window.dispatchEvent(new Event('beforeprint'));")
    if not browser.execute_script("return !!window.axe"):
        browser.execute_script(AXE.read_text(encoding="utf-8"))
    browser.set_script_timeout(300)
    result = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})"
        ".then(r => done(r.violations.filter(v => arguments[1].includes(v.impact)).map(v => ("
        "{id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => ("
        "{target: n.target.join(' '), summary: n.failureSummary}))}))),"
        " e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));",
        TAGS, list(BLOCKING))
    return result


PRIMITIVES = ("add", "dot", "dot_general")
FILES = pallas_files(PRIMITIVES)
TRACK = """title: "An accessible track"
summary: "Every kind of page."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "A demo article"
        slug: demo
      - source: pkg/core.py
      - lab: toy
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
  The caller of [[pkg/core.py::BlockSpec]], line by line, with [[page:demo]] inside a
  sentence, $N$ blocks and `code`. A listing wider than the page scrolls sideways in its box:

  ```
  func.func @kernel(%arg0: memref<128x128xf32>, ...) attributes {dimension_semantics = [#tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 2>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64}
  ```

  A table wider than the page:

  | chip | generation | TensorCores per chip | sublanes | MXUs × columns | VMEM MiB | HBM GB | HBM GB/s | bf16 TFLOP/s | int8 TOP/s | SMEM KiB | ICI links per chip | SparseCores per chip | peak fp8 TFLOP/s | interconnect topology | release year |
  |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
  | v5e | 5 | 1 | 8 | 4 × 128 | 128 | 16 | 819 | 197 | 394 | 1024 | 4 | 0 | none | 2D torus, 16 x 16 | 2023 |
notes:
  - id: demo-call
    symbol: pallas_call
    body: |
      This builds a **mapping** from [[pkg/core.py::BlockSpec]], once per call.
"""
TOY = '''"""LAB·0.1 · A toy: writes one wide listing.

Exercises: pkg/core.py::BlockSpec
"""


def artifacts(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    # scrolls sideways in its box; long, so it comes packed (render/lab/page.py's PACK_TEXT)
    (out_dir / "toy.txt").write_text(("wide " * 80 + "\\n") * 50)
    return [out_dir / "toy.txt"]
'''
PAGES = ("index.html", "articles/demo.html", "source/pkg/core.py.html", "labs/toy.html",
         "lowering-rules.html", "phase-1/index.html")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    registry = REGISTRY.replace('Lab("toy", "A toy", "LAB·0.1", 1), Lab("broken", "Broken", "LAB·0.2", 1)',
                                'Lab("toy", "A toy", "LAB·0.1", 1),')
    return build_small_site(tmp_path_factory.mktemp("browser-a11y"), FILES, TRACK,
                            {"demo.yaml": ARTICLE}, {"kernels/__init__.py": registry, "kernels/toy.py": TOY},
                            paths=("pkg", "jax"))[0]


server = server_fixture()


browser = browser_fixture()


def _report(violations: list[dict]) -> str:
    return "\n".join(f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes)\n" + "\n".join(
        f"    {n['target']}: {' '.join((n['summary'] or '').split())[:300]}" for n in v["nodes"][:8])
        for v in violations)


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_on_any_kind_of_page(browser, server, site, scheme):
    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/index.html")
    set_scheme(browser, scheme)
    found = {}
    for page in PAGES:
        assert (site / page).is_file(), page
        browser.get(f"{server}/{page}")
        violations = axe_violations(browser, scheme)
        if violations:
            found[page] = violations
    assert not found, "\n".join(f"{scheme} {page}:\n{_report(v)}" for page, v in found.items())


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_with_search_open(browser, server, scheme):
    from tests.browser_support import search

    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/source/pkg/core.py.html")
    set_scheme(browser, scheme)
    search(browser, "BlockSpec", lambda href: "core.py.html#L" in href)
    violations = axe_violations(browser, scheme)
    box = browser.find_element("css selector", "input.rd-search-input")
    box.clear()
    box.send_keys("BlokSpec")  # nothing found: the offer
    wait(browser, lambda b: b.find_elements("css selector", ".rd-sr-offer"))
    violations += axe_violations(browser, scheme)
    box.clear()
    box.send_keys("/class \\w+/")  # a pattern's lines, in this page's file
    wait(browser, lambda b: "match in" in b.find_element("css selector", ".rd-search-status").text)
    violations += axe_violations(browser, scheme)
    assert not violations, _report(violations)


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_with_the_finder_and_go_to_line_open(browser, server, scheme):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/source/pkg/core.py.html")
    set_scheme(browser, scheme)
    wait(browser, lambda b: b.find_elements("css selector", ".rd-scope"))
    ActionChains(browser).send_keys("t").perform()
    wait(browser, lambda b: b.find_elements("css selector", ".rd-finder-list a"))
    found = axe_violations(browser, scheme)
    ActionChains(browser).send_keys(Keys.ESCAPE).perform()
    ActionChains(browser).send_keys("l").perform()
    wait(browser, lambda b: b.find_element("css selector", "input.rd-goto-input").is_displayed())
    found += axe_violations(browser, scheme)
    assert not found, _report(found)


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_with_a_references_list_and_a_card_open(browser, server, scheme):
    """The references list of BlockSpec (its lines of code, the name marked, the notes), then a
    card with its "Find references" link."""
    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/index.html")
    set_scheme(browser, scheme)
    _load(browser, f"{server}/source/pkg/core.py.html#uses-BlockSpec")
    wait(browser, lambda b: b.find_elements("css selector", "#uses-BlockSpec > .rd-refs mark"))
    found = axe_violations(browser, scheme)
    _load(browser, f"{server}/source/pkg/call.py.html")
    link = browser.find_element("css selector", '.rd-file a[href="core.py.html#L6"]')
    browser.execute_script("arguments[0].focus()", link)  # as Tab does (a pointer would tint it)
    wait(browser, lambda b: b.find_elements("css selector", "#rd-card .rd-card-refs"))
    found += axe_violations(browser, scheme)
    assert not found, _report(found)


@pytest.fixture(scope="module")
def demo_server(demo):  # noqa: F811
    yield from serve_folder(demo[0] / "site")


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_on_a_diff_page_in_either_view(browser, demo_server, scheme):
    """Syntax colours over the added and removed rows' tints, the diffstat, the edition switcher."""
    browser.set_window_size(1280, 800)
    url = f"{demo_server}/diffs/jax/_src/pallas/core.py.html"
    browser.get(url)
    set_scheme(browser, scheme)
    found = {}
    for view in ("unified", "split"):
        _load(browser, url)
        browser.find_element("css selector", f'.rd-diff-views button[data-view="{view}"]').click()
        assert browser.find_elements("css selector", f".rd-diff-{view} .rd-add, .rd-diff-{view} .rd-del")
        # the new parts open: the changed files' list, a change stepped to (`n`), context expanded
        browser.execute_script("document.querySelector('.rd-diff-files details').open = true;"
                               "document.querySelector('.rd-diff-steps button[data-step=\"1\"]').click()")
        wait(browser, lambda b: b.find_elements("css selector", ".rd-diff-files li a"))
        browser.find_element("css selector", f".rd-diff-{view} .rd-expand button").click()
        wait(browser, lambda b: b.find_elements("css selector", f".rd-diff-{view} .rd-ctx"))  # noqa: B023
        violations = axe_violations(browser, scheme)
        if violations:
            found[view] = violations
    browser.execute_script("localStorage.removeItem('reader.diffView')")
    assert not found, "\n".join(f"{scheme} {view}:\n{_report(v)}" for view, v in found.items())


def _active(browser) -> dict:
    return browser.execute_script(
        "const a = document.activeElement; return {tag: a.tagName, id: a.id, cls: String(a.className),"
        " text: (a.getAttribute('aria-label') || a.textContent).trim().slice(0, 60),"
        " line: a.closest('[id]') && a.closest('[id]').id};")


def _tab_to(browser, selector: str, limit: int = 200) -> None:
    """Press Tab (only Tab) from the top of the page until the focus is on `selector`."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    seen = []
    for _ in range(limit):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        if browser.execute_script("return document.activeElement.matches(arguments[0])", selector):
            return
        seen.append(_active(browser))
    raise AssertionError(f"Tab never reached {selector}; it went through {seen}")


_press = press


_load = partial(load, fresh=True)


def test_the_line_menu_is_reached_opened_and_closed_from_the_keyboard(browser, server):
    from selenium.webdriver.common.keys import Keys

    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/source/pkg/core.py.html")
    _tab_to(browser, ".rd-n")
    number = _active(browser)
    assert browser.execute_script("return getComputedStyle(document.activeElement).outlineStyle") != "none"
    _press(browser, Keys.ENTER)
    menu = wait(browser, lambda b: b.find_element("id", "rd-line-menu"))
    assert menu.is_displayed()
    line = number["line"]
    assert _active(browser)["text"] == f"Copy link to line {line[1:]}", _active(browser)
    assert browser.current_url.endswith(f"#{line}")
    count = len([i for i in menu.find_elements("css selector", ".rd-menu-item") if i.is_displayed()])
    items = []
    for _ in range(count + 1):  # Tab goes round the menu's items, never out of it
        items.append(_active(browser)["text"])
        _press(browser, Keys.TAB)
    assert items[-1] == items[0] and len(set(items)) == count, items
    assert any(t.startswith("Open on GitHub") for t in items), items
    _press(browser, Keys.ESCAPE)
    assert not menu.is_displayed()
    assert "rd-n" in _active(browser)["cls"].split() and _active(browser)["line"] == line  # back on it
    _press(browser, Keys.SPACE)
    wait(browser, lambda b: menu.is_displayed())
    _press(browser, Keys.ENTER)  # copy the link
    status = wait(browser, lambda b: b.find_element("css selector", ".rd-menu-status").text)
    assert status == "Link copied" or status.startswith("Copy failed: "), status
    _press(browser, Keys.ESCAPE)
    _press(browser, Keys.TAB)  # and on to the next stop: the focus is not trapped
    assert not menu.is_displayed() and _active(browser)["line"] != line


def test_the_matrix_filter_works_from_the_keyboard(browser, server):
    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/lowering-rules.html")
    _tab_to(browser, ".rd-filter-input")
    _press(browser, "dot")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('.rd-matrix tbody tr')].filter(r => !r.hidden)"
        ".map(r => r.querySelector('th code').textContent)")
    assert shown == ["dot", "dot_general"], shown
    assert "2 of 3" in browser.find_element("css selector", ".rd-filter-count").text


def test_the_scheme_toggle_works_from_the_keyboard(browser, server):
    from selenium.webdriver.common.keys import Keys

    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/index.html")
    set_scheme(browser, "default")
    _load(browser, f"{server}/index.html")
    _tab_to(browser, "input.md-option")
    assert _active(browser)["text"] == "Switch to the dark scheme"
    outline = browser.execute_script(
        "const l = document.activeElement.nextElementSibling; return getComputedStyle(l).outlineStyle")
    assert outline != "none"  # the focus shows on the toggle's icon
    _press(browser, Keys.ENTER)
    wait(browser, lambda b: b.execute_script("return document.body.dataset.mdColorScheme") == "slate")
    assert _active(browser)["text"] == "Switch to the light scheme"
    _press(browser, Keys.ENTER)
    wait(browser, lambda b: b.execute_script("return document.body.dataset.mdColorScheme") == "default")


def test_search_works_from_the_keyboard(browser, server):
    from selenium.webdriver.common.keys import Keys

    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/index.html")
    _tab_to(browser, "button.rd-search-open")
    _press(browser, Keys.ENTER)
    assert "rd-search-input" in _active(browser)["cls"], _active(browser)
    _press(browser, "BlockSpec")
    wait(browser, lambda b: b.find_elements("css selector", "a.rd-sr"))
    _press(browser, Keys.ARROW_DOWN)
    assert "rd-sr" in _active(browser)["cls"], _active(browser)
    _press(browser, Keys.ENTER)
    wait(browser, lambda b: not b.current_url.endswith("/index.html"))
    assert "BlockSpec" in browser.find_element("css selector", ".md-content").text


@pytest.mark.parametrize("page, box", [("labs/toy.html", ".rd-artifact pre"),
                                       ("articles/demo.html", ".rd-indexed pre > code"),
                                       ("articles/demo.html", ".md-typeset__scrollwrap")])
def test_a_wide_listing_scrolls_from_the_keyboard(browser, server, page, box):
    from selenium.webdriver.common.keys import Keys

    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/{page}")
    _tab_to(browser, box)
    assert browser.execute_script("return document.activeElement.scrollLeft") == 0
    _press(browser, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    wait(browser, lambda b: b.execute_script("return document.activeElement.scrollLeft") > 0)


_NUMBER_CONTRAST = CONTRAST_JS + """
const number = document.querySelector(arguments[0]), bg = background(number);
return ratio(over(rgba(getComputedStyle(number, arguments[1]).color), bg), bg);
"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_line_numbers_keep_a_contrast_of_4_5(browser, server, scheme):
    """axe does not read the numbers (a counter in CSS, an empty link with a label): measured here."""
    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/source/pkg/core.py.html")
    set_scheme(browser, scheme)
    wait(browser, lambda b: b.find_elements("css selector", ".rd-n"))
    ratio = browser.execute_script(_NUMBER_CONTRAST, ".rd-n", "::before")
    assert ratio >= 4.5, ratio


@pytest.mark.parametrize("page", PAGES)
def test_the_first_tab_stop_skips_to_the_content(browser, server, page):
    from selenium.webdriver.common.keys import Keys

    browser.set_window_size(1400, 1000)
    _load(browser, f"{server}/{page}")
    _press(browser, Keys.TAB)
    skip = _active(browser)
    assert "md-skip" in skip["cls"] and skip["text"] == "Skip to content", skip
    _press(browser, Keys.ENTER)
    wait(browser, lambda b: b.execute_script("return document.activeElement.id") == "rd-main")
    top = browser.execute_script("return document.getElementById('rd-main').getBoundingClientRect().top")
    assert 0 <= top < 300  # where the page's own content begins, under the header
    _press(browser, Keys.TAB)  # and on into the content, past the header and the navigation
    assert not browser.execute_script(
        "return !!document.activeElement.closest('.md-header, .md-sidebar, [data-md-component=skip]')")


def test_the_404_page_is_styled_from_disk(browser, site):
    _load(browser, (site / "404.html").as_uri())
    styled = browser.execute_script(
        "return [...document.styleSheets].filter(s => s.href && /main\\.[0-9a-f]+\\.min\\.css$/.test(s.href))"
        ".length === 1 && getComputedStyle(document.querySelector('.md-header')).position")
    assert styled == "sticky", styled


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_with_the_new_parts_open(browser, server, scheme):
    """The code scrolling sideways (the wrap toggle off) and, at 1280 px, the navigation's drawer open."""
    browser.set_window_size(1280, 900)
    browser.get(f"{server}/index.html")
    set_scheme(browser, scheme)
    found = {}
    for page in ("articles/demo.html", "source/pkg/core.py.html", "lowering-rules.html"):
        _load(browser, f"{server}/{page}")
        browser.execute_script("const b = document.querySelector('.rd-wrap');"
                               " if (b && b.getAttribute('aria-pressed') === 'true') b.click();"
                               " const d = document.getElementById('__drawer'); d.checked = true;"
                               " d.dispatchEvent(new Event('change'));")
        violations = axe_violations(browser, scheme)
        if violations:
            found[page] = violations
    browser.execute_script("localStorage.removeItem('reader.wrap')")
    assert not found, "\n".join(f"{scheme} {page}:\n{_report(v)}" for page, v in found.items())
