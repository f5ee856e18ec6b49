"""The rendered pages of a small fixture equal the golden files byte for byte (`python -m tests.golden`)."""

from __future__ import annotations

import html
import json
import re

import pytest

from reader.render.code.runs import decode
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
    ids = re.findall(r'<div id="(L\d+)"[ >]', rendered["core.html"])
    assert ids == [f"L{n}" for n in range(1, 25)]


def test_symbol_anchors_sit_on_their_definition_lines(rendered):
    page = rendered["core.html"]
    assert re.search(r'id="L6"[^>]*><span class="rd-sym" id="BlockSpec"></span>', page)
    assert re.search(r'id="L13"[^>]*><span class="rd-sym" id="BlockSpec.to_block_mapping"></span>', page)


def test_identifiers_link_to_their_definition_line_on_its_page(rendered):
    page = rendered["call.html"]
    assert '<a href="core.py.html#L6">BlockSpec</a>' in page
    assert '<a href="core.py.html#L17">BlockMapping</a>' in page
    assert "data-t=" not in page and "data-h=" not in page  # a source page's are in its paint script
    titles = _paint(rendered["call.code.js"])["t"]  # codeview.js gives the links their titles back
    assert titles["core.py.html#L6"] == "fixture.core.BlockSpec"
    assert titles["core.py.html#L17"] == "fixture.core.BlockMapping"


def test_definitions_list_counts_their_uses_the_cards_count_them_and_the_references_list_them(rendered):
    page = rendered["core.html"]
    entry = page[page.index('id="uses-BlockMapping"'):page.index('id="uses-BlockMapping.__init__"')]
    assert '<a href="#L17">' in entry
    assert '<a class="rd-uses" href="#uses-BlockMapping" aria-expanded="false">2 uses in 2 files</a>' in entry
    _, _, cards, uses = rendered["core.code.js"].splitlines()  # the page script's calls
    assert cards.startswith("readerCards.add(") and uses.startswith("readerUses.add(")
    assert '"q":"BlockMapping","k":"class","l":17,' in cards and '"u":[2,2]' in cards
    assert '"files":["fixture/call.py","fixture/core.py"],' in uses
    assert ('"BlockMapping":{"l":17,"d":"class BlockMapping:","u":[[1,14,"return BlockMapping(self, grid)"],'
            '[0,6,"return pallas_core.BlockMapping(spec, (1,))"]]}') in uses


def test_multiline_docstring_keeps_its_colour_on_every_line(rendered):
    page = rendered["core.html"]
    for n in (7, 9, 10):
        assert _line_classes(page, rendered["core.code.js"], n) == ["sd"], n


def _paint(script: str) -> dict:
    """A source page's paint script's data: `readerCode.put(key, {c, t, h})` (then its scopes)."""
    m = re.match(r'readerCode\.put\("[^"]*",(.*?)\);\nreaderScopes\.add\(', script, re.S)
    return json.loads(m.group(1))


def _line_classes(page: str, script: str, n: int) -> list[str]:
    """The token classes (codeview.js's runs) of line `n` with text other than blanks."""
    data = _paint(script)
    sizes = re.findall(r'class="rd-k" style="--n:(\d+)"><div id="L(\d+)"', page)
    for (size, first), runs in zip(sizes, data["h"], strict=True):
        if int(first) <= n < int(first) + int(size):
            line = runs.split(" ")[n - int(first)]
            text = re.search(rf'<div id="L{n}"[^>]*>(.*?)</div>', page).group(1)
            out, col = [], 0
            for index, length in decode(line):
                piece = html.unescape(re.sub(r"<[^>]*>", "", text))[col:col + length]
                col += length
                if piece.strip():
                    out.append(data["c"][index])
            return sorted(set(out))
    raise AssertionError(f"no line {n}")


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


def test_search_indexes_each_definition_at_its_line_not_the_code(rendered):
    md = rendered["core.md"]  # nothing shows above the code: the page's own entry is its summary
    assert "Defines" not in md and "rd-indexed" not in md and "<!-- reader:page-body -->" in md
    entries = {e["fragment"]: e for e in json.loads(rendered["core.search.json"])}
    assert entries["L6"]["title"] == "BlockSpec" and "A block of an array." in entries["L6"]["text"]
    assert entries[""]["text"].startswith("<p>A tiny module for the golden page.</p>")
    assert "BlockMapping(self, grid)" not in rendered["core.search.json"]
    notes = json.loads(rendered["golden-article.search.json"])
    assert [e["fragment"] for e in notes] == ["note-golden-blockspec", "note-golden-call"]
    assert "<script" not in rendered["golden-article.search.json"]


def test_article_shows_its_symbols_with_notes_beside_and_gaps_linked(rendered):
    page = rendered["golden-article.html"]
    ids = re.findall(r'<div id="((?:call-)?L\d+)"[ >]', page)
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
    page = rendered["golden-article.html"]
    indexed = '<div class="rd-indexed" markdown="0">'
    intro = page.split("\n</div>\n\n", 1)[0]
    outro = page[page.rindex(indexed):]
    assert intro.startswith(indexed) and "Because <em>tiles</em>" in intro and 'id="rd-s-why-blocks"' in intro
    assert "First kernels" in outro and 'class="rd-k"' not in intro + outro
    assert "reader:page-body" in rendered["golden-article.md"] and "tiles" not in rendered["golden-article.md"]


def test_notes_from_an_article_appear_on_the_source_page_with_a_link_back(rendered):
    page = rendered["call.html"]
    assert 'href="../../articles/golden-article.html#note-golden-call"' in page
    assert 'href="../../articles/other-article.html#note-' not in page
