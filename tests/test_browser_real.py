"""The code browser's promises on the real site (the pinned jax and tokamax, both editions), in a
headless browser: BlockSpec's references list, a local's marks without the attributes that share
its name, `jax_core.Primitive` opening its definition, core.py's line carried to the 0.10.2 edition,
mosaic/lowering.py's diff honouring `#new-L555` on a fresh load and keeping its sides aligned, core.py's
blame naming a line's first release and linking its diff, the diff's expanded rows highlighted and
linkable by their line numbers, the edition switch in reach at the bottom of a long page, a page
without counterpart saying so in place."""

from __future__ import annotations

from functools import partial

import pytest

from tests.browser_support import NOTES_JS, browser_fixture, load, server_fixture, wait

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CORE = "source/jax/_src/pallas/core.py.html"
LOWERING = "diffs/jax/_src/pallas/mosaic/lowering.py.html"


server = server_fixture("real_site")


browser = browser_fixture()


_open = partial(load, fresh=True)


def test_blockspecs_references_list_its_uses_with_their_code_and_links(server, browser):
    _open(browser, f"{server}/{CORE}#uses-BlockSpec")
    groups = wait(browser, lambda b: b.execute_script("""
      const box = document.querySelector('#uses-BlockSpec > .rd-refs'); if (!box) return null;
      return [...box.querySelectorAll('.rd-refs-file')].map(g => [g.querySelector('.rd-refs-path').textContent,
        [...g.querySelectorAll('li a')].map(a => [a.textContent, a.getAttribute('href')])]);"""), timeout=30)
    assert groups[0][0] == "Definition" and groups[0][1][0][0].startswith("566class BlockSpec")
    assert groups[1][0] == "jax/_src/pallas/core.py (this file)"
    files = [g for g in groups[1:] if g[0] != "Notes"]
    rows = [row for _, found in files for row in found]
    assert len(files) > 40 and len(rows) > 400, (len(files), len(rows))
    assert all("BlockSpec" in text for text, _ in rows)  # each use's line of code, the name on it
    text, href = next(row for _, found in files for row in found if "pallas_call.py.html" in row[1])
    _open(browser, href)  # its link lands on that line
    line = href.rsplit("#", 1)[1]
    code = text[len(line) - 1:].rstrip("\u2026")  # the list's text: the number, then the code (cut at 160)
    assert browser.execute_script("return document.getElementById(arguments[0]).textContent", line).strip().startswith(code)


def test_a_locals_marks_in_to_block_mapping_skip_self_block_shape(server, browser):
    _open(browser, f"{server}/{CORE}")
    wait(browser, lambda b: b.execute_script("return window.readerScopes && document.querySelector('.rd-scope-where').textContent"))
    found = browser.execute_script("""
      const lines = [...document.querySelectorAll('.rd-k > div[id]')];
      const start = lines.findIndex(l => /def to_block_mapping/.test(l.textContent));
      for (let i = start; i < start + 60; i++) {
        const t = lines[i].textContent, at = t.search(/(?<![.\\w])block_shape(?!\\w)(?!\\s*=[^=])/);
        if (at >= 0 && !/def /.test(t)) return [lines[i].id, at];
      }""")
    assert found, "a local block_shape in to_block_mapping"
    line, col = found
    browser.execute_script("document.getElementById(arguments[0]).scrollIntoView({block: 'center'})", line)
    x, y = browser.execute_script("""
      const line = document.getElementById(arguments[0]), r = document.createRange();
      let at = arguments[1], node; const walk = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
      while ((node = walk.nextNode())) { if (at < node.data.length) break; at -= node.data.length; }
      r.setStart(node, at + 1); r.setEnd(node, at + 2); const b = r.getBoundingClientRect();
      return [b.x + 1, b.y + b.height / 2];""", line, col)
    browser.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
    marked = wait(browser, lambda b: b.execute_script("""
      const h = CSS.highlights.get('rd-ref'); if (!h || !h.size) return null;
      return [...h].map(r => { const l = r.startContainer.parentElement.closest('[id^=L]');
        const before = l.textContent.slice(0, l.textContent.indexOf(r.startContainer.data) + r.startOffset);
        return [l.id, before.trimEnd().slice(-5)]; });"""))
    assert len(marked) >= 3
    assert not [m for m in marked if m[1].endswith("self.")], marked  # no `self.block_shape`


