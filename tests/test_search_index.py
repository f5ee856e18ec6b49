"""The search index's pieces (reader/render/search/index.py): the code's words by their first three
letters with the lines holding them, the definitions by name, the files' lines in chunks, the
prose's words and documents; read back here as search.js reads them."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reader.model import SourceFile
from reader.render.code.annotated import page_markdown, with_prose
from reader.render.common.model import Page, SearchEntry
from reader.render.search.index import (
    BUCKET,
    CHUNK,
    COMMON,
    TEXT_SHARDS,
    _code_assets,
    documents,
    pack,
    prefix,
    text_assets,
    text_shard,
    unpack,
)

_PUT = re.compile(r'readerSearch\.put\(("[^"]*"),(.*)\);\n\Z', re.S)


def read_piece(data: bytes) -> tuple[str, object]:
    m = _PUT.match(data.decode("utf-8"))
    assert m, data[:80]
    return json.loads(m.group(1)), json.loads(m.group(2))


def pieces(site: Path) -> dict[str, object]:
    """Every piece of a built site's index, by its key (unpacked as search.js does)."""
    out: dict[str, object] = {}
    for path in (site / "search").rglob("*.js"):
        out.update(unpack(path.read_bytes()))
    return out


def built_definitions(site: Path) -> dict[str, tuple[str, str, str]]:
    """qualname -> (URL, kind, text) of every definition in the index."""
    got = pieces(site)
    files = got["files"]["files"]
    return {d[3]: (f"source/{files[d[0]][0]}.html#L{d[1]}", d[2], d[4])
            for key, piece in got.items() if key.startswith("code/")
            for found in piece["d"].values() for d in found}


def built_documents(site: Path) -> list[list[str]]:
    """[url, title, where, text] of every prose document, in order."""
    got = pieces(site)
    return [d for b in range(len([k for k in got if k.startswith("docs/")])) for d in got[f"docs/{b}"]]


def _postings(spec: str) -> list[tuple[int, int]]:
    """search.js's `postings`."""
    out = []
    for part in spec.split(";"):
        f, _, lines = part.partition(":")
        line = 0
        for d in lines.split(","):
            line += int(d)
            out.append((int(f), line))
    return out


def test_each_word_lists_its_lines_and_a_definition_its_place():
    a = SourceFile("p", "a.py", "0", 'class BlockSpec:\n  x = BlockSpec\n\n\nraise ValueError("Storing into it")\n')
    b = SourceFile("p", "b.py", "1", "from a import BlockSpec\n" * 3)
    entries = [[SearchEntry("", "a.py", "x"), SearchEntry("L1", "BlockSpec", "class BlockSpec: A spec.")], []]
    got = dict(read_piece(x.data) for x in _code_assets([a, b], entries))
    assert got["files"] == {"files": [["a.py", 5], ["b.py", 3]], "code": "a blo cla fro imp int it rai sto val x"}
    blo = got["code/blo"]
    assert _postings(blo["t"]["blockspec"]) == [(0, 1), (0, 2), (1, 1), (1, 2), (1, 3)]
    assert blo["d"]["blockspec"] == [[0, 1, "class", "BlockSpec", "BlockSpec: A spec."]]
    assert _postings(got["code/sto"]["t"]["storing"]) == [(0, 5)]  # words in strings too
    assert got["lines/0/0"][4] == 'raise ValueError("Storing into it")'
    assert "code/sto" == f"code/{prefix('storing')}"


def test_a_word_on_too_many_lines_is_counted_not_listed():
    text = "self\n" * (COMMON + 1)
    got = dict(read_piece(x.data) for x in _code_assets([SourceFile("p", "a.py", "0", text)], [[]]))
    assert got["code/sel"]["t"]["self"] == COMMON + 1
    assert len([k for k in got if k.startswith("lines/0/")]) == -(-(COMMON + 1) // CHUNK)


def test_the_code_pieces_are_the_same_bytes_whatever_the_hash_seed():
    """A line's words are a set: the pieces list them sorted, so two builds write the same bytes."""
    line = "0x0c080400 0x0e0a0602 0x0d090501 0x0f0b0703 0x0f0f0f0f 0x08080808\n"
    code = (
        "import sys\n"
        "from reader.model import SourceFile\n"
        "from reader.render.search.index import _code_assets\n"
        f"for a in _code_assets([SourceFile('p', 'a.py', '0', {line!r})], [[]]):\n"
        "    sys.stdout.buffer.write(a.data)\n")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in "1234"}
    assert len(runs) == 1
    got = dict(read_piece(b"readerSearch.put" + part) for part in next(iter(runs)).split(b"readerSearch.put")[1:])
    words = list(got["code/0x0"]["t"])
    assert len(words) == 6 and words == sorted(words)


