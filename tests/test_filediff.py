"""Per-file diffs between the previous edition's pins and the current ones, on the two-commit demo
moved from v0 to v1 with its move recorded: the diff page, the source page's marks, the
'What changed' page's file lists."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from reader.cache import Cache
from reader.cli import main
from reader.editions.filediffs import file_diff
from reader.packed import unpacked_call
from reader.render.diff.page import enclosing, word_changes
from tests.conftest import REPO_ROOT, git
from tests.diff_project import CORE_V0, CORE_V1, make_demo

TRACK = """title: "The demo"
summary: "Two pins."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - article: "Demo"
        slug: demo
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo moved to v1 (its notes accepted there), the move recorded, the site built once
    for the module; (project, cache)."""
    tmp = tmp_path_factory.mktemp("filediff")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("READER_CACHE", str(tmp / "cache"))
        yield _build(tmp, mp), tmp / "cache"


@pytest.fixture
def built(demo, monkeypatch):
    root, cache = demo
    monkeypatch.setenv("READER_CACHE", str(cache))
    return root


def _build(tmp, monkeypatch):
    _upstream, root = make_demo(tmp, monkeypatch, ({}, {"jax/_src/pallas/added.py": "X = 1\n"}))
    # The site's files in the commit at the old pins: the previous edition is built from it.
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(TRACK)
    # A v0 note citing a fact (core.py's lines: 19 at v0, 26 at v1) that v1 drops.
    yaml = root / "annotations" / "demo.yaml"
    yaml.write_text(yaml.read_text().replace(
        "body: Gone in v1.", "body: Gone in v1. Core had {{fact:lines.jax._src.pallas.core}} lines."))
    git(root, "add", "-A")
    git(root, "commit", "-q", "--amend", "--no-edit")
    assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
    yaml = root / "annotations" / "demo.yaml"
    text = yaml.read_text()
    text = text[:text.index("  - id: note-orphaned")] + text[text.index("  - id: note-quote"):]
    text = text.replace("  - id: note-ambiguous\n    quote: \"y = x * 2\"\n",
                        "  - id: note-ambiguous\n    symbol: twin\n")
    yaml.write_text(text + "  - id: note-new\n    symbol: kernel\n    quote: \"total = a * b\"\n"
                    "    body: Now the product.\n")
    assert main(["-C", str(root), "accept", "--all"]) == 0
    assert main(["-C", str(root), "diff", "HEAD:pins.toml", "--record", str(root / "moves" / "v1.json")]) in (0, 1)
    assert main(["-C", str(root), "build", "--jobs", "1"]) == 0
    return root


def _rows(page: str, view: str) -> list[tuple[str, str, str]]:
    """(class, line numbers, text without tags) of each row of one view of a diff page."""
    part = page.split(f'class="rd-diff-{view}')[1].split('class="rd-diff-')[0]
    rows = re.findall(r'<div id="(?:new-L|old-L|hunk-)\d+"(?: style="[^"]*")? class="([^"]*)" data-l="([^"]*)"'
                      r'(?: data-w="[^"]*")?>(.*?)</div>', part)
    return [(cls, nums.strip(), re.sub(r"<[^>]+>", "", body)) for cls, nums, body in rows]


def test_the_diff_page_marks_the_changed_lines_and_links_names(built):
    page = (built / "site" / "diffs" / "jax" / "_src" / "pallas" / "core.py.html").read_text()
    unified = _rows(page, "unified")
    removed = [text for cls, _n, text in unified if cls == "rd-del"]
    added = [text for cls, _n, text in unified if cls == "rd-add"]
    assert "    total = a + b" in removed and "    total = a * b" in added
    assert "def helper(x):" in removed and "def helper(x, y=0):" in added
    assert "def deleted_fn():" in removed and "def twin(x):" in added
    # Unchanged context between the changes, numbered on both sides.
    assert ("rd-eq", "9    15", "    return total") in unified or any(
        cls == "rd-eq" and text == "    return total" for cls, _n, text in unified)
    stat = re.search(r'rd-plus">\+(\d+)</span> <span class="rd-minus">-(\d+)', page)
    expected = file_diff(None, "a", CORE_V0, "b", CORE_V1)
    assert stat and (int(stat[1]), int(stat[2])) == (expected.added, expected.removed)
    # This edition's note on a changed line sits in the margin beside its row.
    assert "Now the product." in page
    # One layout in the page: diff.js makes the side-by-side one from it (tests/test_browser_diff.py).
    assert 'data-view="unified"' in page and "Side by side" in page and "rd-diff-split" not in page


def _margin_notes(page: str) -> list[tuple[str, str]]:
    """(data-lines, HTML) of each note in the unified view's margin."""
    return re.findall(r'<div class="rd-mn" data-lines="([^"]*)">(.*?)</div>\s*</div>(?=<div class="rd-mn"|</div></aside>)',
                      page, re.S)