def test_jax_core_primitive_on_pallas_calls_line_70_opens_its_definition(server, browser):
    _open(browser, f"{server}/source/jax/_src/pallas/pallas_call.py.html#L70")
    href = wait(browser, lambda b: b.execute_script(
        "const a = [...document.querySelectorAll('#L70 a')].find(a => a.textContent === 'Primitive');"
        "return a && a.href"))
    assert href.startswith(f"{server}/source/jax/_src/core.py.html#L")
    browser.execute_script("[...document.querySelectorAll('#L70 a')].find(a => a.textContent === 'Primitive').click()")
    wait(browser, lambda b: b.current_url == href)
    line = href.rsplit("#", 1)[1]
    assert browser.execute_script("return document.getElementById(arguments[0]).textContent", line).startswith(
        "class Primitive")


def test_core_py_line_566_switched_to_0_10_2_lands_on_the_same_class(server, browser):
    _open(browser, f"{server}/{CORE}#L566")
    assert browser.execute_script("return document.getElementById('L566').textContent") == "class BlockSpec:"
    link = browser.execute_script(
        "return [...document.querySelectorAll('.rd-editions a')].find(a => a.getAttribute('data-edition') === '0.10.2')")
    browser.execute_script("arguments[0].click()", link)
    wait(browser, lambda b: "/0.10.2/source/jax/_src/pallas/core.py.html#L" in b.current_url)
    wait(browser, lambda b: b.execute_script("return document.querySelector('.rd-k > .rd-sel')"))
    line = browser.current_url.rsplit("#", 1)[1].split("-")[0]
    assert browser.execute_script("return document.getElementById(arguments[0]).textContent", line) == "class BlockSpec:"
    assert "is line" in browser.find_element("css selector", ".rd-edition-note").text


@pytest.mark.parametrize("view", ["unified", "split"])
def test_new_l555_on_a_fresh_load_marks_and_shows_its_line(server, browser, view):
    _open(browser, f"{server}/{LOWERING}")
    browser.execute_script("localStorage.setItem('reader.diffView', arguments[0])", view)
    _open(browser, f"{server}/{LOWERING}#new-L555")
    row = wait(browser, lambda b: b.execute_script(
        "return [...document.querySelectorAll('.rd-k > .rd-sel')].find(r => r.getClientRects().length)"), timeout=30)
    wait(browser, lambda b: 0 < b.execute_script("return arguments[0].getBoundingClientRect().top", row)
         < b.execute_script("return innerHeight"))
    label = row.get_attribute("data-l")
    assert (label.strip() == "555") if view == "split" else (label[6:11].strip() == "555")
    browser.execute_script("localStorage.removeItem('reader.diffView')")


def test_side_by_side_keeps_mosaic_lowerings_hunk_heads_in_one_row(server, browser):
    browser.set_window_size(1280, 800)
    try:
        _open(browser, f"{server}/{LOWERING}")
        browser.execute_script("document.querySelector('.rd-diff-views button[data-view=\"split\"]').click()")
        worst = wait(browser, lambda b: b.execute_script("""
          const cells = [...document.querySelectorAll('.rd-split .rd-sk > div')]; if (!cells.length) return null;
          let worst = 0, heads = 0;
          for (let i = 0; i + 1 < cells.length; i += 2) {
            const off = Math.abs(cells[i].getBoundingClientRect().top - cells[i + 1].getBoundingClientRect().top);
            worst = Math.max(worst, off); if (cells[i].classList.contains('rd-hunk')) heads = Math.max(heads, off);
          }
          return [worst, heads, cells.length / 2];"""), timeout=60)
        assert worst[2] > 1000 and worst[0] < 1 and worst[1] < 1, worst
    finally:
        browser.execute_script("localStorage.removeItem('reader.diffView')")
        browser.set_window_size(1400, 1000)


def _results(browser) -> list[tuple[str, str]]:
    """The search's results shown: (the link, its second line: where it is)."""
    return browser.execute_script(
        "return [...document.querySelectorAll('a.rd-sr')].map(a => [a.getAttribute('href'),"
        " (a.innerText.split('\\n')[1] || '').trim()]);")


