"""The lowering-rules matrix: primitives by backend tables, cells linking to rule lines."""

from __future__ import annotations

import re

from reader.extract.ruletable import PrimRef, RuleEntry, RuleRef, RuleTable
from reader.render.model import PageLink
from reader.render.rules import rules_page


def entry(backend: str, key: str, prim: str, rule_line: int, path: str = "pkg/lowering.py") -> RuleEntry:
    p = PrimRef("pkg.primitives", f"{prim}_p", prim, True)
    r = RuleRef(f"_{prim}_rule", "function", "pkg.lowering", path, f"_{prim}_rule", rule_line, rule_line)
    return RuleEntry(backend, key, p, r, path, rule_line - 1, "decorator")


TABLES = [
    RuleTable("tpu", "TC", (entry("tpu", "TC", "load", 10), entry("tpu", "TC", "swap", 20))),
    RuleTable("triton", "", (entry("triton", "", "load", 30, "pkg/triton.py"),)),
    RuleTable("mosaic_gpu", "Lane/Warpgroup", (entry("mosaic_gpu", "Lane/Warpgroup", "dot", 40),)),
]


def test_matrix_rows_columns_counts_and_links():
    page = rules_page(TABLES, lambda m, v: PageLink("source/pkg/primitives.py.md", "L3", f"{m}.{v}"))
    html = page.html
    assert re.findall(r"<th title=\"[^\"]*\">([^<]*)<br>", html) == ["TC", "Triton", "Lane/WG"]
    assert re.findall(r'<span class="rd-count">(\d+)</span></th>', html) == ["2", "1", "1"]
    rows = re.findall(r"<tr id=\"p-[\w-]+\"><th>.*?<code>(\w+)</code>", html)
    assert rows == ["dot", "load", "swap"]
    load = re.search(r'<tr id="p-pkg-primitives-load-p">(.*?)</tr>', html, re.S).group(1)
    assert load.count("✓") == 2
    assert 'href="source/pkg/lowering.py.html#L10"' in load and 'href="source/pkg/triton.py.html#L30"' in load
    assert 'href="source/pkg/primitives.py.html#L3"' in load
    assert "3 primitives have a lowering rule in at least one backend;\n2 of them in only one" in html
    assert "TPU TC: 2, Triton: 1, Mosaic GPU Lane/WG: 1" in page.html