def test_every_row_is_its_lines_anchor_and_a_changed_lines_words_are_marked(built):
    page = (built / "site" / "diffs" / "jax" / "_src" / "pallas" / "core.py.html").read_text()
    # An added or unchanged row is the new line's anchor, a removed one the old line's; a removed
    # line and the added one paired with it carry the characters their words changed (`+` for `*`).
    assert re.search(r'<div id="new-L15"[^>]* class="rd-add" data-l="         15 \+" data-w="14-15">', page)
    assert re.search(r'<div id="old-L9"[^>]* class="rd-del" data-l="    9      -" data-w="14-15">', page)
    assert re.search(r'<div id="new-L16"[^>]* class="rd-eq" data-l="   10    16">', page)
    assert re.search(r'<div id="hunk-2"[^>]* class="rd-hunk" data-l="">@@ -15,5 \+21,6 @@</div>', page)
    assert "uL" not in page.split('class="rd-diff-unified')[1]


def test_a_hunks_head_names_the_def_or_class_its_change_is_in():
    lines = ["class A:", "    def f(", "        self,", "    ):", "        # a note", "        x = 1",
             "        if x:", "            y = 2", "z = 3"]
    assert enclosing(lines, 7) == "def f("  # through the `if`, past the signature's `):`
    assert enclosing(lines, 1) == "class A:"
    assert enclosing(lines, 8) == ""  # top level


def test_two_paired_lines_mark_the_words_that_changed():
    assert word_changes("    x = foo(a, b)", "    x = bar(a, c)") == ("8-11 15-16", "8-11 15-16")
    assert word_changes("return x", "raise ValueError('no way at all')") == ("", "")  # too little shared


def test_the_previous_editions_notes_sit_beside_the_old_lines(built):
    """v0's notes (the annotations committed before the move) beside the lines they were written
    for: `note-orphaned`, which v1 dropped, beside `deleted_fn`'s removed lines, tagged with v0."""
    page = (built / "site" / "diffs" / "jax" / "_src" / "pallas" / "core.py.html").read_text()
    rows = _rows(page, "unified")
    notes = _margin_notes(page)
    was = [(lines, body) for lines, body in notes if "Gone in v1." in body]
    assert len(was) == 1, notes
    lines, body = was[0]
    first, last = (int(n) for n in re.fullmatch(r"old-L(\d+)-L(\d+)", lines).groups())  # the old file's lines
    old = {int(n.split()[0]): (cls, text) for cls, n, text in rows if cls in ("rd-del", "rd-eq")}
    assert [old[k] for k in range(first, last + 1)] == [("rd-del", "def deleted_fn():"), ("rd-del", "    return None")]
    assert re.search(r'class="rd-note rd-status-ok rd-note-was".*class="rd-old-tag"[^>]*>jax [^<]+ edition<', body, re.S)
    # Its head names the old lines and links its first row, by its id; it names its article, unlinked.
    head = re.search(r'class="rd-range" href="#old-L(\d+)">lines (\d+)', body)
    assert head and int(head[1]) == first == int(head[2]) and f'<div id="old-L{first}"' in page
    assert '<span class="rd-from">Demo</span>' in body
    assert "Core had 19 lines." in body  # its fact as v0 computed it (26 at v1)
    # A v0 note on an unchanged line sits beside it too.
    quote = [lines for lines, body in notes if "Its signature changes" in body and "rd-note-was" in body]
    assert quote and quote[0].startswith("old-L")
    assert old[int(quote[0][5:])] == ("rd-eq", "    return x + 1") and ("rd-eq", "5    11", "    return x + 1") in rows
    # This edition's notes are not tagged.
    assert all("rd-note-was" not in body for _l, body in notes if "Now the product." in body)


def test_names_on_both_sides_link_to_their_definitions_now(built):
    site = built / "site"
    page = (site / "diffs" / "jax" / "_src" / "pallas" / "triton" / "lowering.py.html").read_text()
    unified = _rows(page, "unified")
    assert ("rd-del", "18      -", "@register_lowering(primitives.swap_p)") in unified
    assert ("rd-add", "18 +", "@register_lowering(primitives.get_p)") in unified
    # `get_p`, added at this release, links to its line on the source page: a live link.
    target = "../../../../../source/jax/_src/pallas/primitives.py.html#L5"
    assert f'<a href="{target}">get_p</a>' in page
    primitives = (site / "source" / "jax" / "_src" / "pallas" / "primitives.py.html").read_text()
    assert re.search(r'<div id="L5">.*?get_p</a> = jax_core\.Primitive', primitives)
    assert 5 in _changed(site, "jax/_src/pallas/primitives.py")


def test_the_source_page_says_what_changed_and_marks_it(built):
    page = (built / "site" / "source" / "jax" / "_src" / "pallas" / "core.py.html").read_text()
    expected = file_diff(None, "a", CORE_V0, "b", CORE_V1)
    assert (f'changed since jax v0: <a href="../../../../diffs/jax/_src/pallas/core.py.html">'
            f"+{expected.added} -{expected.removed} lines</a>") in page or re.search(
        rf'changed since [^:]+: <a href="../../../../diffs/jax/_src/pallas/core.py.html">\+{expected.added} '
        rf"-{expected.removed} lines</a>", page)
    marked = _changed(built / "site", "jax/_src/pallas/core.py")  # codeview.js marks them rd-chg
    assert marked == set(expected.changed_lines())
    assert 15 in marked  # `total = a * b`
    unchanged = (built / "site" / "source" / "jax" / "_src" / "pallas" / "utils.py.html").read_text()
    assert "changed since" not in unchanged and not _changed(built / "site", "jax/_src/pallas/utils.py")