def test_blokspec_offers_blockspec_and_a_q_url_opens_its_results(server, browser):
    _open(browser, f"{server}/index.html?q=BlokSpec")
    offer = wait(browser, lambda b: b.find_elements("css selector", ".rd-sr-offer"), timeout=30)[0]
    assert offer.text == "BlockSpec"
    assert browser.find_element("css selector", ".rd-search-status").text == "No results for BlokSpec"
    _open(browser, f"{server}/index.html?q=BlockSpec")  # a shared link: the dialog open on its results
    results = wait(browser, lambda b: _results(b), timeout=30)
    assert browser.find_element("css selector", "input.rd-search-input").get_attribute("value") == "BlockSpec"
    assert results[0][0].endswith(f"{CORE}#L566") and results[0][1] == "jax/_src/pallas/core.py:566", results[:3]


def test_a_pattern_finds_every_lowering_rule_def_of_mosaic_lowering(server, browser):
    import re

    page = "source/jax/_src/pallas/mosaic/lowering.py.html"
    _open(browser, f"{server}/{page}")
    # a long file's rows past its first screenfuls come after the page: all put in, as for printing
    wait(browser, lambda b: b.execute_script(
        "window.dispatchEvent(new Event('beforeprint')); return !document.querySelector('.rd-k[data-i]')"), timeout=30)
    lines = browser.execute_script("return [...document.querySelectorAll('.rd-k > div[id^=L]')].map(l => l.textContent)")
    wanted = [f"L{n}" for n, text in enumerate(lines, 1) if re.search("def _.*_lowering_rule", text)]
    assert len(wanted) > 100
    browser.execute_script("document.querySelector('.rd-search-open').click()")
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-search-input"))
    box.send_keys("file:mosaic/lowering.py /def _.*_lowering_rule/")
    wait(browser, lambda b: "lines match in jax/_src/pallas/mosaic/lowering.py"
         in b.find_element("css selector", ".rd-search-status").text, timeout=30)
    while browser.execute_script(  # the pieces of lines read a batch at a time, the list 20 at a time
            "const m = document.querySelector('.rd-search-results .rd-sr-more'); if (m) m.click(); return !!m"):
        browser.execute_script("return new Promise(r => setTimeout(r, 50))")
    status = browser.find_element("css selector", ".rd-search-status").text
    assert status.startswith(f"{len(wanted)} lines match in jax/_src/pallas/mosaic/lowering.py"), status
    hrefs = [href for href, _ in _results(browser)]
    assert all(f"/{page}#" in h for h in hrefs) and [h.rsplit("#", 1)[1] for h in hrefs] == wanted


def test_note_excerpts_start_and_end_between_words(server, browser):
    """The issue's excerpt read '…he comment points at': each note result's text starts and ends
    on a word of the note (its page's text), not inside one."""
    import re

    _open(browser, f"{server}/index.html?q=comment points at in:notes")
    wait(browser, lambda b: b.find_elements("css selector", "a.rd-sr .rd-sr-x"), timeout=30)
    shown = browser.execute_script(
        "return [...document.querySelectorAll('a.rd-sr')].filter(a => a.querySelector('.rd-sr-x'))"
        ".map(a => [a.getAttribute('href'), a.querySelector('.rd-sr-x').textContent]);")
    assert any("pallas-call.html#note-pc-primitive-hijax" in href for href, _ in shown), shown
    for href, excerpt in shown:
        _open(browser, href)
        note = browser.execute_script("const n = document.getElementById(location.hash.slice(1));"
                                      " return n && n.closest('.rd-mn, .rd-note, section, article').textContent")
        words = " ".join(note.split())
        body = excerpt.strip("…").split()
        head, tail = r"\W+".join(map(re.escape, body[:3])), r"\W+".join(map(re.escape, body[-3:]))
        assert re.search(rf"(?<!\w){head}", words) and re.search(rf"{tail}(?!\w)", words), (href, excerpt)




