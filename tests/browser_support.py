"""The headless browser the browser tests drive: Debian's chromium and chromedriver via selenium."""

from __future__ import annotations

import functools
import http.server
import shutil
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")


def chromium(profile: Path, logs: bool = False) -> Iterator:
    """A driver with a profile of its own (skips when the browser is missing); `logs` records the
    performance (network) and browser (console) logs."""
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip("needs Debian's chromium and chromedriver (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument("--window-size=1400,1000")
    if logs:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def browser_fixture(logs: bool = False):
    """A test module's `browser` fixture: one `chromium` for the module, its profile in a folder of
    the session's."""

    @pytest.fixture(scope="module")
    def browser(tmp_path_factory):
        yield from chromium(tmp_path_factory.mktemp("chromium-profile"), logs=logs)

    return browser


def server_fixture(site: str = "site"):
    """A test module's `server` fixture: the folder its fixture `site` gives, served over HTTP."""

    @pytest.fixture(scope="module")
    def server(request):
        yield from serve_folder(request.getfixturevalue(site))

    return server


def wait(browser, condition, timeout: float = 15):
    """`condition(browser)` once truthy, asked again while it is not or while it finds no element
    or one the page has replaced since it was found (a condition that finds an element and reads it
    races with a page that renders anew: the review page's state came back between the two)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def rendered(browser) -> None:
    """Returns once the page has rendered a whole frame since the call, so that its geometry is
    what the reader sees: an element with `content-visibility: auto` inserted before (the code
    and IR views' lines) counts its placeholder size until the frame that finds it near the
    viewport has run, and the observers that paint or lay out as the view moves have run too."""
    browser.execute_async_script("const done = arguments[arguments.length - 1];"
                                 "requestAnimationFrame(() => requestAnimationFrame(() => done()));")


def load(browser, url: str, fresh: bool = False) -> None:
    """Opens `url` and waits until its document is complete; `fresh` opens a blank page first, so
    that a URL differing only in its fragment loads a new document."""
    if fresh:
        browser.get("about:blank")
    browser.get(url)
    wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")


def rect(browser, css: str) -> dict | None:
    """The bounding rectangle of the first element `css` selects (top, bottom, left, right, width,
    height, x, y), None when there is none."""
    return browser.execute_script(
        "const e = document.querySelector(arguments[0]); return e && e.getBoundingClientRect().toJSON();", css)


def console_errors(browser) -> list[str]:
    """The console's errors since the last call (the log is drained); needs `chromium(logs=True)`."""
    return [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def press(browser, *keys) -> None:
    """Sends `keys` to whatever has the focus, as a user types them."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(*keys).perform()


def build_small_site(tmp: Path, files: dict[str, str], track: str, annotations: dict[str, str],
                     extra: dict[str, str] | None = None, paths: tuple[str, ...] = ("pkg",),
                     release: str = "") -> tuple[Path, str]:
    """A project pinning `files` in a local upstream, with the repository's mkdocs.yml and docs/,
    `track`, `annotations/<name>` and `extra` (project path -> text), built with a cache of its
    own. (The site's folder, the pin's GitHub-style blob URL prefix.) Labs in `extra` are
    imported by the build: reader's own `kernels` modules are put back after it."""
    from reader.site import build_site
    from tests.conftest import REPO_ROOT, make_upstream, write_project

    env = pytest.MonkeyPatch()
    env.setenv("READER_CACHE", str(tmp / "cache"))
    upstream = make_upstream(tmp / "upstream", [files])
    root = write_project(tmp / "project", "small", upstream.url, upstream.commits[0], files,
                         paths=paths, release=release)
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(track)
    for name, text in {**{f"annotations/{n}": t for n, t in annotations.items()},
                       **(extra or {})}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    saved = {n: m for n, m in sys.modules.items() if n == "kernels" or n.startswith("kernels.")}
    try:
        build_site(root, jobs=1)
    finally:
        env.undo()
        for name in [n for n in sys.modules if n == "kernels" or n.startswith("kernels.")]:
            del sys.modules[name]
        sys.modules.update(saved)
    return root / "site", f"{upstream.url}/blob/{upstream.commits[0]}"


def serve_folder(folder: Path) -> Iterator[str]:
    """The folder over HTTP on a free local port, quietly, while the generator is open: its URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def pallas_files(primitives: Sequence[str]) -> dict[str, str]:
    """The browser tests' pinned files: pkg/core.py and pkg/call.py (tests/golden.py), and a
    Pallas primitives module with a Triton lowering rule table registering `primitives`."""
    from tests.golden import CALL, CORE

    lowering = '''from jax._src.pallas import primitives

triton_lowering_rules = {}


def register_lowering(primitive):
    def wrapper(fn):
        triton_lowering_rules[primitive] = fn
        return fn
    return wrapper
''' + "".join(f'''

@register_lowering(primitives.{p}_p)
def _{p}_rule(ctx, x):
    return x
''' for p in primitives)
    return {"pkg/__init__.py": "", "pkg/core.py": CORE.replace("fixture", "pkg"),
            "pkg/call.py": CALL.replace("fixture", "pkg"),
            "jax/_src/pallas/primitives.py": "from jax._src import core as jax_core\n\n" + "".join(
                f'{p}_p = jax_core.Primitive("{p}")\n' for p in primitives),
            "jax/_src/pallas/triton/lowering.py": lowering}


CONTRAST_JS = """
function rgba(s) { const m = s.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; }
function over(f, b) { return [0, 1, 2].map(i => f[i] * f[3] + b[i] * (1 - f[3])).concat([1]); }
function lum(c) { const v = c.slice(0, 3).map(x => { x /= 255; return x <= .03928 ? x / 12.92 : ((x + .055) / 1.055) ** 2.4; });
  return .2126 * v[0] + .7152 * v[1] + .0722 * v[2]; }
function ratio(a, b) { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + .05) / (y + .05); }
function background(el) { const layers = [];
  for (let e = el; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor); if (c[3] > 0) layers.push(c); }
  return layers.reverse().reduce((b, f) => over(f, b), [255, 255, 255, 1]); }
"""
"""WCAG 2 contrast in a page, for the tests' scripts to begin with: `rgba(css)` -> [r, g, b, a],
`over(top, under)` blends, `background(el)` is the opaque colour behind `el` (its layers down to
white), `ratio(fg, bg)` the contrast ratio of two opaque colours."""


def search(browser, words: str, wanted=lambda href: True) -> list:
    """Opens the site's search from its header button, types `words` and waits for the results
    whose link `wanted` accepts: every result link, in order (the first accepted among them)."""
    browser.execute_script("document.querySelector('.rd-search-open').click()")
    box = wait(browser, lambda b: b.find_element("css selector", "input.rd-search-input"))
    wait(browser, lambda b: box.is_displayed() and box.is_enabled())
    box.clear()
    box.send_keys(words)
    # the results of the words typed, not of a part of them shown while the rest was typed (the
    # list is then drawn again, the links read from it gone)
    done = "var l = document.querySelector('.rd-search-results'); return !!l && l.dataset.q === arguments[0]"
    return wait(browser, lambda b: b.execute_script(done, words)
                and (links := b.find_elements("css selector", "a.rd-sr"))
                and any(wanted(a.get_attribute("href") or "") for a in links) and links)


def emulate(driver, width: int, height: int) -> None:
    """The page's viewport becomes `width` x `height` CSS pixels; under 600 wide, a phone's (touch,
    3 device pixels a pixel)."""
    phone = width < 600
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "mobile": phone, "deviceScaleFactor": 3 if phone else 1})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": phone})


# The code view as a reader meets it, for the tests and benchmarks/browser.py.

# How many characters of a line its first row shows: a probe line of 400 zeros in the first code
# view's first noted block (else its first block), from where its text starts to where the row
# ends: its own box (where it would wrap), a box that clips it (a scrolling view), or the window.
COLUMNS_JS = """
const view = document.querySelector('.rd-code');
if (!view) return null;
const block = view.querySelector('.rd-noted') || view.querySelector('.rd-block');
const chunk = block.querySelector('.rd-k');
if (window.readerCode) window.readerCode.paint(chunk);
const probe = chunk.children[0].cloneNode(false);
probe.removeAttribute('id'); probe.removeAttribute('style');
probe.textContent = '0'.repeat(400);
chunk.appendChild(probe);
const text = probe.firstChild, range = document.createRange();
range.setStart(text, 0); range.setEnd(text, 1);
const first = range.getBoundingClientRect();
const style = getComputedStyle(probe), box = probe.getBoundingClientRect();
let right = Math.min(box.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth),
                     document.documentElement.clientWidth);