def _changed(site, path: str) -> set[int]:
    """The lines a source page marks changed since the last edition: its paint script's `m`."""
    script = (unpacked_call((site / "assets" / "code" / f"{path}.js").read_bytes()) or b"").decode()
    spans = json.loads(re.match(r'readerCode\.put\("[^"]*",(.*?)\);\nreaderScopes\.add\(', script, re.S).group(1))["m"]
    return {n for first, last in spans for n in range(first, last + 1)}


def test_the_changes_page_lists_files_and_links_every_diff(built):
    page = (built / "site" / "changes" / "v1.html").read_text()
    section = page.split('id="move-files"')[1].split('id="move-symbols"')[0]
    assert "3 changed, 1 added, 0 removed" in section
    for path in ("core.py", "primitives.py", "triton/lowering.py"):
        assert f'href="../diffs/jax/_src/pallas/{path}.html"' in section
    assert 'href="../source/jax/_src/pallas/added.py.html"' in section


def test_a_warm_build_reads_every_diff_page_back(built):
    site = built / "site" / "diffs" / "jax" / "_src" / "pallas" / "core.py.html"
    before = site.read_bytes()
    cache = Cache()
    diffs = list((cache.root / "derived").rglob("file-diff/*"))
    assert diffs, "the diffs are kept in the cache"
    assert main(["-C", str(built), "build", "--jobs", "1"]) == 0
    assert site.read_bytes() == before


def test_a_notes_edit_reads_its_diff_pages_old_references_back(demo, tmp_path, monkeypatch):
    """A note's edit renders its file's diff page again, its old copy's references read back (to
    resolve them reads the scan of every module the old file names), and the page is the one a
    build with an empty cache makes."""
    from reader.extract.index import Index

    root, cache = demo
    project = tmp_path / "project"
    shutil.copytree(root, project, ignore=shutil.ignore_patterns("site", ".site*"))
    yaml = project / "annotations" / "demo.yaml"
    yaml.write_text(yaml.read_text().replace("body: Now the product.", "body: Now the product, edited."))
    resolved, resolve = [], Index.references_in

    def spied(self, text, path, blob=""):
        resolved.append(path)
        return resolve(self, text, path, blob)

    monkeypatch.setenv("READER_CACHE", str(cache))
    monkeypatch.setattr(Index, "references_in", spied)
    assert main(["-C", str(project), "build", "--jobs", "1"]) == 0
    page = project / "site" / "diffs" / "jax" / "_src" / "pallas" / "core.py.html"
    assert "Now the product, edited." in page.read_text()
    assert resolved == []
    monkeypatch.setenv("READER_CACHE", str(tmp_path / "empty-cache"))
    assert main(["-C", str(project), "build", "--jobs", "1", "--site", str(tmp_path / "cold")]) == 0
    assert "jax/_src/pallas/core.py" in resolved
    assert (tmp_path / "cold" / "diffs" / "jax" / "_src" / "pallas" / "core.py.html").read_bytes() == page.read_bytes()


def _difflib_hunks(old: str, new: str) -> tuple:
    import difflib

    from reader.model import split_lines
    matcher = difflib.SequenceMatcher(None, split_lines(old), split_lines(new), autojunk=False)
    return tuple(tuple(h) for h in matcher.get_grouped_opcodes(3))


def test_the_hunks_are_difflib_s_whichever_matcher_runs():
    """`file_diff` runs cydifflib when installed (the `fast` extra): its hunks are difflib's, for
    blocks moved, lines repeated, texts equal or empty; two equal blobs have none."""
    pytest.importorskip("cydifflib", reason="cydifflib is not installed (pip install -e '.[fast]')")
    import random

    rng = random.Random(48)
    pool = ["", "    return x", "def f(a):", "    pass", ")", "x = 1", "    # a comment", "class C:"]
    texts = [CORE_V0, CORE_V1, "", "a\n" * 300]
    texts += ["\n".join(rng.choice(pool) for _ in range(rng.randint(0, 400))) for _ in range(40)]
    pairs = [(a, b) for a in texts[:4] for b in texts[:4]]
    pairs += [(texts[i], texts[i + 1]) for i in range(4, len(texts) - 1)]
    pairs += [(t, "\n".join(sorted(t.splitlines(), key=lambda _: rng.random()))) for t in texts[4:12]]
    for old, new in pairs:
        assert file_diff(None, "o", old, "n", new).hunks == _difflib_hunks(old, new)
    assert file_diff(None, "same", CORE_V0, "same", CORE_V0).hunks == _difflib_hunks(CORE_V0, CORE_V0) == ()