@pytest.mark.parametrize("page", ["articles/pallas-call.html", "source/jax/_src/pallas/pallas_call.py.html"])
def test_no_note_of_pallas_call_is_hidden_entirely(server, browser, page):
    """At 1280x800 every note beside pallas_call.py's lines shows some of its text without a hover
    or a click: the first (line 70) showed only 'line 70 GitHub ↗ more', 9 of 93 nothing."""
    browser.set_window_size(1280, 800)
    try:
        _open(browser, f"{server}/{page}")
        browser.execute_script("document.head.insertAdjacentHTML('beforeend',"  # every chunk laid out
                               "'<style>.rd-k { content-visibility: visible !important; }</style>')")
        notes = browser.execute_script(NOTES_JS)
        assert len(notes) > 40 and notes[0]["lines"].startswith("L70"), notes[:2]
        assert [n["lines"] for n in notes if n["hidden"] == n["chars"]] == []
    finally:
        browser.set_window_size(1400, 1000)


def test_a_name_in_a_note_says_where_it_is_defined_not_0_uses(server, browser):
    """'_check_block_mappings' linked in a note on core.py's page, hovered: the scope line names
    its file (it showed '0 × _check_block_mappings')."""
    _open(browser, f"{server}/{CORE}")
    wait(browser, lambda b: b.execute_script("return document.querySelector('.rd-scope-where').textContent"))
    x, y = browser.execute_script("""
      const a = [...document.querySelectorAll('.rd-mn a')].find(a => a.textContent.trim() === '_check_block_mappings');
      a.scrollIntoView({block: 'center'}); const b = a.getBoundingClientRect();
      return [b.x + b.width / 2, b.y + b.height / 2];""")
    browser.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
    count = wait(browser, lambda b: b.find_element("css selector", ".rd-scope-count").text)
    assert count == "_check_block_mappings is defined in jax/_src/pallas/mosaic/lowering.py"


_MORE_OVER_HEAD = """
const out = [];
for (const more of document.querySelectorAll('.rd-mn > .rd-more:not([hidden])')) {
  const m = more.getBoundingClientRect();
  for (const a of more.parentElement.querySelectorAll('.rd-note-head a')) {
    for (const r of a.getClientRects())
      if (r.left < m.right && m.left < r.right && r.top < m.bottom && m.top < r.bottom)
        out.push([more.parentElement.getAttribute('data-lines'), a.textContent]);
  }
}
return out;
"""


@pytest.mark.parametrize("size", [(1280, 800), (1440, 900)])
def test_a_folded_notes_more_button_covers_none_of_its_head(server, browser, size):
    """At 1440 'more' sat over pallas_call.py's first note's 'GitHub ↗' link."""
    browser.set_window_size(*size)
    try:
        _open(browser, f"{server}/source/jax/_src/pallas/pallas_call.py.html")
        assert wait(browser, lambda b: b.find_elements("css selector", ".rd-mn > .rd-more:not([hidden])"))
        assert browser.execute_script(_MORE_OVER_HEAD) == []
    finally:
        browser.set_window_size(1400, 1000)


_SPLIT_NAMES = """
const out = [], range = document.createRange();
for (const code of [...document.querySelectorAll('#uses-BlockSpec > .rd-refs a.rd-refs-row code')].slice(0, 80)) {
  const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT), nodes = [];
  for (let t = walk.nextNode(); t; t = walk.nextNode()) nodes.push(t);
  for (const t of nodes) for (const m of t.data.matchAll(/\\w{2,}/g)) {
    range.setStart(t, m.index); range.setEnd(t, m.index + m[0].length);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (tops.size > 1) out.push(m[0]);
  }
}
return out;
"""