for (let el = probe.parentElement; el; el = el.parentElement) {
  if (getComputedStyle(el).overflowX !== 'visible') right = Math.min(right, el.getBoundingClientRect().right);
}
const columns = Math.floor((right - first.left) / first.width + 0.01);
probe.remove();
return columns;
"""

# Each note beside its lines (its notes' view laid out as a grid: not a phone's), as a reader sees
# it without a hover: {lines, chars, hidden, cut, prose, proseHidden, claim, shut}: the characters
# of its text (its head, 'more' and a claim's head aside), those its fold (or its notes' fold) hides,
# those hidden while laid out (cut: a fold), those of its prose (not a claim's example) and of them
# hidden, and whether it has a claim and the claim is shut.
NOTES_JS = """
const out = [], range = document.createRange();
for (const note of document.querySelectorAll('.rd-margin .rd-mn')) {
  if (getComputedStyle(note.closest('.rd-noted')).display !== 'grid') continue;
  let clip = Infinity;  // the bottom of what its fold (or its notes' fold) shows
  for (const box of [note, note.closest('.rd-ns')]) {
    const style = box && getComputedStyle(box);
    if (style && style.maxHeight !== 'none' && style.overflow !== 'visible')
      clip = Math.min(clip, box.getBoundingClientRect().top + parseFloat(style.maxHeight));
  }
  const got = {lines: note.getAttribute('data-lines'), chars: 0, hidden: 0, cut: 0, prose: 0, proseHidden: 0,
               claim: !!note.querySelector('.rd-claim'), shut: !!note.querySelector('.rd-claim-shut')};
  const walker = document.createTreeWalker(note, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (t.parentElement.closest('.rd-note-head, .rd-more, .rd-claim-head')) continue;
    const claim = !!t.parentElement.closest('.rd-claim');
    for (let i = 0; i < t.data.length; i++) {
      if (/\\s/.test(t.data[i])) continue;
      range.setStart(t, i); range.setEnd(t, i + 1);
      const r = range.getClientRects()[0], gone = !r || r.bottom > clip + 1;
      got.chars++; got.hidden += gone; got.cut += !!r && gone;
      if (!claim) { got.prose++; got.proseHidden += gone; }
    }
  }
  out.push(got);
}
return out;
"""

# Scroll to the end as a reader does, a screen at a time, letting the page paint between steps.
SCROLL_STEP_JS = """
const before = window.scrollY;
window.scrollBy(0, Math.round(innerHeight * 0.9));
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => done([window.scrollY !== before,
  document.documentElement.scrollHeight])));
