"""The linked IR view in a real headless browser, from file://: a page rendered from the real
lowered sample (tests/fixtures/lowered) with the theme's stylesheets and docs/assets/irview.*,
beside a pinned rules file's page whose lines carry `#L<n>` anchors."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from reader.errors import Location
from reader.extract.symbols import symbols_of
from reader.render.code.highlight import highlight
from reader.render.ir import view as irview
from reader.render.ir.lowered import Rules, parse_lowered
from reader.render.ir.view import IrSite, kernel_file, render_lowered
from tests.browser_support import CONTRAST_JS, chromium, load, rendered, wait
from tests.test_render_ir import HERE, LAB, SAMPLE, TPU, TPU_RULES, _tables

ROOT = Path(__file__).resolve().parents[1]
_THEME = importlib.util.find_spec("material")
MATERIAL = Path(_THEME.origin or "").parent / "templates" / "assets" / "stylesheets" if _THEME else Path("-")
"""mkdocs-material's stylesheets: the theme's colours, which the tints must keep readable."""
MODULE = "ir-exp_add_kernel-mosaic-tpu"


def _page(title: str, body: str, depth: int) -> str:
    up = "../" * depth
    css = "".join(f'<link rel="stylesheet" href="{up}assets/{p.name}">'
                  for p in sorted(MATERIAL.glob("*.min.css")) if MATERIAL.is_dir())
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>{css}'
            f'<link rel="stylesheet" href="{up}assets/irview.css"></head>'
            f'<body data-md-color-scheme="default" data-md-color-primary="indigo"><main class="md-main"><article class="md-content__inner md-typeset">'
            f'{body}</article></main><script src="{up}assets/reader.js"></script>'
            f'<script src="{up}assets/irview.js"></script></body></html>')


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("irsite")
    assets = out / "assets"
    assets.mkdir()
    for name in ("irview.css", "reader.js", "irview.js"):  # reader.js inflates the packed panes
        shutil.copy(ROOT / "docs" / "assets" / name, assets / name)
    for css in MATERIAL.glob("*.min.css") if MATERIAL.is_dir() else ():
        shutil.copy(css, assets / css.name)
    text = (ROOT / "tests" / "fixtures" / "lowered" / "lowering_ladder.py").read_text()
    own = {("", LAB): kernel_file("", LAB, text, highlight(text).html(), HERE, symbols_of(text))}
    rules = Rules(_tables())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(irview, "CHUNK", 4)  # the TPU module's 35 lines in runs painted as needed
        view = render_lowered(parse_lowered(SAMPLE.read_bytes(), Location(LAB)), HERE, rules,
                              IrSite(rules, lambda pin, path: None).file_of(own, None))
    for part in view.parts:  # the modules' panes, as the build serves them
        (out / part.src_uri).parent.mkdir(parents=True, exist_ok=True)
        (out / part.src_uri).write_bytes(part.data)
    (out / "labs").mkdir()
    lab_lines = "".join(f'<div class="rd-l" id="L{n}">{n}</div>' for n in range(1, 240))
    (out / "labs" / "lowering_ladder.html").write_text(_page("lab", str(view.html) + lab_lines, 1))
    rules_page = out / "source" / Path(TPU).with_suffix(".py.html")
    rules_page.parent.mkdir(parents=True)
    lines = "".join(f'<div class="rd-l" id="L{n}">line {n}</div>' for n in range(1, 4300))
    rules_page.write_text(_page("rules", lines, 5))
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium(tmp_path_factory.mktemp("chrome-ir"), logs=True)


def _open(browser, site: Path, fragment: str = "", shown: str = "ir-exp_add_kernel-jaxpr") -> None:
    """The lab's page loaded anew, its `shown` module painted (not the last test's page moved to the
    fragment, its scroll restored: a link to an op found the module's tab shown already)."""
    load(browser, (site / "labs" / "lowering_ladder.html").as_uri() + fragment, fresh=True)
    _painted(browser, shown)


def _painted(browser, module: str) -> None:
    """Wait for the module's panes, which irview.js loads from their script, and for their lines'
    layout: a line just painted counts 1.5em high (irview.css) until the next frame lays it out
    (the TPU module's line 3 was at 48 px in its pane, then at 230 px)."""
    wait(browser, lambda b: b.execute_script(
        f"return !!document.querySelector('#{module} .ir-view:not([aria-busy]) .ir-line, #{module} .ir-view:not([aria-busy]) .ir-op')"))
    rendered(browser)