def test_on_a_phone_the_uses_list_wraps_its_code_between_names(server, browser):
    """At 390 px the rows of BlockSpec's list wrapped anywhere ('Memor' / 'ySpace.ANY'); now where
    the code view wraps: after a dot, a bracket or a comma, and at spaces."""
    from tests.browser_support import emulate

    emulate(browser, 390, 844)
    try:
        _open(browser, f"{server}/{CORE}#uses-BlockSpec")
        wait(browser, lambda b: b.find_elements("css selector", "#uses-BlockSpec > .rd-refs a.rd-refs-row"), timeout=30)
        wrapped = browser.execute_script(
            "return [...document.querySelectorAll('#uses-BlockSpec > .rd-refs a.rd-refs-row')].slice(0, 80)"
            ".filter(a => a.getClientRects()[0].height > 1.5 * parseFloat(getComputedStyle(a).lineHeight)).length")
        assert wrapped > 5  # the case: rows longer than the phone's width
        assert browser.execute_script(_SPLIT_NAMES) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def _blame(site, path: str) -> dict:
    """A source file's blame data, as its script (`assets/blame/<path>.js`) gives it to blame.js."""
    import json

    text = (site / "assets" / "blame" / f"{path}.js").read_text()
    return json.loads(text[text.index(",") + 1:text.rindex(")")])


def _runs(data: dict) -> list[tuple[int, int, int]]:
    """(first line, earliest release, latest release) of each run of the blame's lines."""
    out, line, flat = [], 1, data["l"]
    for i in range(0, len(flat), 3):
        out.append((line, flat[i + 1], flat[i + 2]))
        line += flat[i]
    return out


def test_a_line_of_core_py_blames_its_first_release_and_links_its_diff(real_site, server, browser):
    """Blame on: a run of lines first read in a release after 0.10.2 names it beside its first line and
    links that line on core.py's diff page, which shows it added; a run first read at 0.10.0 names
    0.10.0 and says the site has no diff page for it."""
    data = _blame(real_site, "jax/_src/pallas/core.py")
    releases, edition = data["r"], data["e"]
    assert releases[edition] == "0.10.2" and releases[-1] == "0.12.0.1"
    line, first, last = next(r for r in _runs(data) if r[0] > 200 and edition < r[1] < len(releases) - 1)
    _open(browser, f"{server}/{CORE}#L{line}")
    browser.execute_script("document.querySelector('.rd-code .rd-blame').click()")
    mark = wait(browser, lambda b: b.execute_script(
        "return document.querySelector('#L' + arguments[0] + ' > .rd-bl')", line), timeout=30)
    assert mark.tag_name == "a" and mark.get_attribute("data-r") == releases[first] and last == len(releases) - 1
    assert mark.get_attribute("title").startswith(f"Reads as now in jax {releases[first]} to 0.12.0.1")
    assert mark.is_displayed()
    href = mark.get_attribute("href")
    assert href.endswith(f"/diffs/jax/_src/pallas/core.py.html#new-L{line}"), href
    old = next(r for r in _runs(data) if r[1] == 1)  # first read at 0.10.0: no diff page here
    _open(browser, f"{server}/{CORE}#L{old[0]}")
    browser.execute_script("document.querySelector('.rd-code .rd-blame').click()")
    said = wait(browser, lambda b: b.execute_script(
        "return document.querySelector('#L' + arguments[0] + ' > .rd-bl')", old[0]), timeout=30)
    assert said.tag_name == "span" and said.get_attribute("data-r") == "0.10.0"
    assert "No diff page for 0.10.0 here" in said.get_attribute("title")
    _open(browser, href)  # the link: the diff page, at that line, added since 0.10.2
    row = wait(browser, lambda b: b.execute_script("return document.querySelector('.rd-diff-unified .rd-sel')"), timeout=30)
    assert row.get_attribute("id") == f"new-L{line}" and "rd-add" in row.get_attribute("class")


