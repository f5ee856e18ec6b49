"""The references lists' data (reader/render/uses.py): each definition's uses grouped by file with
their lines of code, its own file first, the labs last; the notes on it and those linking it; one
script per source file whose every link reaches a line or a note of the built site."""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from reader.extract.index import index_from_sources
from reader.packed import unpacked_call
from reader.render.code.uses import CODE_CHARS, citations, code_line, uses_data
from reader.render.common.model import UseView
from tests.golden import NOTES, SOURCES, golden_docs
from tests.small_project import build_small


@pytest.fixture(scope="module")
def docs():
    return golden_docs(index_from_sources(SOURCES, pin="fixture"))


def _line(path: str, n: int) -> str:
    return SOURCES[path].splitlines()[n - 1]


def _data(doc, cited=()) -> dict:
    return uses_data(doc, _line, cited, lambda n: n.body[:20])


def test_uses_come_by_file_with_their_code_the_defining_file_first_and_the_labs_last(docs):
    core = docs["fixture/core.py"]
    lab = UseView("kernels/k.py", 3, "labs/k.md", "    spec = core.BlockMapping(x, y)")
    mapping = next(d for d in core.definitions if d.symbol.qualname == "BlockMapping")
    core = replace(core, definitions=tuple(replace(d, uses=d.uses + (lab,)) if d is mapping else d
                                           for d in core.definitions))
    data = _data(core)
    entry = data["defs"]["BlockMapping"]
    assert (entry["l"], entry["d"]) == (17, "class BlockMapping:")
    files = [data["files"][u[0]] for u in entry["u"]]
    assert files == ["fixture/core.py", "fixture/call.py", ["kernels/k.py", "labs/k.html"]]
    assert entry["u"][0][1:] == [14, "return BlockMapping(self, grid)"]  # indentation dropped
    assert entry["u"][2][1:] == [3, "spec = core.BlockMapping(x, y)"]  # a lab's use: its own text
    assert "u" not in data["defs"]["BlockSpec.block_shape"]  # used nowhere: its line alone


def test_a_definitions_notes_are_those_on_it_and_those_linking_it_once_each(docs):
    cited = citations(NOTES)
    assert {path: [c.qualname for c in found] for path, found in cited.items()} == {
        "fixture/core.py": ["BlockSpec.to_block_mapping"], "fixture/call.py": ["pallas_call"]}
    data = _data(docs["fixture/core.py"], cited["fixture/core.py"])
    articles = data["articles"]
    notes = {q: [(articles[a][0], i) for a, i, _ in data["defs"][q].get("n", [])]
             for q in ("BlockSpec", "BlockSpec.to_block_mapping", "BlockMapping")}
    assert notes == {"BlockSpec": [("articles/golden-article.html", "golden-blockspec")],
                     "BlockSpec.to_block_mapping": [("articles/other-article.html", "golden-mapping"),
                                                    ("articles/golden-article.html", "golden-blockspec")],
                     "BlockMapping": []}
    twice = replace(NOTES[0], body="[[fixture/core.py::BlockMapping]] and [[fixture/core.py::BlockMapping|again]]")
    assert [c.qualname for c in citations([twice])["fixture/core.py"]] == ["BlockMapping"]


def test_a_line_of_code_is_shown_unindented_cut_and_with_hidden_characters_marked():
    assert code_line("    x = 1  ") == "x = 1"
    long = code_line("y" * 500)
    assert len(long) == CODE_CHARS and long.endswith("\u2026")
    assert code_line('s = "a\u202eb"') == 's = "a\u2423b"'


def _uses(site: Path) -> dict[str, dict]:
    out = {}
    for path in (site / "assets/code").rglob("*.js"):  # its calls: paint, scopes, cards, uses
        calls = (unpacked_call(path.read_bytes()) or b"").decode().splitlines(keepends=True)
        m = re.fullmatch(r'readerUses\.add\(("[^"]+"),(.*)\);\n', calls[3], re.S)
        assert m, path
        out[json.loads(m.group(1))] = json.loads(m.group(2))
    return out


def _lines(page: Path) -> dict[int, str]:
    """A source page's lines by number, as text."""
    return {int(n): html.unescape(re.sub(r"<[^>]*>", "", body))
            for n, body in re.findall(r'<div id="L(\d+)"[^>]*>(.*?)</div>(?=<div id="L|</div>)', page.read_text())}


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'id="([^"]+)"', page.read_text()))


def test_every_line_and_note_a_list_links_to_exists_in_the_built_site(tmp_path):
    built = build_small(tmp_path)
    site = built.root / "site"
    found = _uses(site)
    assert set(found) == {"source/pkg/core.py.html", "source/pkg/call.py.html"}
    for page, data in found.items():
        ids = _ids(site / page)
        for q, entry in data["defs"].items():
            assert f"L{entry['l']}" in ids and f"uses-{q}" in ids
            for f, *pairs in entry.get("u", []):
                file = data["files"][f]
                target = f"source/{file}.html" if isinstance(file, str) else file[1]
                lines = _lines(site / target)
                for n, code in zip(pairs[::2], pairs[1::2], strict=True):
                    assert lines[n].strip() == code, (q, target, n)
            for a, note, _ in entry.get("n", []):
                assert f"note-{note}" in _ids(site / data["articles"][a][0])
    assert found["source/pkg/core.py.html"]["defs"]["BlockSpec"]["n"] == [[0, "tour-blockspec", "The spec."]]