def _selected(browser, cls: str) -> list[str]:
    return browser.execute_script(
        f"return [...document.querySelectorAll('#{MODULE} .{cls}.ir-sel')].map(e => e.id)")


def _tpu_tab(browser):
    return browser.find_element("id", f"{MODULE}-tab")


def _show_tpu(browser) -> None:
    _tpu_tab(browser).click()
    _painted(browser, MODULE)


def _ops_of(browser, key: str) -> list[str]:
    return browser.execute_script(
        f"return [...document.querySelectorAll('#{MODULE} .ir-op[data-k~=\"{key}\"]')].map(e => e.id)")


def test_tabs_show_one_backend_at_a_time(browser, site):
    _open(browser, site)
    assert browser.find_element("id", "ir-exp_add_kernel-jaxpr").is_displayed()
    assert not browser.find_element("id", MODULE).is_displayed()
    # a hidden module's panes are not loaded: its script is, once its tab is shown
    assert browser.execute_script(f"return document.querySelectorAll('#{MODULE} .ir-op').length") == 0
    _show_tpu(browser)
    assert browser.find_element("id", MODULE).is_displayed()
    assert not browser.find_element("id", "ir-exp_add_kernel-jaxpr").is_displayed()
    assert _tpu_tab(browser).get_attribute("aria-selected") == "true"
    logs = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert logs == []


def test_clicking_a_kernel_line_marks_its_ops_and_an_op_marks_its_line(browser, site):
    _open(browser, site)
    _show_tpu(browser)
    line = browser.find_element("css selector", f"#{MODULE} .ir-src[data-k]")
    key = line.get_attribute("data-k")
    line.find_element("css selector", ".ir-c").click()
    ops = _ops_of(browser, key)
    assert ops and _selected(browser, "ir-op") == ops
    assert _selected(browser, "ir-src") == [line.get_attribute("id")]
    # the first op is scrolled into its pane's view (the scroll corrected over the next frames, as
    # the lines it passed are laid out)
    first = browser.find_element("id", ops[0])
    wait(browser, lambda b: b.execute_script(
        "const p = arguments[0].closest('.ir-scroll').getBoundingClientRect(),"
        " r = arguments[0].getBoundingClientRect(); return r.top >= p.top && r.bottom <= p.bottom", first))
    browser.execute_script("document.querySelectorAll('.ir-sel').forEach(e => e.classList.remove('ir-sel'))")
    op = browser.find_element("id", ops[-1])
    op.find_element("css selector", ".ir-n").click()
    assert _selected(browser, "ir-src") == [line.get_attribute("id")]
    assert "ir-cur" in op.get_attribute("class")


def test_a_selection_stands_alone_the_other_tints_gone_while_it_lasts(browser, site):
    _open(browser, site)
    _show_tpu(browser)
    # the sample's module maps every op to one kernel line: a neighbour from another line, tinted
    browser.execute_script(
        f"const op = document.querySelector('#{MODULE} .ir-op[data-k]'), other = op.cloneNode(true);"
        "other.id = 'ir-neighbour'; other.dataset.k = 'f9-1'; other.className = 'ir-op ir-c3'; op.after(other);")
    rows = (f"return [...document.querySelectorAll('#{MODULE} .ir-src[data-k], #{MODULE} .ir-op[data-k]')]"
            ".map(e => [e.id, e.classList.contains('ir-sel'), getComputedStyle(e).backgroundColor])")
    before = browser.execute_script(rows)
    tints = {bg for _, _, bg in before}
    assert len(tints) == 2 and "rgba(0, 0, 0, 0)" not in tints  # each line and its ops tinted alike
    browser.find_element("css selector", f"#{MODULE} .ir-src[data-k] .ir-c").click()
    after = browser.execute_script(rows)
    chosen = {bg for _, sel, bg in after if sel}
    assert len(chosen) == 1 and chosen.isdisjoint(tints)  # a colour of its own, not a tint
    assert [(i, bg) for i, sel, bg in after if not sel] == [("ir-neighbour", "rgba(0, 0, 0, 0)")]