def test_an_expanded_diff_row_is_highlighted_and_linkable_by_its_line_number(server, browser):
    """On mosaic/lowering.py's diff page every row's number is a visible link to the line's own id
    (none to `#`); the context an expander shows comes highlighted, each row the new line's anchor,
    and a hidden context line named in the URL opens expanded, marked."""
    _open(browser, f"{server}/{LOWERING}")
    numbers = wait(browser, lambda b: b.execute_script("""
      const links = [...document.querySelectorAll('.rd-diff-unified .rd-n')];
      return links.length && [links.length, links.filter(a => a.offsetWidth && a.offsetHeight).length,
        links.filter(a => /^#(new|old)-L\\d+$/.test(a.getAttribute('href'))).length,
        document.querySelectorAll('a[href="#"]').length, links.filter(a => a.closest('.rd-hunk')).length];"""), timeout=30)
    assert numbers[0] > 50 and numbers[1] == numbers[2] == numbers[0] - numbers[4] and numbers[3] == 0, numbers
    browser.execute_script("document.querySelector('.rd-expand button[data-how=\"all\"], .rd-expand button').click()")
    rows = wait(browser, lambda b: b.execute_script("""
      const rows = [...document.querySelectorAll('.rd-diff-unified .rd-k.rd-ctx.rd-on > div')];
      return rows.length && rows.map(r => [r.id, r.getAttribute('data-l'), r.querySelectorAll('span[class]').length,
        (r.querySelector('.rd-n') || {}).getAttribute && r.querySelector('.rd-n').getAttribute('href')]);"""), timeout=30)
    assert all(row_id == f"new-L{int(label.split()[1])}" and href == f"#{row_id}" for row_id, label, _s, href in rows)
    assert sum(spans > 0 for *_, spans, _h in rows) > len(rows) // 2  # highlighted, as the file's page is
    hidden = int(browser.execute_script("""
      const gap = [...document.querySelectorAll('.rd-expand:not([hidden]) button[data-how="all"]')].pop();
      return gap.textContent.match(/\\((\\d+)/)[1];"""))  # the first line of the last gap still hidden
    _open(browser, f"{server}/{LOWERING}#new-L{hidden}")
    row = wait(browser, lambda b: b.execute_script("return document.querySelector('.rd-diff-unified .rd-sel')"), timeout=30)
    assert row.get_attribute("id") == f"new-L{hidden}" and "rd-ctx" in row.get_attribute("class")
    wait(browser, lambda b: b.execute_script("return arguments[0].closest('.rd-k').querySelectorAll('span[class]').length", row))


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_the_edition_switch_is_clickable_at_the_bottom_of_lowering_py(server, browser, size):
    from selenium.webdriver.common.action_chains import ActionChains

    from tests.browser_support import emulate, rendered

    page = "source/jax/_src/pallas/mosaic/lowering.py.html"
    emulate(browser, *size)
    try:
        _open(browser, f"{server}/{page}")
        browser.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
        rendered(browser)
        assert browser.execute_script("return scrollY") > 12_500
        button = browser.find_element("css selector", ".rd-editions .md-version__current")
        assert browser.execute_script("""
          const r = arguments[0].getBoundingClientRect();
          return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === arguments[0];""", button)
        opening = ActionChains(browser).move_to_element(button)  # a pointer opens it hovering, a finger tapping
        (opening.click() if size[0] < 600 else opening).perform()
        # the list opens with a transition: the link is taken once it is what a tap at its centre hits
        link = wait(browser, lambda b: next((a for a in b.find_elements("css selector", ".rd-editions a[data-edition='0.10.2']")
                                             if a.is_displayed() and b.execute_script("""
          const r = arguments[0].getBoundingClientRect();
          const list = arguments[0].closest(".md-version__list");
          return list.getAnimations({subtree: true}).every(t => t.playState !== "running") &&
            arguments[0].contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));""", a)),
                                            None))
        ActionChains(browser).move_to_element(link).click().perform()
        wait(browser, lambda b: b.current_url.endswith(f"/0.10.2/{page}"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})


def test_a_page_without_counterpart_says_so_in_place(server, browser):
    """jax/_src/core.py (a file the current pins page for its names) has no page in 0.10.2: choosing
    0.10.2 says so where the reader stands, linking the nearest page there, its folder's index."""
    page = f"{server}/source/jax/_src/core.py.html"
    _open(browser, page)
    browser.execute_script("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
    browser.execute_script("document.querySelector(\".rd-editions a[data-edition='0.10.2']\").click()")
    said = wait(browser, lambda b: b.find_element("css selector", ".rd-edition-missing"))
    assert browser.current_url == page
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", said)
    assert said.is_displayed() and 0 <= top < browser.execute_script("return innerHeight")  # in view, where the reader is
    assert "jax/_src/core.py has no counterpart in the 0.10.2 edition. Nearest there: its folder's index, source/." in said.text
    assert said.find_element("tag name", "a").get_attribute("href") == f"{server}/0.10.2/source/index.html"
