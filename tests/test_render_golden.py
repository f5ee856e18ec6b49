"""The rendered pages of a small fixture equal the golden files byte for byte (`python -m tests.golden`)."""

from __future__ import annotations

import re

import pytest

from tests.golden import GOLDEN, render_fixture


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return render_fixture()


def test_golden_files_match_byte_for_byte(rendered):
    assert sorted(rendered) == sorted(p.name for p in GOLDEN.iterdir())
    for name, text in rendered.items():
        golden = (GOLDEN / name).read_text(encoding="utf-8")
        assert text == golden, f"{name} differs from tests/golden; rerun `python -m tests.golden` and review"


def test_every_line_has_a_stable_anchor(rendered):
    ids = re.findall(r'<div class="rd-l" id="(L\d+)">', rendered["core.html"])
    assert ids == [f"L{n}" for n in range(1, 25)]


def test_symbol_anchors_sit_on_their_definition_lines(rendered):
    page = rendered["core.html"]
    assert re.search(r'id="L6">.*?<span class="rd-sym" id="BlockSpec"></span>', page)
    assert re.search(r'id="L13">.*?<span class="rd-sym" id="BlockSpec.to_block_mapping"></span>', page)


def test_identifiers_link_to_their_definition_line_on_its_page(rendered):
    page = rendered["call.html"]
    assert '<a href="core.py.html#L6" title="fixture.core.BlockSpec">BlockSpec</a>' in page
    assert '<a href="core.py.html#L17" title="fixture.core.BlockMapping">BlockMapping</a>' in page


def test_definitions_list_where_they_are_used(rendered):
    page = rendered["core.html"]
    entry = page[page.index('id="uses-BlockMapping"'):page.index('id="uses-BlockMapping.__init__"')]
    assert '<a href="call.py.html#L6">6</a>' in entry and '<a href="#L14">14</a>' in entry


def test_multiline_docstring_keeps_its_colour_on_every_line(rendered):
    page = rendered["core.html"]
    for n in (7, 9, 10):
        line = re.search(rf'id="L{n}">(.*?)</div>', page).group(1)
        assert '<span class="sd">' in line, line


def test_notes_sit_beside_their_lines_and_link_back(rendered):
    page = rendered["core.html"]
    block = re.search(r'<div class="rd-block rd-noted">(.*?)</aside></div>', page, re.S).group(1)
    assert 'id="L5"' in block and 'id="L11"' in block and 'id="L12"' not in block
    assert 'href="../../articles/golden-article.html#note-golden-blockspec"' in block
    assert "0000000000000000000000000000000000000000/fixture/core.py#L5-L11" in block


def test_hidden_characters_are_visible_and_not_in_the_page(rendered):
    page = rendered["core.html"]
    assert "\u202e" not in page and "\u2066" not in page
    assert 'title="U+202E RIGHT-TO-LEFT OVERRIDE"' in page
    assert "Invisible or bidirectional control characters" in page


def test_search_indexes_names_not_code(rendered):
    md = rendered["core.md"]
    assert "<code>BlockSpec</code>" in md and "BlockMapping(self, grid)" not in md
    assert "<!-- reader:page-body -->" in md


def test_article_shows_its_symbols_with_notes_beside_and_gaps_linked(rendered):
    page = rendered["golden-article.html"]
    ids = re.findall(r'<div class="rd-l" id="([\w-]+)">', page)
    assert ids == [f"L{n}" for n in range(5, 15)] + ["call-L5", "call-L6"]
    assert '<a href="../source/fixture/core.py.html#L1">lines 1–4 not shown</a>' in page
    note = re.search(r'<div class="rd-note rd-status-ok" id="note-golden-blockspec">(.*?)</aside>',
                     page, re.S).group(1)
    assert "#L5-L11" in note and 'href="#L5"' in note
    assert '<a href="../source/fixture/core.py.html#L13" rel="noopener noreferrer">' in note


def test_article_notes_link_placeholders_and_stay_inert(rendered):
    page = rendered["golden-article.html"] + rendered["golden-article.md"]
    assert "<script" not in page and "onerror=alert" not in page.replace("&lt;img src=x onerror=", "")
    assert 'href="../labs/first_kernels.html"' in page
    assert '<a href="other-article.html" rel="noopener noreferrer">Another article</a>' in page
    assert '<a href="../source/fixture/call.py.html#L5" rel="noopener noreferrer">this function</a>' in page


def test_article_prose_is_indexed_and_code_is_not(rendered):
    md = rendered["golden-article.md"]
    intro, _, outro = md.partition("<!-- reader:page-body -->")
    assert "Because <em>tiles</em>" in intro and 'id="rd-s-why-blocks"' in intro
    assert "First kernels" in outro and 'class="rd-l"' not in md


def test_notes_from_an_article_appear_on_the_source_page_with_a_link_back(rendered):
    page = rendered["call.html"]
    assert 'href="../../articles/golden-article.html#note-golden-call"' in page
    assert 'href="../../articles/other-article.html#note-' not in page
