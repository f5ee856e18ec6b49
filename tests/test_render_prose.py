"""Placeholders in prose and notes: facts, source links, labs and pages, relative to each page."""

from __future__ import annotations

from reader.render.common.model import PageLink
from reader.render.common.prose import Prose, fact_text


def prose(**facts: object) -> Prose:
    def source(path: str, symbol: str) -> PageLink | None:
        if path != "pkg/core.py" or symbol not in ("", "BlockSpec"):
            return None
        return PageLink("source/pkg/core.py.md", "L7" if symbol else "")
    return Prose(source, {"pallas-call": "pallas_call"}, {"toy": "LAB · Toy"}, lambda: facts)


def test_links_are_relative_to_the_page_that_shows_them():
    p = prose()
    text = "[[pkg/core.py::BlockSpec]] and [[pkg/core.py|the file]]"
    on_article = p.html(text, "articles/x.md")
    on_source = p.html(text, "source/pkg/other.py.md")
    assert 'href="../source/pkg/core.py.html#L7"' in on_article and "<code>BlockSpec</code>" in on_article
    assert 'href="core.py.html#L7"' in on_source and 'href="core.py.html"' in on_source


def test_labs_pages_and_facts():
    p = prose(**{"tpu.count": 131, "fields": ["a", "b_c"]})
    out = p.html("[[lab:toy]], [[page:pallas-call|the entry point]], {{fact:tpu.count}} rules: "
                 "{{fact:fields}}", "articles/x.md")
    assert 'href="../labs/toy.html" rel="noopener noreferrer">LAB · Toy</a>' in out
    assert 'href="pallas-call.html" rel="noopener noreferrer">the entry point</a>' in out
    assert "131 rules: <code>a</code>, <code>b_c</code>" in out
    assert p.unresolved == []


def test_unknown_targets_stay_text_and_are_reported():
    p = prose()
    out = p.html("[[pkg/core.py::Nope]] [[page:later]] [[lab:gone]] {{fact:none}}", "articles/x.md")
    assert "<a " not in out and "<code>Nope</code>" in out and "<em>(not computed at these pins)</em>" in out
    assert sorted(p.unresolved) == ["fact none", "lab gone", "page later", "source pkg/core.py::Nope"]


def test_a_page_says_once_where_and_why_its_facts_were_not_computed():
    from reader.errors import Location
    from reader.extract.fact import Facts, Unknown
    from reader.render.recipe.world import _absent

    why = "cannot read function _get_scratch_types from the pinned source"
    facts = Facts((), (Unknown(("tokamax.sm90.**",), Location("tokamax/k_sm90.py", 12), why),))
    p = Prose(lambda _p, _s: None, facts=lambda: {"n": 3}, absent=lambda name: _absent(facts, name))
    texts = ["{{fact:tokamax.sm90.a}} and {{fact:other.count}}", "{{fact:n}}, {{fact:tokamax.sm90.b}}"]
    assert p.absences(texts) == [f"tokamax/k_sm90.py:12: {why}"]  # the fact no extractor names: none
    assert p.html(texts[0], "a.md").count("<em>(not computed at these pins)</em>") == 2
    assert p.absences(["{{fact:n}} only"]) == []


def test_facts_are_computed_once_and_only_when_cited():
    calls = []

    def facts():
        calls.append(1)
        return {"n": 3}

    p = Prose(lambda _p, _s: None, facts=facts)
    p.html("no facts here", "a.md")
    assert calls == []
    p.html("{{fact:n}} and {{fact:n}}", "a.md")
    p.html("{{fact:n}}", "a.md")
    assert calls == [1]


def test_fact_text_escapes_markdown():
    assert fact_text("a_b*c") == r"a\_b\*c"
    assert fact_text(["x`y"]) == "`` x`y ``"
