"""The HTML parsers reader reads its built pages with, against the regular expressions they replaced.

    python benchmarks/htmlparse.py SITE [--rounds N]

On every HTML file of a built site (`site/` after `reader build`), side by side, each round in
turn: the link check whole (`check_links`, no cache, one process: lexbor's scan against the
regular expressions' scan, kept here as the peer), the table of contents (`toc_tokens`) and the
edition switcher's places in a page (`Switcher.mark`, for the current and an older edition). For
each: CPU seconds (user + sys) of both, their ratio, and the files on which their results differ.
The regular expressions took only an element's first `id`/`name` (material's palette inputs carry
both), so the parser's ids may be a superset: counted apart, not as a difference.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reader import linkcheck  # noqa: E402
from reader.editions.listing import Edition  # noqa: E402
from reader.editions.switcher import Switcher  # noqa: E402
from reader.render.common.toc import toc_tokens  # noqa: E402
from reader.workers import Workers  # noqa: E402

# The peers: the regular expressions as reader/linkcheck.py, render/common/toc.py and
# editions/switcher.py had them before the parsers.
_ID_RE = re.compile(r"""<[A-Za-z][^<>]*?\s(?:id|name)=["']([^"']+)["']""")
_HREF_RE = re.compile(r"""<[A-Za-z][^<>]*?\s(?:href|src)=["']([^"']*)["']""")
_PART_RE = re.compile(r"""<[A-Za-z][^<>]*?\sdata-part=["']([^"']+)["']""")
_HEADING = re.compile(r"<h([23])\b[^>]*?\bid=\"([^\"]+)\"[^>]*>(.*?)</h\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
_TOPIC = re.compile(r'<div class="md-header__topic">\s*<span class="md-ellipsis">.*?</span>', re.S)


def regex_scan(text: str) -> linkcheck.PageLinks:
    hrefs: dict[str, None] = {}
    fragments: dict[str, None] = {}
    for raw in _HREF_RE.findall(text):
        href = html.unescape(raw) if "&" in raw else raw
        if href.startswith("#"):
            fragments[href] = None
        elif href and linkcheck._internal(href):
            hrefs[href] = None
    parts = tuple(dict.fromkeys(html.unescape(p) for p in _PART_RE.findall(text)))
    return linkcheck.PageLinks(frozenset(_ID_RE.findall(text)), tuple(hrefs), tuple(fragments), parts)


def regex_toc(page_html: str) -> list[Any]:
    out: list[dict[str, Any]] = []
    for level, ident, inner in _HEADING.findall(page_html):
        name = html.unescape(_TAG.sub("", inner)).strip()
        token = {"level": int(level), "id": html.unescape(ident), "name": html.escape(name), "children": []}
        if level == "3" and out:
            out[-1]["children"].append(token)
        else:
            out.append(token)
    return out


def regex_mark(switcher: Switcher, output: str, url: str) -> str:
    output = _TOPIC.sub(lambda m: m.group(0) + switcher.selector(url), output, count=1)
    banner = switcher.banner(url)
    return output.replace('<header class="md-header', banner + '<header class="md-header', 1) \
        if banner else output


def cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    before = os.times()
    out = fn()
    after = os.times()
    return after.user - before.user + after.system - before.system, out


def check_links_with(scan: Callable[[str], linkcheck.PageLinks], site: Path) -> list:
    saved = linkcheck.scan
    linkcheck.scan = scan  # _scan_bytes and the parts read through it
    try:
        return linkcheck.check_links(site, None, Workers(1))
    finally:
        linkcheck.scan = saved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("site", type=Path)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    files = sorted(args.site.rglob("*.html"))
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    urls = [p.relative_to(args.site).as_posix() for p in files]
    print(f"{args.site}: {len(files)} HTML files, {sum(map(len, texts)) / 1e6:.0f} M characters; "
          f"load {os.getloadavg()[0]:.1f}")
    now = Edition("0.12.0.1", "jax 0.12.0.1", "")
    older = Edition("0.10.2", "jax 0.10.2", "0.10.2/", "rev")
    rows: list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[Any, Any], int]]] = [
        ("link check (whole)", lambda: check_links_with(linkcheck.scan, args.site),
         lambda: check_links_with(regex_scan, args.site), lambda a, b: int(a != b)),
        ("  its scan alone", lambda: [linkcheck.scan(t) for t in texts],
         lambda: [regex_scan(t) for t in texts], _scan_differences),
        ("toc", lambda: [toc_tokens(t) for t in texts], lambda: [regex_toc(t) for t in texts],
         lambda a, b: sum(x != y for x, y in zip(a, b, strict=True))),
    ]
    for edition in (now, older):
        switcher = Switcher(edition, (now, older), {})
        rows.append((f"switcher ({edition.version})",
                     lambda s=switcher: [s.mark(t, u) for t, u in zip(texts, urls, strict=True)],
                     lambda s=switcher: [regex_mark(s, t, u) for t, u in zip(texts, urls, strict=True)],
                     lambda a, b: sum(x != y for x, y in zip(a, b, strict=True))))
    print(f"{'':22} {'parser s':>9} {'regex s':>8} {'ratio':>6}  files differing")
    for name, parser, peer, differ in rows:
        times: list[tuple[float, float]] = []
        for _ in range(args.rounds):
            a_time, a = cpu(parser)
            b_time, b = cpu(peer)
            times.append((a_time, b_time))
        a_time = min(t[0] for t in times)
        b_time = min(t[1] for t in times)
        print(f"{name:22} {a_time:9.2f} {b_time:8.2f} {a_time / b_time:6.2f}  {differ(a, b)}")
    print(f"(CPU seconds, best of {args.rounds}; load {os.getloadavg()[0]:.1f} at the end, "
          f"{time.strftime('%H:%M')})")
    return 0


def _scan_differences(a: list[linkcheck.PageLinks], b: list[linkcheck.PageLinks]) -> str:
    differ = more_ids = 0
    for x, y in zip(a, b, strict=True):
        if (x.hrefs, x.fragments, x.parts) != (y.hrefs, y.fragments, y.parts) or not y.ids <= x.ids:
            differ += 1
        elif x.ids != y.ids:
            more_ids += 1
    return f"{differ} (the parser finds more ids on {more_ids})"


if __name__ == "__main__":
    sys.exit(main())