def test_hovering_a_kernel_line_marks_its_ops_without_scrolling_them(browser, site):
    from selenium.webdriver.common.action_chains import ActionChains

    _open(browser, site)
    _show_tpu(browser)
    browser.execute_script("document.head.insertAdjacentHTML('beforeend',"
                           " '<style>.ir-scroll { max-height: 8rem !important; }</style>')")  # panes that scroll
    rendered(browser)  # the smaller panes laid out before their geometry is read
    scroll_tops = f"return [...document.querySelectorAll('#{MODULE} .ir-scroll')].map(p => p.scrollTop)"
    hidden = browser.execute_script(  # the kernel lines whose first op is out of its pane's view
        "return [...document.querySelectorAll(`#${arguments[0]} .ir-src[data-k]`)].filter(l => {"
        " const op = document.querySelector(`#${arguments[0]} .ir-op[data-k~=\"${l.dataset.k}\"]`);"
        " if (!op) return false; const p = op.closest('.ir-scroll').getBoundingClientRect();"
        " return op.getBoundingClientRect().top > p.bottom; })", MODULE)
    lines = browser.find_elements("css selector", f"#{MODULE} .ir-src[data-k]")
    assert hidden and lines
    before = browser.execute_script(scroll_tops)
    for line in (lines[0], hidden[0], lines[-1]):  # a pointer crossing the kernel
        ActionChains(browser).move_to_element(line.find_element("css selector", ".ir-c")).perform()
        key = line.get_attribute("data-k")
        wait(browser, lambda b, key=key: _selected(b, "ir-op") == _ops_of(b, key))
    assert browser.execute_script(scroll_tops) == before  # marked, not scrolled
    hidden[0].find_element("css selector", ".ir-c").click()  # a click scrolls to its ops
    wait(browser, lambda b: b.execute_script(scroll_tops) != before)


def test_runs_of_ops_far_from_the_panes_view_are_painted_when_a_selection_needs_them(browser, site):
    from selenium.webdriver.common.keys import Keys

    _open(browser, site)
    browser.execute_script("document.head.insertAdjacentHTML('beforeend',"
                           " '<style>.ir-scroll { max-height: 3rem !important; }</style>')")
    _show_tpu(browser)
    unpainted = f"return document.querySelectorAll('#{MODULE} .ir-k[data-i]').length"
    assert browser.execute_script(unpainted) > 0
    line = browser.find_elements("css selector", f"#{MODULE} .ir-src[data-k]")[-1]
    line.send_keys(Keys.ENTER)
    key = line.get_attribute("data-k")
    wanted = [f"{MODULE}-{o}" for o in _op_lines(key)]
    assert wanted and _ops_of(browser, key) == wanted and _selected(browser, "ir-op") == wanted


def test_a_link_to_an_op_of_a_hidden_module_shows_its_tab_and_selects_it(browser, site):
    op = f"{MODULE}-{_op_lines()[-1]}"
    _open(browser, site, f"#{op}", shown=MODULE)
    wait(browser, lambda b: b.execute_script(f"return !!document.getElementById('{op}')"))
    assert _tpu_tab(browser).get_attribute("aria-selected") == "true"
    assert browser.find_element("id", MODULE).is_displayed()
    wait(browser, lambda b: "ir-cur" in b.find_element("id", op).get_attribute("class"))
    assert _selected(browser, "ir-src")  # its kernel line, marked


def _op_lines(key: str = "") -> list[int]:
    """The lines of the TPU module's located ops (those of kernel line `key`, `f0-<line>`)."""
    raw = json.loads(SAMPLE.read_text())
    tpu = next(m for m in raw["modules"] if m["backend"] == "mosaic_tpu")
    return sorted({o["line"] for o in tpu["ops"]
                   if o["loc"] and (not key or f"f0-{o['loc']['line']}" == key)})


