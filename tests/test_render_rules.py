"""The lowering-rules matrix: primitives by backend tables, cells linking to rule lines."""

from __future__ import annotations

import re

from reader.extract.ruletable import PrimRef, RuleEntry, RuleRef, RuleTable
from reader.render.common.model import PageLink
from reader.render.rules.page import rules_page


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


def _history():
    from reader.extract.rulehistory import ReleaseRead, history_of

    old = [RuleTable("tpu", "TC", (entry("tpu", "TC", "load", 10), entry("tpu", "TC", "cos", 50))),
           RuleTable("triton", "", (entry("triton", "", "load", 30, "pkg/triton.py"),))]
    mid = [RuleTable("tpu", "TC", (entry("tpu", "TC", "load", 10),))]
    return history_of([(ReleaseRead("jax==1.0", "a" * 40), old),
                       (ReleaseRead("jax==1.5", "", "cannot read this update", "pkg/triton.py", 7), None),
                       (ReleaseRead("jax==2.0", "b" * 40), mid),
                       (ReleaseRead("jax==3.0", "c" * 40), TABLES)])


def _messages():
    from reader.extract.unimplemented import Message

    return {"tpu": Message("tpu", (("text", "Unimplemented primitive in Pallas TPU lowering for "),
                                   ("expr", "ctx.kernel_type"), ("text", ": "),
                                   ("expr", "eqn.primitive.name"), ("text", ". Please file an issue")),
                           "pkg/lowering.py", 99),
            "triton": Message("triton", (("text", "Unimplemented primitive in Pallas Triton lowering: "),
                                         ("expr", "eqn.primitive.name"), ("text", ". Please file")),
                              "pkg/triton.py", 42)}


def _row(html: str, prim: str) -> str:
    return re.search(rf'<tr id="p-pkg-primitives-{prim}-p">(.*?)</tr>', html, re.S).group(1)


def test_history_gives_each_cell_its_since_and_each_row_its_releases():
    page = rules_page(TABLES, lambda m, v: None, _history(), _messages())
    load, swap = _row(page.html, "load"), _row(page.html, "swap")
    # load: TC in every release read (since the oldest: "≤1.0"); Triton in 1.0, not in 2.0, back at 3.0
    assert re.findall(r'<span class="rd-since">([^<]*)</span>', load) == ["≤1.0", "3.0"]
    assert "<dt title=\"Triton, on a GPU\">Triton</dt><dd>1.0, 3.0</dd>" in load
    assert "<dt title=\"the TensorCore\">TPU TC</dt><dd>1.0–3.0</dd>" in load
    assert re.findall(r'<span class="rd-since">([^<]*)</span>', swap) == ["3.0"]
    # cos: only 1.0 registered it; its row stays, marked and not counted at the pins
    cos = _row(page.html, "cos")
    assert "✓" not in cos and 'title="no rule at the pins; registered in jax 1.0"' in cos
    assert "3 primitives have a lowering rule in at least one backend" in page.html
    assert "among jax 1.0, 2.0, 3.0" in page.html
    assert "<code>jax==1.5</code>: <code>pkg/triton.py:7</code>: cannot read this update" in page.html


def test_each_row_is_a_search_entry_holding_the_errors_for_its_primitive():
    page = rules_page(TABLES, lambda m, v: None, _history(), _messages())
    entries = {e.fragment: e for e in page.search}
    assert set(entries) == {f"p-pkg-primitives-{p}-p" for p in ("cos", "dot", "load", "swap")}
    load = entries["p-pkg-primitives-load-p"]
    assert re.search(r'<tr id="p-pkg-primitives-load-p">', page.html)  # the entry's anchor is the row
    assert "Unimplemented primitive in Pallas TPU lowering for tc: load" in load.text
    assert "Unimplemented primitive in Pallas Triton lowering: load." in load.text
    assert "Lowered by TPU TC in jax 1.0–3.0; Triton in jax 1.0, 3.0" in load.text
    # the intro names each backend's error as the pinned source words it, linked to its line
    assert ("<code>Unimplemented primitive in Pallas TPU lowering for tc: PRIMITIVE</code> "
            '(<a href="source/pkg/lowering.py.html#L99">pkg/lowering.py:99</a>)') in page.html
    # without a history, the entries say where the pins lower it
    plain = {e.fragment: e for e in rules_page(TABLES, lambda m, v: None, None, _messages()).search}
    assert "Lowered at the pins by TPU TC, Triton." in plain["p-pkg-primitives-load-p"].text


def test_a_cell_lands_on_the_decorators_and_says_when_another_file_registers_the_rule():
    swap = RuleEntry("tpu", "TC", PrimRef("pkg.primitives", "swap_p", "swap", True),
                     RuleRef("_swap_rule", "function", "pkg.lowering", "pkg/lowering.py", "_swap_rule", 27, 25),
                     "pkg/primitives.py", 90, "call")
    page = rules_page([RuleTable("tpu", "TC", (entry("tpu", "TC", "load", 10), swap))], lambda m, v: None)
    row = re.search(r'<tr id="p-pkg-primitives-swap-p">(.*?)</tr>', page.html, re.S).group(1)
    assert 'href="source/pkg/lowering.py.html#L25-L27"' in row and ">✓†</a>" in row
    legend = re.search(r'<dl class="rd-legend">(.*?)</dl>', page.html, re.S).group(1)
    assert "<dt>TC</dt><dd>TPU: the TensorCore</dd>" in legend
    assert "<dt>✓†</dt><dd>registered in another file than the rule's own: <code>pkg/primitives.py</code>" in legend
    load = re.search(r'<tr id="p-pkg-primitives-load-p">(.*?)</tr>', page.html, re.S).group(1)
    assert "†" not in load