"""

# Every code line laid out (as for printing), then: lines, lines on more than one row, and rows
# that begin inside a word (a break between two word characters, or a row's first character
# is one and the previous row's last is another).
WRAPS_JS = """
document.head.insertAdjacentHTML('beforeend',
  '<style>.rd-k { content-visibility: visible !important; }</style>');
window.dispatchEvent(new Event('beforeprint'));
const lines = document.querySelectorAll('.rd-k > div');
let wrapped = 0, midWord = 0;
const range = document.createRange(), word = /[A-Za-z0-9_]/;
for (const line of lines) {
  const lh = parseFloat(getComputedStyle(line).lineHeight);
  if (line.getBoundingClientRect().height < 1.5 * lh) continue;
  wrapped++;
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  let prevChar = '', prevTop = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const r = range.getClientRects()[0];
      if (!r) continue;
      const ch = node.data[i];
      if (prevTop !== null && r.top > prevTop + lh / 2 && word.test(ch) && word.test(prevChar)) midWord++;
      prevTop = r.top; prevChar = ch;
    }
  }
}
return [lines.length, wrapped, midWord];
"""


# A folded note's rows of text whose top shows but not their bottom (cut by the fold, or under its
# button), probed with elementFromPoint at their left, middle and right: [note, the row's text].
CUT_ROWS_JS = """
const out = [], range = document.createRange();
for (const note of document.querySelectorAll('.rd-mn.rd-fold')) {
  if (!note.offsetParent) continue;
  note.scrollIntoView({block: 'center'});
  const walk = document.createTreeWalker(note, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (!/\\S/.test(t.data) || t.parentElement.closest('.rd-more')) continue;
    range.selectNodeContents(t);
    for (const r of range.getClientRects()) {
      if (r.height < 4 || r.width < 4) continue;
      for (const x of [r.left + 2, (r.left + r.right) / 2, r.right - 2]) {
        const shows = (y) => { const hit = document.elementFromPoint(x, y); return !!hit && (hit === t.parentElement || t.parentElement.contains(hit)); };
        if (shows(r.top + 1) && !shows(r.bottom - 1)) out.push([note.id || note.className, t.data.trim().slice(0, 40)]);
      }
    }
  }
}
return out;
"""

CLIPPED_JS = """
return [...document.querySelectorAll('.rd-mn .rd-claim:not(.rd-claim-shut) > .rd-claim-code > code')]
  .filter(c => c.offsetParent && (c.scrollWidth > c.clientWidth + 1
                || c.getBoundingClientRect().right > c.closest('.rd-mn').getBoundingClientRect().right + 1))
  .map(c => c.textContent.split('\\n')[0].slice(0, 40));
"""
