"""The site as a reader meets it, in headless Chromium: figures per part, printed beside targets.

    python benchmarks/browser.py SITE [--before SITE] [--part NAME ...] [--size WxH ...] [--page REL ...]

Parts (`--part`, repeatable; default all):
  layout  for each page (default: the pallas_call article and core.py's source page) and viewport
          (default 1280x800 and 1440x900; `390x844` emulates a phone): the columns of code a line
          shows before it wraps or is cut (target >= 80), the share of code lines that take more
          than one row (<= 2%) and of those wrapped inside a word, and the page's height change
          once scrolled to its end, step by step as a reader scrolls (<= 1%).
  notes   for each article and each source page with notes (or the `--page`s named) and viewport:
          the notes beside their lines, the share of them folded (some of their text behind "more";
          target <= 5%), those showing nothing of their text (0), the share of note text hidden
          (their prose; and with their claims' examples, which shut to a one-line head first where
          notes crowd), the claims shut, and the claim examples' type size beside the code's; the
          notes whose fold cuts a row of text or puts "more" over words (0) and the open examples
          that run past their column's edge (0).
  search  for each of QUERIES, typed as soon as the home page
          has loaded (served over HTTP): the time from the load event to the first result shown,
          the bytes search fetched (its scripts and index; target <= 300 KB) and the first
          result's link. Works on material's search too (a `--before` build of main).
  weight  the home page's first visit: every byte it fetches (target <= 500 KB); and the 10
          heaviest pages of each site (by HTML bytes; `--page` names others instead), each loaded
          over HTTP as a reader gets it, in a fresh browser: the HTML's bytes transferred (<= 600 KB),
          the other bytes of the site's own it fetched by then (its scripts and data: a long file's
          rows), the DOM nodes once it has loaded (every node, text included, after the load event,
          its long view's rows come and two frames painted; <= 15,000) and DOMContentLoaded, the
          median of 3 cold loads (<= 1 s); the script and CSS bytes every page loads.
  names   the share of the dotted jax names read in the pinned Pallas files (`jax_core.Primitive`,
          `jnp.float32`: a module of jax and its attributes) that the site links to their
          definition (target >= 95%), read from the source pages' links; which names are jax's and
          resolve to a definition is decided over the installed jax release (the pinned one).
  align   the side-by-side diff's alignment error: on mosaic/lowering.py's diff page (`--page`
          names others) at each viewport, the worst vertical offset between the two sides of a row
          and of a hunk head (target: < 1 px).
  corpus  the cost of the pins' `context` (the jax modules the pinned files import): its pages
          and their site bytes (HTML and the data scripts that come with them); `--cold PROJECT`
          also builds PROJECT cold twice, with and without its context, on an empty cache each,
          and prints the CPU and wall seconds of each (minutes on this machine).

At the end, the issue's figures (issue 47), each site's beside its target: the notes folded and the
open examples clipped (`notes`), the home page's first visit, the heaviest page's HTML, the most DOM
nodes and the slowest DOMContentLoaded of the pages weighed, the script and CSS every page loads
(`weight`).

Pages are opened from file:// (`weight`: over HTTP) with a fresh profile each (the flags of tests/browser_support.py),
so a stored choice (the wrap toggle) does not carry over. `--before` measures a second build (e.g.
main's) side by side. Nothing here asserts: the figures are for the issue's record.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser_support import (  # noqa: E402
    CHROMEDRIVER,
    CHROMIUM,
    CLIPPED_JS,
    COLUMNS_JS,
    CUT_ROWS_JS,
    FLAGS,
    NOTES_JS,
    SCROLL_STEP_JS,
    WRAPS_JS,
    emulate,
)

PAGES = ("articles/pallas-call.html", "source/jax/_src/pallas/core.py.html")
QUERIES = ("BlockSpec", "aval_to_ir_type", "Storing into an accumulator", '"wait with no matching signal"',
           "BlokSpec", "file:mosaic/lowering.py /def _.*_lowering_rule/", "/^def _pallas_call/",
           "/lowering_rule/", "pl.program_id")
SIZES = ("1280x800", "1440x900")


@dataclass(frozen=True)
class Viewport:
    width: int
    height: int

    @property
    def phone(self) -> bool:
        return self.width < 600

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"


def viewport(text: str) -> Viewport:
    try:
        width, height = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a size as WIDTHxHEIGHT, e.g. 1280x800") from None
    return Viewport(width, height)


@contextmanager
def browser(size: Viewport, logged: bool = False) -> Iterator:
    """A fresh headless Chromium whose viewport is `size` (a phone's: touch, 3x pixels); `logged`:
    with Chrome's network log on (what `fetched` reads)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="browser-bench-") as profile:
        options = webdriver.ChromeOptions()
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        if logged:
            options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        options.binary_location = CHROMIUM or ""
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        try:
            driver.set_page_load_timeout(120)
            driver.set_script_timeout(300)
            emulate(driver, size.width, size.height)
            yield driver
        finally:
            driver.quit()


def load(driver, page: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page.as_uri())
    WebDriverWait(driver, 120).until(lambda d: d.execute_script("return document.readyState") == "complete")
    driver.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# ---- layout -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    columns: int | None
    lines: int
    wrapped: int
    mid_word: int
    height_before: int
    height_after: int

    @property
    def wrapped_share(self) -> float:
        return self.wrapped / self.lines if self.lines else 0.0

    @property
    def height_change(self) -> float:
        return (self.height_after - self.height_before) / self.height_before


def measure_layout(page: Path, size: Viewport) -> Layout:
    with browser(size) as driver:
        load(driver, page)
        columns = driver.execute_script(COLUMNS_JS)
        driver.execute_script("window.scrollTo(0, 0)")
        height_before = driver.execute_script("return document.documentElement.scrollHeight")
        height_after = height_before
        for _ in range(5000):
            moved, height_after = driver.execute_async_script(SCROLL_STEP_JS)
            if not moved:
                break
            time.sleep(0.02)
        lines, wrapped, mid_word = driver.execute_script(WRAPS_JS)
    return Layout(columns, lines, wrapped, mid_word, height_before, height_after)


def layout_part(sites: dict[str, Path], pages: list[str], sizes: list[Viewport]) -> None:
    pages = pages or list(PAGES)
    print("\nlayout: code columns (>= 80), wrapped lines (<= 2%), height change when scrolled to the end (<= 1%)")
    print(f"  {'page':<40}{'viewport':>10}{'site':>8}{'columns':>9}{'wrapped':>16}{'mid-word':>10}"
          f"{'height px: load -> end':>28}{'change':>9}")
    for rel in pages:
        for size in sizes:
            for name, site in sites.items():
                got = measure_layout(site / rel, size)
                print(f"  {rel:<40}{size!s:>10}{name:>8}{got.columns if got.columns is not None else '-':>9}"
                      f"{f'{got.wrapped}/{got.lines} {got.wrapped_share:.1%}':>16}{got.mid_word:>10}"
                      f"{f'{got.height_before:,} -> {got.height_after:,}':>28}{got.height_change:>+9.2%}",
                      flush=True)


# ---- notes -------------------------------------------------------------------------------------

# Each note's text seen and hidden: tests/browser_support.py's NOTES_JS (a note is folded when a fold
# cuts some of its text; a shut claim's example is not laid out). And the claim examples' and the
# code's type sizes.
SIZES_JS = """
const px = el => el ? parseFloat(getComputedStyle(el).fontSize) : null;
return {example: px(document.querySelector('.rd-claim-code code')), label: px(document.querySelector('.rd-claim-head')),
        code: px(document.querySelector('.rd-k > div'))};
"""


def noted_pages(site: Path) -> list[str]:
    """The articles, and the source pages whose code view has notes beside it."""
    articles = sorted((site / "articles").glob("*.html"))
    sources = sorted(p for p in (site / "source").rglob("*.html") if "rd-code highlight rd-margin" in p.read_text())
    return [p.relative_to(site).as_posix() for p in articles + sources]


def measure_notes(site: Path, pages: list[str], size: Viewport) -> dict[str, float]:
    totals: dict[str, float] = dict.fromkeys(("notes", "folded", "claims", "shut", "empty", "chars", "hidden",
                                              "prose", "proseHidden", "cut", "examples", "clipped"), 0)
    with browser(size) as driver:
        for rel in pages:
            load(driver, site / rel)
            driver.execute_script("document.head.insertAdjacentHTML('beforeend',"
                                  "'<style>.rd-k { content-visibility: visible !important; }</style>')")
            driver.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            for key, value in driver.execute_script(SIZES_JS).items():
                totals[key] = totals.get(key) or value
            for note in driver.execute_script(NOTES_JS):
                for key, value in (("notes", 1), ("folded", note["cut"] > 0), ("claims", note["claim"]),
                                   ("shut", note["shut"]), ("empty", 0 < note["chars"] == note["hidden"]),
                                   *((k, note[k]) for k in ("chars", "hidden", "prose", "proseHidden"))):
                    totals[key] = totals.get(key, 0) + value
            totals["examples"] += driver.execute_script(_OPEN_EXAMPLES_JS)
            totals["clipped"] += len(driver.execute_script(CLIPPED_JS))
            totals["cut"] += len({note for note, _ in driver.execute_script(CUT_ROWS_JS)})
    return totals


_OPEN_EXAMPLES_JS = ("return [...document.querySelectorAll('.rd-mn .rd-claim:not(.rd-claim-shut) > .rd-claim-code > code')]"
                     ".filter(c => c.offsetParent).length")


def notes_part(sites: dict[str, Path], pages: list[str], sizes: list[Viewport]) -> None:
    print("\nnotes: beside their lines, every article and source page with notes: folded (<= 5%), showing nothing (0),"
          " text hidden (prose; with claims), claims shut, type px: example / its label / code; notes whose fold"
          " cuts a row of text (0), open examples clipped at their column's edge (0)")
    print(f"  {'viewport':>10}{'site':>8}{'notes':>7}{'folded':>14}{'nothing':>9}{'prose hidden':>14}"
          f"{'all hidden':>12}{'claims shut':>13}{'type px':>22}{'rows cut':>10}{'clipped':>10}")
    for size in sizes:
        for name, site in sites.items():
            t = measure_notes(site, pages or noted_pages(site), size)

            def share(part: str, whole: str) -> str:
                return f"{t[part] / t[whole]:.1%}" if t[whole] else "-"  # noqa: B023
            folded = f"{t['folded']:.0f} {share('folded', 'notes')}"
            shut = f"{t['shut']:.0f}/{t['claims']:.0f}"
            sizes_px = " / ".join(f"{t[k]:.1f}" if t[k] else "-" for k in ("example", "label", "code"))
            clipped = f"{t['clipped']:.0f}/{t['examples']:.0f}"
            _figure(name, f"notes folded at {size}", f"{t['folded']:.0f}/{t['notes']:.0f} {share('folded', 'notes')}",
                    "<= 5%")
            _figure(name, f"open examples clipped at {size}", clipped, "0")
            print(f"  {size!s:>10}{name:>8}{t['notes']:>7.0f}{folded:>14}{t['empty']:>9.0f}"
                  f"{share('proseHidden', 'prose'):>14}{share('hidden', 'chars'):>12}{shut:>13}{sizes_px:>22}"
                  f"{t['cut']:>10.0f}{clipped:>10}", flush=True)


# ---- search and weight: pages served over HTTP, bytes from Chrome's network log ---------------

_FIRST_RESULT_JS = """
window.__first = 0;
new MutationObserver((_, seen) => {
  const hit = document.querySelector('a.rd-sr, .rd-sr-offer, .md-search-result__link');
  if (hit && !window.__first) { window.__first = performance.now(); window.__href = hit.href; seen.disconnect(); }
}).observe(document.body, {childList: true, subtree: true});
"""


@dataclass(frozen=True)
class Fetched:
    url: str
    bytes: int
    at_ms: float
    """When the request was sent, from the page's navigation start."""


def fetched(driver) -> list[Fetched]:
    """Every response the page received since the last call, with its bytes on the wire."""
    import json

    sent: dict[str, tuple[str, float]] = {}
    out, start = [], None
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        params = msg.get("params", {})
        if msg["method"] == "Network.requestWillBeSent":
            start = params["timestamp"] if start is None else start
            sent[params["requestId"]] = (params["request"]["url"], (params["timestamp"] - start) * 1000)
        elif msg["method"] == "Network.loadingFinished" and params["requestId"] in sent:
            url, at = sent[params["requestId"]]
            out.append(Fetched(url, int(params.get("encodedDataLength", 0)), at))
    return out


@contextmanager
def served(site: Path) -> Iterator[str]:
    from tests.browser_support import serve_folder

    server = serve_folder(site)
    url = next(server)
    try:
        yield url
    finally:
        next(server, None)  # the server shuts down


def _search_related(url: str) -> bool:
    path = url.split("?")[0]
    return "/search/" in path or "search" in path.rsplit("/", 1)[-1] or "/workers/" in path


def measure_search(url: str, query: str) -> tuple[float | None, int, str]:
    """(ms from the load event to the first result, bytes search fetched, the first result's link)."""
    from selenium.webdriver.support.ui import WebDriverWait

    with browser(Viewport(1280, 800), logged=True) as driver:
        driver.get(f"{url}/index.html")
        WebDriverWait(driver, 120).until(
            lambda d: d.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd > 0"))
        loaded = driver.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd")
        driver.execute_script(_FIRST_RESULT_JS)
        driver.execute_script("(document.querySelector('.rd-search-open') || "
                              "document.querySelector('label.md-search__icon')).click()")
        box = WebDriverWait(driver, 30).until(lambda d: d.find_element(
            "css selector", "input.rd-search-input, input.md-search__input"))
        box.send_keys(query)
        try:
            WebDriverWait(driver, 60).until(lambda d: d.execute_script("return window.__first"))
        except Exception:  # no result: still the bytes
            pass
        time.sleep(0.5)
        first, href = driver.execute_script("return [window.__first, window.__href || '']")
        href = href or driver.execute_script("const o = document.querySelector('.rd-sr-offer');"
                                             "return o ? 'offers ' + o.textContent : ''")
        got = sum(f.bytes for f in fetched(driver) if _search_related(f.url))
    return (first - loaded if first else None), got, href.replace(url + "/", "")


def search_part(sites: dict[str, Path], pages: list[str], sizes: list[Viewport], queries=QUERIES) -> None:
    print("\nsearch: typed at the home page's load; ms to the first result (or offer), KB search fetched (<= 300),"
          " first result")
    for query in queries:
        for name, site in sites.items():
            with served(site) as url:
                ms, got, href = measure_search(url, query)
            print(f"  {query:<34}{name:>8}{(f'{ms:,.0f} ms' if ms is not None else 'none'):>10}"
                  f"{got / 1000:>10,.0f} KB  {href}", flush=True)


def first_visit(site: Path) -> list[Fetched]:
    from selenium.webdriver.support.ui import WebDriverWait

    with served(site) as url, browser(Viewport(1280, 800), logged=True) as driver:
        driver.get(f"{url}/index.html")
        WebDriverWait(driver, 120).until(
            lambda d: d.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd > 0"))
        time.sleep(2)  # what the page fetches after its load (a worker's index)
        # the site's own requests: a new profile's browser also loads its new-tab page's files
        return [f for f in fetched(driver) if f.url.startswith(url)]


_SETTLED_JS = """
const done = arguments[arguments.length - 1], start = performance.now();
(function settle() {  // a long view's rows come (or 5 s pass), then two frames paint what is near
  const view = document.querySelector('.rd-code[data-part]');
  if (view && !view.rdRows && performance.now() - start < 5000) { setTimeout(settle, 20); return; }
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
    let nodes = 0; const walk = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
    while (walk.nextNode()) nodes++;
    done({nodes: nodes, dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd});
  }, 200)));
})();
"""


@dataclass(frozen=True)
class PageLoad:
    """A page as a reader gets it at load, over HTTP in a fresh browser."""

    html: int
    """The HTML's bytes transferred."""
    data: int
    """The site's other bytes fetched by then: scripts, styles, the page's data."""
    nodes: int
    """The document's nodes, text included, once loaded (its long view's rows come, near chunks painted)."""
    dcl_ms: float


def load_page(url: str, rel: str) -> PageLoad:
    from selenium.webdriver.support.ui import WebDriverWait

    with browser(Viewport(1280, 800), logged=True) as driver:
        driver.get(f"{url}/{rel}")
        WebDriverWait(driver, 120).until(
            lambda d: d.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd > 0"))
        seen = driver.execute_async_script(_SETTLED_JS)
        got = [f for f in fetched(driver) if f.url.startswith(url)]
    page = f"{url}/{rel}"
    html = sum(f.bytes for f in got if f.url.split("#")[0] == page)
    return PageLoad(html, sum(f.bytes for f in got) - html, seen["nodes"], seen["dcl"])


def weight_part(sites: dict[str, Path], pages: list[str], sizes: list[Viewport], runs: int = 3) -> None:
    print("\nweight: the home page's first visit, every byte fetched over HTTP (<= 500 KB)")
    for name, site in sites.items():
        got = first_visit(site)
        biggest = sorted(got, key=lambda f: -f.bytes)[:3]
        total = sum(f.bytes for f in got) / 1000
        _figure(name, "home first visit", f"{total:,.0f} KB", "<= 500 KB")
        print(f"  {name:>8}{total:>10,.0f} KB in {len(got)} files; biggest: "
              + ", ".join(f"{f.url.rsplit('/', 1)[-1]} {f.bytes / 1000:,.0f} KB" for f in biggest), flush=True)
    heaviest = list(dict.fromkeys(p.relative_to(site).as_posix() for site in sites.values()
                                  for p in sorted(site.rglob("*.html"), key=lambda p: -p.stat().st_size)[:10]))
    which = "the pages named" if pages else "the 10 heaviest pages of each site"
    print(f"\nweight: {which}, loaded over HTTP: HTML KB transferred (<= 600), the site's other KB fetched by the"
          f" load, DOM nodes once loaded (<= 15,000) and DOMContentLoaded, median of {runs} cold loads (<= 1,000 ms)")
    worst: dict[str, dict[str, tuple[float, str]]] = {name: {} for name in sites}
    for rel in pages or heaviest:
        for name, site in sites.items():
            if not (site / rel).is_file():
                continue
            with served(site) as url:
                loads = [load_page(url, rel) for _ in range(runs)]
            dcl = statistics.median(x.dcl_ms for x in loads)
            first = loads[0]
            for key, value in (("html", first.html / 1000), ("nodes", first.nodes), ("dcl", dcl)):
                if value > worst[name].get(key, (-1.0, ""))[0]:
                    worst[name][key] = (value, rel)
            print(f"  {rel:<52}{name:>8}{first.html / 1000:>10,.0f} KB{first.data / 1000:>10,.0f} KB"
                  f"{first.nodes:>10,} nodes{dcl:>10,.0f} ms   load {os.getloadavg()[0]:.1f}", flush=True)
    for name, figures in worst.items():
        for key, label, unit, target in (("html", "heaviest page's HTML", " KB", "<= 600 KB"),
                                         ("nodes", "most DOM nodes once loaded", "", "<= 15,000"),
                                         ("dcl", "slowest DOMContentLoaded", " ms", "<= 1,000 ms")):
            if key in figures:
                value, rel = figures[key]
                _figure(name, label, f"{value:,.0f}{unit} ({rel})", target)
    print("\nweight: the scripts and stylesheets every page loads (the home page's own), bytes on disk;"
          " minified with a source map")
    for name, site in sites.items():
        js, css = page_assets(site / "index.html")
        mapped = all((site / f"{p}.map").is_file() for p in js + css if p.startswith("assets/bundle"))
        js_kb, css_kb = sum(_size(site, p) for p in js) / 1000, sum(_size(site, p) for p in css) / 1000
        _figure(name, "script every page loads", f"{js_kb:,.0f} KB in {len(js)} files", "minified, mapped")
        _figure(name, "CSS every page loads", f"{css_kb:,.0f} KB in {len(css)} files", "minified, mapped")
        print(f"  {name:>8}{js_kb:>10,.0f} KB of script in {len(js)} files"
              f"{css_kb:>10,.0f} KB of CSS in {len(css)} files; source maps:"
              f" {'yes' if mapped else 'no'}", flush=True)


# ---- the figures, gathered from the parts that ran --------------------------------------

FIGURES: dict[str, dict[str, str]] = {}
"""Figure -> site -> its value, in the order first met; `TARGETS` each figure's target."""
TARGETS: dict[str, str] = {}


def _figure(site: str, figure: str, value: str, target: str) -> None:
    FIGURES.setdefault(figure, {})[site] = value
    TARGETS[figure] = target


def print_figures(sites: dict[str, Path]) -> None:
    if not FIGURES:
        return
    print("\nissue 47: each figure, site by site, against its target")
    print(f"  {'figure':<36}{'target':<20}{'site':<8}value")
    for figure, values in FIGURES.items():
        for i, name in enumerate(sites):
            print(f"  {figure if not i else '':<36}{TARGETS[figure] if not i else '':<20}{name:<8}"
                  f"{values.get(name, '-')}", flush=True)


def page_assets(page: Path) -> tuple[list[str], list[str]]:
    """The site's own scripts and stylesheets a page links (paths from the site's root)."""
    text = page.read_text(encoding="utf-8")
    js = re.findall(r'<script[^>]*\bsrc="([^"]+)"', text)
    css = re.findall(r'<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"|<link[^>]*href="([^"]+)"[^>]*rel="stylesheet"', text)
    own = lambda ref: not re.match(r"[a-z]+:", ref)  # noqa: E731
    return ([r.split("?")[0] for r in js if own(r)],
            [r.split("?")[0] for pair in css for r in pair if r and own(r)])


def _size(site: Path, rel: str) -> int:
    path = site / rel
    return path.stat().st_size if path.is_file() else 0


# ---- names: the dotted jax names of the pinned Pallas files that link to their definition ----------

PALLAS = ("jax/_src/pallas/", "jax/experimental/pallas/")


def _page_links(page: Path) -> dict[int, list[tuple[int, int]]]:
    """A source page's links in its code: line -> [(start, end) columns of each link's text]."""
    import html
    import re

    out: dict[int, list[tuple[int, int]]] = {}
    text = page.read_text(encoding="utf-8")
    for n, body in re.findall(r'<div id="L(\d+)"[^>]*>(.*?)</div>(?=<div id="L|</div>)', text):
        spans, col = [], 0
        for m in re.finditer(r'<a [^>]*>(.*?)</a>|<[^>]+>|([^<]+)', body):
            if m.group(1) is not None:
                inner = html.unescape(re.sub(r"<[^>]+>", "", m.group(1)))
                spans.append((col, col + len(inner)))
                col += len(inner)
            elif m.group(2) is not None:
                col += len(html.unescape(m.group(2)))
        out[int(n)] = spans
    return out


@dataclass(frozen=True)
class Names:
    linked: int
    total: int
    outside: int
    """Dotted names headed by a jax module that resolve outside jax (jaxlib's MLIR, numpy)."""
    unknown: int
    """Those no definition anywhere answers (an attribute set at run time)."""
    missed: tuple[tuple[str, int], ...]


def measure_names(site: Path) -> Names:
    """The share of dotted jax names in the pinned Pallas files that the site links, each judged
    against the installed jax release (the pinned one: its Pallas files' text is the pages')."""
    import collections
    import importlib.metadata as md

    from reader.extract.index import index_from_sources
    from reader.extract.names import resolve_chain
    from reader.model import module_of

    dist = md.distribution("jax")
    sources = {str(f): Path(str(dist.locate_file(f))).read_text(encoding="utf-8")
               for f in dist.files or () if str(f).startswith("jax/") and str(f).endswith(".py")}
    oracle = index_from_sources(sources, "jax")
    linked = total = outside = unknown = 0
    missed: collections.Counter[str] = collections.Counter()
    for path in sorted(p for p in sources if p.startswith(PALLAS)):
        page = site / "source" / f"{path}.html"
        if not page.is_file():
            continue
        links = _page_links(page)
        module = module_of(path)
        fs = oracle.summaries[module]
        for chain in fs.chains:
            if chain.head != "global" or len(chain.parts) < 2:
                continue
            first = chain.parts[0]
            head = oracle.resolve_name(module, first.name, first.line if chain.at_module else None, fs)
            if head is None or head.kind not in ("module", "external") or head.module.split(".")[0] != "jax":
                continue
            parts = resolve_chain(oracle, fs, chain)
            if len(parts) != len(chain.parts):
                unknown += 1
                continue
            if not oracle.linkable(parts[-1].target):
                outside += 1
                continue
            total += 1
            last = chain.parts[-1]
            if any(a <= last.col < b for a, b in links.get(last.line, ())):
                linked += 1
            else:
                missed[".".join(p.name for p in chain.parts)] += 1
    return Names(linked, total, outside, unknown, tuple(missed.most_common(8)))


def names_part(sites: dict[str, Path], pages: list[str], sizes: list[Viewport]) -> None:
    print("\nnames: dotted jax names in the pinned Pallas files that link to their definition (>= 95%)")
    for name, site in sites.items():
        got = measure_names(site)
        print(f"  {name:>8}{got.linked:>8,} of {got.total:,} linked ({got.linked / max(got.total, 1):.1%});"
              f" {got.outside:,} more resolve outside jax (jaxlib, numpy), {got.unknown:,} to nothing"
              + (f"; most missed: {', '.join(f'{n} {c}' for n, c in got.missed[:5])}" if got.missed else ""),
              flush=True)


# ---- align: the side-by-side diff's rows ---------------------------------------------------------

ALIGN_PAGE = "diffs/jax/_src/pallas/mosaic/lowering.py.html"
_ALIGN_JS = """
const done = arguments[arguments.length - 1];
localStorage.setItem('reader.diffView', 'split');
const b = document.querySelector('.rd-diff-views button[data-view="split"]');
if (b) b.click();
requestAnimationFrame(() => requestAnimationFrame(() => {
  const tops = el => el.getBoundingClientRect();
  // this build: one grid, a row's two cells side by side
  const cells = Array.from(document.querySelectorAll('.rd-split .rd-sk > div'));
  let rows = 0, heads = 0, worst = 0;
  if (cells.length) {
    for (let i = 0; i + 1 < cells.length; i += 2) {
      const a = tops(cells[i]), c = tops(cells[i + 1]), off = Math.abs(a.top - c.top);
      worst = Math.max(worst, off); rows++;
      if (cells[i].classList.contains('rd-hunk')) heads = Math.max(heads, off);
    }
  } else {  // an older build: two columns, each its own view
    const side = s => Array.from(document.querySelectorAll('.rd-diff-' + s + ' .rd-k > div'));
    const old = side('old'), now = side('new');
    for (let i = 0; i < Math.min(old.length, now.length); i++) {
      const off = Math.abs(tops(old[i]).top - tops(now[i]).top);
      worst = Math.max(worst, off); rows++;
      if (old[i].classList.contains('rd-hunk')) heads = Math.max(heads, off);
    }
  }
  localStorage.removeItem('reader.diffView');
  done([rows, heads, worst]);
}));
"""


def align_part(sites: dict[str, Path], pages: list[str], sizes: list[Viewport]) -> None:
    print("\nalign: side by side, the worst offset between a row's two sides and a hunk head's (target < 1 px)")
    for rel in pages or [ALIGN_PAGE]:
        for size in sizes:
            for name, site in sites.items():
                if not (site / rel).is_file():
                    continue
                with browser(size) as driver:
                    load(driver, site / rel)
                    rows, heads, worst = driver.execute_async_script(_ALIGN_JS)
                print(f"  {rel:<52}{size!s:>10}{name:>8}{rows:>8,} rows   hunk heads {heads:>9,.1f} px"
                      f"   any row {worst:>9,.1f} px", flush=True)


# ---- corpus: what the pins' context costs --------------------------------------------------------

_DATA = ("cards", "uses", "code", "scopes", "lines")


def context_paths(project: Path) -> list[str]:
    """The pinned files of `project` that its pins' `context` covers (pins.lock's paths)."""
    from reader.pins import load_lock, load_pins

    pins = load_pins(project / "pins.toml")
    locks = load_lock(project / "pins.lock", pins)
    return sorted(p for name, lock in locks.items() for p in lock.files if pins[name].in_context(p))


def corpus_cost(site: Path, paths: list[str]) -> tuple[int, int, int, int]:
    """(pages, HTML bytes, data-script bytes, lines) of `paths`' pages in `site`."""
    pages = [site / "source" / f"{p}.html" for p in paths]
    found = [p for p in pages if p.is_file()]
    html_bytes = sum(p.stat().st_size for p in found)
    data = sum(f.stat().st_size for p in paths for kind in _DATA
               if (f := site / "assets" / kind / f"{p}.js").is_file())
    lines = sum(len(re.findall(r'<div id="L\d+"', p.read_text(encoding="utf-8"))) for p in found)
    return len(found), html_bytes, data, lines


def cold_build(project: Path, context: bool) -> tuple[float, float]:
    """(CPU seconds of the build and its children, wall seconds) of `reader build` on a copy of
    `project` with an empty cache, its pins' `context` kept or dropped."""
    import re
    import resource
    import shutil
    import subprocess

    with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
        copy = Path(tmp) / "project"
        subprocess.run(["git", "clone", "-q", str(project), str(copy)], check=True)
        for name in ("pins.toml", "pins.lock"):  # the working tree's, not only the committed ones
            shutil.copy(project / name, copy / name)
        if not context:
            text = (copy / "pins.toml").read_text()
            (copy / "pins.toml").write_text(re.sub(r"(?ms)^context = \[.*?^\]\n", "", text))
            lock = (copy / "pins.lock").read_text()
            keep = set(context_paths(project))
            (copy / "pins.lock").write_text("".join(line for line in lock.splitlines(keepends=True)
                                                    if not (line.startswith('"') and line.split('"')[1] in keep)))
        env = {**os.environ, "READER_CACHE": str(Path(tmp) / "cache"), "PYTHONPATH": str(ROOT)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "reader", "-C", str(copy), "build", "--quiet"], env=env, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def corpus_part(sites: dict[str, Path], pages: list[str], sizes: list[Viewport], cold: Path | None = None) -> None:
    paths = context_paths(ROOT)
    print(f"\ncorpus: the pins' context ({len(paths)} files): its pages and their bytes in each site")
    for name, site in sites.items():
        n, html_bytes, data, lines = corpus_cost(site, paths)
        total = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
        print(f"  {name:>8}{n:>6} pages, {lines:>9,} lines: HTML {html_bytes / 1e6:>6.1f} MB + data scripts"
              f" {data / 1e6:>5.1f} MB = {(html_bytes + data) / 1e6:>5.1f} MB of the site's {total / 1e6:,.1f} MB",
              flush=True)
    if cold is not None:
        print(f"  cold builds of {cold} on an empty cache (load {os.getloadavg()[0]:.1f}):")
        for context in (False, True):
            cpu, wall = cold_build(cold, context)
            print(f"    {'with' if context else 'without':>8} its context: {cpu:>7,.0f} s CPU, {wall:>7,.0f} s wall"
                  f"   load {os.getloadavg()[0]:.1f}", flush=True)


PARTS: dict[str, Callable[[dict[str, Path], list[str], list[Viewport]], None]] = {
    "layout": layout_part,
    "notes": notes_part,
    "search": search_part,
    "weight": weight_part,
    "names": names_part,
    "align": align_part,
    "corpus": corpus_part,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--before", type=Path, help="a second site to show side by side (e.g. main's)")
    parser.add_argument("--part", action="append", choices=sorted(PARTS), default=[],
                        help="a part to run (repeatable); default: all")
    parser.add_argument("--size", action="append", type=viewport, default=[],
                        help=f"a viewport WIDTHxHEIGHT (repeatable); default: {', '.join(SIZES)}")
    parser.add_argument("--cold", type=Path, help="corpus: also build this project cold with and without its context")
    parser.add_argument("--page", action="append", default=[],
                        help=f"a page relative to the site (repeatable); default: layout's {', '.join(PAGES)}, "
                             "weight's the 10 heaviest")
    args = parser.parse_args(argv)
    if CHROMIUM is None or CHROMEDRIVER is None:
        print("needs chromium and chromedriver on PATH", file=sys.stderr)
        return 2
    sites = {"after": args.site.resolve()}
    if args.before:
        sites = {"before": args.before.resolve(), **sites}
    for site in sites.values():
        missing = [rel for rel in args.page or PAGES if not (site / rel).is_file()]
        if missing:
            print(f"{site}: no {', '.join(missing)}; build the site first (reader build)", file=sys.stderr)
            return 2
    sizes = args.size or [viewport(s) for s in SIZES]
    for part in args.part or list(PARTS):
        if part == "corpus":
            corpus_part(sites, list(args.page), sizes, args.cold)
        elif part == "align":
            align_part(sites, list(args.page), sizes)
        else:
            PARTS[part](sites, list(args.page), sizes)  # a part's own pages when none are named
    print_figures(sites)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
