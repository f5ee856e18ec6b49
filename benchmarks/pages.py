"""Page weight: a built site's biggest source page and an article, in headless Chromium.

    python benchmarks/pages.py SITE [--before SITE] [--runs N] [--page REL ...]

For each page (by default the biggest page under source/ and articles/pallas-call.html) and each
site (the one given, and `--before`, e.g. a build of main, side by side) this prints the HTML's
bytes, the number of elements and of all nodes in the loaded document, and the median over
`--runs` cold loads (the sites' loads alternating; a fresh Chromium profile each, the flags of
tests/browser_support.py, the page opened from file://) of DOMContentLoaded and load, from the
Navigation Timing API; and
whether the load fetched the search index (material's search worker). Nothing here asserts:
targets (issue 15: at most 0.6 MB of HTML, 15,000 elements, DOMContentLoaded 1 s) are printed
beside the figures. Run it with the machine as quiet as you can: the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.browser_support import CHROMEDRIVER, CHROMIUM, FLAGS  # noqa: E402

ARTICLE = "articles/pallas-call.html"
TARGETS = {"bytes": 600_000, "elements": 15_000, "dcl_ms": 1000.0}
_MEASURE = """
const nav = performance.getEntriesByType('navigation')[0];
let nodes = 0; const walk = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
while (walk.nextNode()) nodes++;
return {dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
        elements: document.getElementsByTagName('*').length, nodes: nodes};
"""


@dataclass(frozen=True)
class Load:
    dcl_ms: float
    load_ms: float
    elements: int
    nodes: int
    search_index: bool
    """Whether the page's load requested search/search_index.* (any frame)."""


def biggest_source_page(site: Path) -> str:
    pages = sorted((p.stat().st_size, p) for p in (site / "source").rglob("*.html"))
    return pages[-1][1].relative_to(site).as_posix()


def load_once(page: Path) -> Load:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    with tempfile.TemporaryDirectory(prefix="pages-bench-") as profile:
        options = webdriver.ChromeOptions()
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument("--window-size=1400,1000")
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        options.binary_location = CHROMIUM or ""
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        try:
            driver.set_page_load_timeout(120)
            driver.get(page.as_uri())
            WebDriverWait(driver, 120).until(
                lambda d: d.execute_script("return performance.getEntriesByType('navigation')[0]"
                                           ".loadEventEnd > 0"))
            seen = driver.execute_script(_MEASURE)
            urls = [json.loads(e["message"])["message"].get("params", {}).get("request", {}).get("url", "")
                    for e in driver.get_log("performance")]
        finally:
            driver.quit()
    return Load(seen["dcl"], seen["load"], seen["elements"], seen["nodes"],
                any("search_index" in u for u in urls))


def measure(sites: dict[str, Path], rel: str, runs: int) -> dict[str, dict[str, float | int | bool]]:
    """Each site's figures for page `rel`; the sites' loads alternate, so that both see the same
    machine load."""
    loads: dict[str, list[Load]] = {name: [] for name in sites}
    for _ in range(runs):
        for name, site in sites.items():
            loads[name].append(load_once(site / rel))
    return {name: {"bytes": (sites[name] / rel).stat().st_size, "elements": got[0].elements,
                   "nodes": got[0].nodes, "dcl_ms": statistics.median(x.dcl_ms for x in got),
                   "load_ms": statistics.median(x.load_ms for x in got),
                   "search_index": any(x.search_index for x in got)}
            for name, got in loads.items()}


def _fmt(value: float | int | bool) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:,.0f}"


def report(rel: str, rows: dict[str, dict[str, float | int | bool]]) -> None:
    names = list(rows)
    print(f"\n{rel}")
    print(f"  {'':<18}" + "".join(f"{n:>16}" for n in names) + f"{'target':>12}")
    for key in ("bytes", "elements", "nodes", "dcl_ms", "load_ms", "search_index"):
        target = f"<= {TARGETS[key]:,.0f}" if key in TARGETS else ""
        print(f"  {key:<18}" + "".join(f"{_fmt(rows[n][key]):>16}" for n in names) + f"{target:>12}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--before", type=Path, help="a second site to show side by side (e.g. main's)")
    parser.add_argument("--runs", type=int, default=5, help="cold loads per page and site (median)")
    parser.add_argument("--page", action="append", default=[],
                        help="a page relative to the site (repeatable); default: the biggest source "
                             f"page and {ARTICLE}")
    args = parser.parse_args(argv)
    if CHROMIUM is None or CHROMEDRIVER is None:
        print("needs chromium and chromedriver on PATH", file=sys.stderr)
        return 2
    sites = {"after": args.site.resolve()}
    if args.before:
        sites = {"before": args.before.resolve(), **sites}
    pages = args.page or [biggest_source_page(sites["after"]), ARTICLE]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.runs} cold load(s) each;"
          " times in ms from navigation start")
    for rel in pages:
        report(rel, measure(sites, rel, args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