def test_an_ops_rule_link_lands_on_the_rules_line(browser, site):
    _open(browser, site)
    _show_tpu(browser)
    link = browser.find_element("css selector", f"#{MODULE} .ir-rule[href$='#L{TPU_RULES['exp'][1]}']")
    assert link.text == TPU_RULES["exp"][2]
    link.click()
    wait(browser, lambda b: b.current_url.endswith(f"#L{TPU_RULES['exp'][1]}"))
    assert browser.current_url.endswith(f"/source/{TPU}.html#L{TPU_RULES['exp'][1]}")
    target = browser.execute_script("return document.querySelector(':target').id")
    assert target == f"L{TPU_RULES['exp'][1]}"


def test_the_view_works_from_the_keyboard(browser, site):
    from selenium.webdriver.common.keys import Keys

    _open(browser, site)
    tab = browser.find_element("id", "ir-exp_add_kernel-jaxpr-tab")
    tab.send_keys(Keys.ARROW_RIGHT)  # to the Mosaic TPU tab
    assert browser.switch_to.active_element.get_attribute("id") == f"{MODULE}-tab"
    assert browser.find_element("id", MODULE).is_displayed()
    _painted(browser, MODULE)
    line = browser.find_element("css selector", f"#{MODULE} .ir-src[data-k]")
    key = line.get_attribute("data-k")
    line.send_keys(Keys.ENTER)
    ops = _ops_of(browser, key)
    assert _selected(browser, "ir-op") == ops and len(ops) > 2
    line.send_keys("n")  # the selection's first op
    assert browser.switch_to.active_element.get_attribute("id") == ops[0]
    browser.switch_to.active_element.send_keys("n")
    assert browser.switch_to.active_element.get_attribute("id") == ops[1]
    browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    assert browser.switch_to.active_element.get_attribute("id") == ops[2]
    browser.switch_to.active_element.send_keys("p")
    assert browser.switch_to.active_element.get_attribute("id") == ops[1]
    browser.switch_to.active_element.send_keys(Keys.ARROW_UP)
    browser.switch_to.active_element.send_keys(Keys.ARROW_UP)  # wraps to the last
    assert browser.switch_to.active_element.get_attribute("id") == ops[-1]
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    assert _selected(browser, "ir-op") == [] and _selected(browser, "ir-src") == []
    browser.switch_to.active_element.send_keys(" ")  # Space on an op selects its line
    assert _selected(browser, "ir-src") == [line.get_attribute("id")]
    assert browser.current_url.endswith("lowering_ladder.html")  # n/p did not leave the page


_CONTRAST = CONTRAST_JS + """
let worst = 99, at = '', rows = 0;
for (let c = 0; c < 8; c++) {
  const row = document.querySelector('.ir-op[data-k]').cloneNode(true);
  row.className = 'ir-op ir-c' + c;
  row.querySelector('.ir-c').insertAdjacentHTML('beforeend',
    ' <span class="k">def</span> <span class="s2">"s"</span> <span class="mi">1</span> <span class="c1"># c</span>' +
    ' <span class="nf">f</span> <span class="o">+</span> <span class="kc">None</span> <span class="p">(</span>');
  document.querySelector('.ir-ir-pane').appendChild(row);
  rows++;
  for (const el of [row, ...row.querySelectorAll('*')]) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const bg = background(el);
    const r = ratio(over(rgba(getComputedStyle(el).color), bg), bg);
    if (r < worst) { worst = r; at = el.outerHTML.slice(0, 80) + ' ' + getComputedStyle(el).color + ' on ' + bg; }
  }
}
return {worst: worst, at: at, rows: rows};
"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_text_on_every_tint_keeps_aa_contrast(browser, site, scheme):
    if not MATERIAL.is_dir():
        pytest.skip("needs mkdocs-material's stylesheets in .venv312")
    _open(browser, site)
    browser.execute_script(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    seen = browser.execute_script(_CONTRAST)
    assert seen["rows"] == 8
    assert seen["worst"] >= 4.5, seen


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_axe_finds_no_serious_violation_in_the_view(browser, site, scheme):
    from tests.test_browser_a11y import AXE, _report, axe_violations

    if not AXE.is_file():
        pytest.skip("needs tests/vendor/axe-core")
    _open(browser, site)
    browser.execute_script(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    _show_tpu(browser)
    browser.find_element("css selector", f"#{MODULE} .ir-src[data-k] .ir-c").click()  # a selection shown
    violations = axe_violations(browser, scheme)
    assert not violations, _report(violations)