def test_the_prose_lists_pages_sections_and_notes_with_their_titles():
    body = with_prose('<div class="rd-k">code</div>', '<p>Lede words.</p>\n<h2 id="why">Why <code>x</code></h2>\n'
                      '<p>Because of a wait with no matching signal.</p>')
    note = SearchEntry("note-n1", "pkg/core.py, lines 5–7", "<p>A spec is frozen. It is <em>hashed</em>.</p>")
    docs = documents([Page("articles/t.md", "T", page_markdown("T"), body, search=(note,))])
    assert [(d.url, d.title, d.where, d.text) for d in docs] == [
        ("articles/t.html", "T", "", "Lede words."),
        ("articles/t.html#why", "Why x", "T", "Because of a wait with no matching signal."),
        ("articles/t.html#note-n1", "A spec is frozen.", "T · pkg/core.py, lines 5–7",
         "A spec is frozen. It is hashed.")]
    got = dict(read_piece(x.data) for x in text_assets(docs))
    assert len([k for k in got if k.startswith("text/")]) == TEXT_SHARDS  # fixed names
    assert got[f"text/{text_shard('signal')}"]["signal"] == "1"
    assert got[f"text/{text_shard('frozen')}"]["frozen"] == "2"
    assert got["docs/0"][2][1] == "A spec is frozen."


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_pieces_sizes_are_the_ones_query_js_reads_by():
    """docs/assets/query.js names the pieces a query reads (tests/js/query.test.js reads the golden
    index, tests/golden/index.search.js): its sizes are these."""
    script = Path(__file__).resolve().parents[1] / "docs" / "assets" / "query.js"
    out = subprocess.run([shutil.which("node") or "node", "-e", f"const q = require({json.dumps(str(script))});"
                          "process.stdout.write(JSON.stringify([q.CHUNK, q.TEXT_SHARDS, q.BUCKET]))"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [CHUNK, TEXT_SHARDS, BUCKET]


def test_packs_hold_every_piece_once_in_key_order_and_files_names_their_first_keys():
    """The pieces in packs that fill PACK_BLOCKS disk blocks, gzipped: `files` alone with the first key
    of each other pack, each other piece in the pack whose first key is the last one not after its
    own (search.js finds it so); the same bytes whatever the order the pieces come in."""
    import random

    from reader.render.search.index import _WRAPPER, BLOCK, PACK_BLOCKS, _packed_json

    def pack_script(bodies: dict[str, bytes]) -> str:  # a pack's script, its number at most 5 digits
        return " " * _WRAPPER + _packed_json(bodies)

    files = [SourceFile("p", f"m{i}.py", str(i), "".join(f"def f{i}_{n}(x): return x + {n}\n" for n in range(400)))
             for i in range(6)]
    logical = _code_assets(files, [[]] * len(files))
    packed = pack(logical)
    assert [a.src_uri for a in packed] == ["search/files.js", *[f"search/{n}.js" for n in range(len(packed) - 1)]]
    assert 1 < len(packed) < len(logical) / 4
    got = [unpack(a.data) for a in packed]
    want = dict(read_piece(a.data) for a in logical)
    table = got[0]["files"]
    firsts = table.pop("packs")
    assert table == want["files"] and firsts == [min(g) for g in got[1:]] == sorted(firsts)
    assert {k: v for g in got[1:] for k, v in g.items()} == {k: v for k, v in want.items() if k != "files"}
    for key in want:
        if key != "files":
            n = max(i for i, first in enumerate(firsts) if first <= key)
            assert key in got[1 + n]
    assert all(len(a.data) <= PACK_BLOCKS * BLOCK for a in packed[1:])
    for n, held in enumerate(got[1:]):  # each pack as gzip makes its JSON in one go (`Packing`'s is grown)
        whole = _packed_json({k: json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()
                              for k, v in held.items()})
        assert packed[1 + n].data == f'readerSearch.pack("{n}","{whole}");\n'.encode()
    for held, after in itertools.pairwise(got[1:]):  # filled: one piece more would not have fit
        first = min(after)
        if first.split("/")[0] == min(held).split("/")[0]:
            more = pack_script({k: json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()
                                for k, v in {**held, first: after[first]}.items()})
            assert len(more) > PACK_BLOCKS * BLOCK, (min(held), len(more))
    shuffled = list(logical)
    random.Random(1).shuffle(shuffled)
    assert [a.data for a in pack(shuffled)] == [a.data for a in packed]


def test_the_codes_packs_are_kept_and_a_prose_edit_repacks_only_the_prose(tmp_path):
    """search_assets keeps the code's packs in the cache by the pinned files: a second build with
    other prose reads them back (the same bytes) and packs only the prose's pieces again."""
    from reader.cache import Cache
    from reader.render.search.index import search_assets

    files = [SourceFile("p", f"m{i}.py", str(i), "".join(f"def f{i}_{n}(x): return x + {n}\n" for n in range(300)))
             for i in range(3)]

    def built(words: str) -> dict[str, object]:
        body = with_prose("", f"<h2 id=\"s\">Section</h2><p>{words}</p>")
        page = Page("articles/a.md", "An article", page_markdown("An article"), body)
        return {key: value for a in search_assets(files, [page], cache) for key, value in unpack(a.data).items()}

    cache = Cache(tmp_path / "cache")
    first = built("blockspec grids")
    assert list((tmp_path / "cache").rglob("*search-packs*"))
    second = built("pipelines emit")
    code = [k for k in first if k.startswith(("code/", "lines/"))]
    assert code and {k: first[k] for k in code} == {k: second[k] for k in code}
    assert first.keys() ^ second.keys() == set() and first != second, first.keys() ^ second.keys()
    assert any("pipelines" in json.dumps(v) for k, v in second.items() if k.startswith("docs/"))


def test_the_code_part_made_before_the_pages_gives_the_same_index(tmp_path):
    """`code_lines` (the files' words and lines, made beside the pages) joined with the source
    pages' definitions by `search_assets` gives the same files as the index made in one go; one
    made of other files is not used."""
    from reader.cache import Cache
    from reader.render.common.urls import source_page
    from reader.render.search.index import (
        _bodies,
        _entries,
        _packs,
        code_lines,
        code_packs_kept,
        search_assets,
    )

    files = [SourceFile("p", f"m{i}.py", str(i), "".join(f"def f{i}_{n}(x): return x + {n}\n" for n in range(300)))
             for i in range(3)] + [SourceFile("p", "c.py", "9", "def only_listed(): pass\n")]
    context = frozenset({"c.py"})
    entry = SearchEntry("L2", "m1.f1_1", "def f1_1(x): Adds one.")
    pages = [Page(source_page("m1.py"), "m1.py", page_markdown("m1.py"), "", search=(entry,)),
             Page("articles/a.md", "An article", page_markdown("An article"),
                  with_prose("", "<h2 id=\"s\">Section</h2><p>blockspec grids</p>"))]
    whole = [(a.src_uri, a.data) for a in search_assets(files, pages, None, context)]
    lines = code_lines(files, context)
    code = _bodies(_code_assets(files, _entries(files, pages), context))  # the pieces, packed
    assert lines.joined(_entries(files, pages)) == (json.loads(code.pop("files")), _packs(code))
    assert [(a.src_uri, a.data) for a in search_assets(files, pages, None, context, lines=lines)] == whole
    got = {k: v for _, data in whole for k, v in unpack(data).items()}
    assert got["code/f1_"]["d"]["f1_1"] == [[1, 2, "def", "m1.f1_1", "f1_1(x): Adds one."]]
    other = code_lines(files[:2], context)  # not these files: made again here
    assert [(a.src_uri, a.data) for a in search_assets(files, pages, None, context, lines=other)] == whole
    cache = Cache(tmp_path / "cache")
    assert not code_packs_kept(files, cache, context)
    assert [(a.src_uri, a.data) for a in search_assets(files, pages, cache, context, lines=lines)] == whole
    assert code_packs_kept(files, cache, context)
    assert [(a.src_uri, a.data) for a in search_assets(files, pages, cache, context)] == whole


def test_a_prose_edit_reads_back_the_other_pages_documents_and_packs(tmp_path, monkeypatch):
    """search_assets keeps what it made of the prose (`ProseMemo`): a second build with one page
    edited makes that page's documents alone, packs only what changed, and gives the same
    files as a build with nothing kept."""
    from reader.cache import Cache
    from reader.render.search import index as search

    files = [SourceFile("p", "m.py", "1", "def f(x):\n    return x\n")]

    def page(n: int, words: str) -> Page:
        body = with_prose("", f"<h2 id=\"s{n}\">Section {n}</h2><p>{words} {n}</p>")
        return Page(f"articles/a{n}.md", f"Article {n}", page_markdown(f"Article {n}"), body)

    pages = [page(n, " ".join(f"word{n}x{k}" for k in range(400))) for n in range(30)]
    keys = {p.src_uri: f"key-{n}" for n, p in enumerate(pages)}
    cache = Cache(tmp_path / "cache")
    first = search.search_assets(files, pages, cache, keys=keys)
    edited = [*pages[:7], page(7, "blockspec grids"), *pages[8:]]
    keys = {**keys, edited[7].src_uri: "key-7-edited"}
    made, packed = [], []
    documents, pack = search.documents, search.packed
    monkeypatch.setattr(search, "documents", lambda ps: made.extend(ps) or documents(ps))
    monkeypatch.setattr(search, "packed", lambda data: packed.append(data) or pack(data))
    second = search.search_assets(files, edited, cache, keys=keys)
    assert made == [edited[7]]
    monkeypatch.setattr(search, "documents", documents)
    monkeypatch.setattr(search, "packed", pack)
    assert [(a.src_uri, a.data) for a in second] == [(a.src_uri, a.data) for a in search.search_assets(files, edited, None)]
    assert first != second and 0 < len(packed) < len(second) - 1


def test_a_packing_grown_in_parts_is_the_whole_packed_at_every_step():
    """`Packing` (the search packs' fit): the text of the parts so far and an ending is `packed`'s of
    them joined, however they are cut, and a copy goes on without changing the original."""
    from reader.packed import Packing, packed, unpacked

    data = b"".join(json.dumps({"w": f"f{n}", "l": list(range(n, n * 7, 3))}).encode() for n in range(600))
    cuts = [0, 1, 2, 700, 701, 5000, 5001, 20000, len(data)]
    packing = Packing()
    for a, b in itertools.pairwise(cuts):
        packing.add(data[a:b])
        assert packing.text(b"}") == packed(data[:b] + b"}")
        fork = packing.copy()
        fork.add(b"more")
        assert fork.text() == packed(data[:b] + b"more") and packing.text() == packed(data[:b])
    assert unpacked(packing.text(b"}")) == data + b"}"


def test_each_triple_of_letters_lists_the_pieces_of_lines_holding_it_a_context_files_too():
    """`tri/<abc>`: the pieces of lines (numbered across the files) whose words hold `abc`, what a
    pattern no word finds reads (`/lowering_rule/`); a `context` file's lines are listed too."""
    a = SourceFile("p", "a.py", "0", "x = 1\n" * CHUNK + "def _pallas_call_lowering_rule(): pass\n")
    b = SourceFile("p", "b.py", "1", "register(lowering_rules)\n")
    got = dict(read_piece(x.data) for x in _code_assets([a, b], [[], []], frozenset({"b.py"})))
    assert got["files"]["files"] == [["a.py", CHUNK + 1], ["b.py", 1, 0]]
    assert got["lines/1/0"] == ["register(lowering_rules)"]  # a context file's lines, for patterns
    pieces_of = {k[4:]: [int(n) for n in itertools.accumulate(map(int, str(v).split(",")))]
                 for k, v in got.items() if k.startswith("tri/")}
    assert pieces_of["rul"] == [1, 2] and pieces_of["_pa"] == [1]  # piece 0: a's first 100 lines
    assert pieces_of["reg"] == [2] and "x" not in pieces_of  # a word of 1 letter: no triple


def test_a_qualified_name_resolves_through_an_alias_and_a_public_modules_reexport():
    from reader.extract.index import index_from_sources
    from reader.render.search.index import code_lines
    from reader.render.search.qualified import module_aliases, qualified_names

    index = index_from_sources({
        "pkg/__init__.py": "",
        "pkg/_src/prims.py": "\n\ndef program_id(axis): pass\n",
        "pkg/pallas/__init__.py": "from pkg._src.prims import program_id as program_id\n_hidden = 1\n",
        "user.py": "from pkg import pallas as pl\nfrom pkg._src import prims as private\npl.program_id(0)\n",
        "other.py": "import pkg.pallas as pl\n",
    })
    assert module_aliases(index) == {"pl": "pkg.pallas"}  # a private module (prims): none
    names = qualified_names(index)
    assert names == {f"{m}.program_id": ("pkg/_src/prims.py", 3) for m in ("pl", "pkg.pallas")}
    files = [SourceFile("p", path, str(i), "") for i, path in enumerate(["pkg/_src/prims.py", "user.py"])]
    entries = [[SearchEntry("L3", "program_id", "function program_id(axis)")], []]
    table, packs = code_lines(files).joined(entries, names)
    got = {k: v for _, text in packs for k, v in unpack(f'readerSearch.pack("0","{text}");\n'.encode()).items()}
    assert got["code/pro"]["q"]["pl.program_id"] == [0, 3, "function", "program_id", "program_id(axis)"]
