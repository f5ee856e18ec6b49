"""Hover cards' data (reader/render/code/cards.py): each definition's header, first lines, docstring
line, count of uses and notes, one script per source file; in a built small project every place a card
links to exists, and editing a note changes its file's card script."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reader.cache import blob_sha
from reader.extract.index import index_from_sources
from reader.extract.symbols import definitions_of
from reader.model import Head, SourceFile
from reader.packed import unpacked_call
from reader.render.code.annotated import source_page
from reader.render.code.cards import card_data, card_script, excerpt, runs
from reader.render.code.highlight import highlight
from reader.render.code.runs import class_code
from reader.render.common.docs import source_doc, source_resolver
from reader.render.common.prose import Prose
from tests.golden import SOURCES, golden_docs
from tests.small_project import build_small, fetch_and_build

HEADS = '''import functools


@functools.cache
def f(
    a: int,
    b: int = 2,
) -> int:
  # why
  """Adds.

  More.
  """
  c = a + b
  return c


def one(): return 1


class C:
  """A class."""
  x: int = 0
  """The x."""
  y = 1

  def m(self):
    pass
'''


def test_heads_give_each_definition_its_header_body_docstring_line_and_outline_signature():
    heads = {s.qualname: (s.line, h) for s, h in definitions_of(HEADS)}
    assert heads["f"] == (5, Head(9, 14, "Adds.", "(a, b)"))  # the line before the docstring
    assert heads["one"] == (18, Head(18, 18, "", "()"))  # a one-line body: its own line
    assert heads["C"] == (21, Head(21, 23, "A class.", ""))
    assert heads["C.x"] == (23, Head(23, 0, "The x.", "= 0", listed=False))  # an attribute's docstring
    assert heads["C.y"] == (25, Head(25, 0, "", "= 1", listed=False))
    assert heads["C.m"] == (27, Head(27, 28, "", "(self)"))


def test_a_card_skips_the_comments_after_a_header_and_the_docstring():
    index = index_from_sources({"m.py": HEADS})
    doc = source_doc(index, SourceFile("src", "m.py", blob_sha(HEADS.encode()), HEADS), "", {})
    data = card_data(doc, highlight(HEADS), lambda n: "")
    assert [row[0] for row in _def(data, "f")["c"]] == [4, 5, 6, 7, 8, 14, 15]
    assert [row[0] for row in _def(data, "one")["c"]] == [18]
    assert [row[0] for row in _def(data, "C.x")["c"]] == [23]


@pytest.fixture(scope="module")
def docs():
    return golden_docs(index_from_sources(SOURCES, pin="fixture"))


def _core(docs) -> dict:
    doc = docs["fixture/core.py"]
    return card_data(doc, highlight(doc.text), lambda n: f"<p>{n.body}</p>")


def _def(data: dict, qualname: str) -> dict:
    return next(d for d in data["defs"] if d["q"] == qualname)


def test_a_card_shows_the_header_and_the_body_after_the_docstring(docs):
    spec = _def(_core(docs), "BlockSpec")
    assert (spec["k"], spec["l"], spec["d"]) == ("class", 6, "A block of an array.")
    shown = [row[0] for row in spec["c"]]
    assert shown[:3] == [5, 6, 11]  # decorator and class line, then past the docstring (7-10)
    text = {row[0]: row[1] for row in spec["c"]}
    assert text[5] == "@dataclasses.dataclass(frozen=True)" and text[6] == "class BlockSpec:"
    classes = _core(docs)["classes"]
    # `class` a keyword (5 letters), a space, `BlockSpec` a class name (9), `:` punctuation (1)
    assert spec["c"][1][2] == "".join(f"{class_code(classes.index(c))}{n}"
                                       for c, n in (("k", 5), ("", 1), ("nc", 9), ("p", 1)))
    assert spec["m"] == 10 - len(shown)  # lines 5-14 that the card leaves out


def test_a_card_counts_uses_and_lists_the_notes_on_the_innermost_definition(docs):
    data = _core(docs)
    assert _def(data, "BlockMapping")["u"] == [2, 2]  # call.py:6, core.py:14 (their list: uses.py)
    assert "u" not in _def(data, "BlockSpec.block_shape")
    articles = data["articles"]
    notes = {q: [(articles[a][0], i) for a, i, _ in _def(data, q).get("n", [])]
             for q in ("BlockSpec", "BlockSpec.to_block_mapping", "BlockMapping")}
    assert notes == {"BlockSpec": [("articles/golden-article.html", "golden-blockspec")],
                     "BlockSpec.to_block_mapping": [("articles/other-article.html", "golden-mapping")],
                     "BlockMapping": []}


def test_runs_keep_the_text_and_merge_classes():
    line = highlight('x.y = "a\u202eb" < 2  # c\n').html()[0]
    got = runs(line)
    assert "".join(text for _, text in got) == 'x.y = "a\u2423b" < 2  # c'
    assert ("rd-hidden", "\u2423") in got and ("c1", "# c") in got
    assert all(c != "n" for c, _ in got)  # names in the plain colour


def test_an_excerpt_is_plain_text_cut_at_a_word():
    assert excerpt("<p>A <strong>frozen</strong> spec &amp; more.</p><p>Next.</p>") == \
        "A frozen spec & more. Next."
    long = excerpt("<p>" + "word " * 60 + "</p>")
    assert long.endswith("\u2026") and len(long) <= 121 and "wor\u2026" not in long


def test_the_source_page_brings_its_card_script_and_keeps_the_uses_ids(docs):
    prose = Prose(source_resolver(index_from_sources(SOURCES, pin="fixture"), docs),
                  {"golden-article": "G", "other-article": "A"}, {}, lambda: {})
    page = source_page(docs["fixture/core.py"], None, prose)
    (script,) = page.assets  # no line changes: no script of them
    assert script.src_uri == "assets/code/fixture/core.py.js"
    # the page's script, packed: its paint data, its scopes, its cards, its references lists
    paint, scopes, cards, uses = (unpacked_call(script.data) or b"").decode().splitlines(keepends=True)
    assert paint.startswith('readerCode.put("fixture/core.py",')
    assert scopes.startswith('readerScopes.add("fixture/core.py",')
    assert cards.startswith('readerCards.add("source/fixture/core.py.html",')
    assert uses.startswith('readerUses.add("source/fixture/core.py.html",')
    data = json.loads(cards[cards.index(",") + 1:cards.rindex(");")])
    assert [d["q"] for d in data["defs"]] == [d.symbol.qualname for d in docs["fixture/core.py"].definitions]
    assert 'id="uses-BlockMapping"' in page.html and "<details" not in page.html
    assert card_script(docs["fixture/core.py"], highlight(docs["fixture/core.py"].text),
                       lambda n: n.body).startswith(b'readerCards.add("source/fixture/core.py.html",')


def _cards(site: Path) -> dict[str, dict]:
    out = {}
    for path in (site / "assets/code").rglob("*.js"):  # its calls: paint, scopes, cards, uses
        text = (unpacked_call(path.read_bytes()) or b"").decode().splitlines(keepends=True)[2]
        m = re.fullmatch(r'readerCards\.add\(("[^"]+"),(.*)\);\n', text, re.S)
        assert m, path
        out[json.loads(m.group(1))] = json.loads(m.group(2))
    return out


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', page.read_text()))


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return build_small(tmp_path_factory.mktemp("cards"))


def test_every_place_a_card_links_to_exists_in_the_built_site(small):
    site = small.root / "site"
    cards = _cards(site)
    assert set(cards) == {"source/pkg/core.py.html", "source/pkg/call.py.html"}
    for page, data in cards.items():
        ids = _ids(site / page)
        assert {f"L{d['l']}" for d in data["defs"]} <= ids
        for d in data["defs"]:
            for a, note, _ in d.get("n", []):
                assert f"note-{note}" in _ids(site / data["articles"][a][0])
    spec = _def(cards["source/pkg/core.py.html"], "BlockSpec")
    assert spec["n"] == [[0, "tour-blockspec", "The spec."]]


def test_editing_a_note_rewrites_its_files_card_script(small, tmp_path):
    copy = small.copy(tmp_path)
    tour = copy.root / "annotations" / "tour.yaml"
    tour.write_text(tour.read_text().replace("body: The spec.", "body: The spec, frozen."))
    fetch_and_build(copy)
    spec = _def(_cards(copy.root / "site")["source/pkg/core.py.html"], "BlockSpec")
    assert spec["n"] == [[0, "tour-blockspec", "The spec, frozen."]]
