"""The internal link check over a built site."""

from __future__ import annotations

from pathlib import Path

from reader.cache import Cache
from reader.linkcheck import check_changed, check_links, prescan
from reader.packed import part_text
from reader.workers import Workers


def write(root: Path, rel: str, body: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body>{body}</body></html>")


def test_good_links_pass(tmp_path):
    write(tmp_path, "index.html", '<a href="source/a.py.html#L2">a</a> <a href="#top">t</a>'
                                  '<p id="top"></p><a href="https://example.org/x">web</a>'
                                  '<a href="mailto:a@b.c">m</a><a href="source/">dir</a>')
    write(tmp_path, "source/a.py.html", '<div id="L1"></div><div id="L2"></div><a href="../index.html">up</a>')
    write(tmp_path, "source/index.html", "")
    assert check_links(tmp_path) == []


def test_missing_file_missing_anchor_and_escaping_links_are_reported(tmp_path):
    write(tmp_path, "index.html", '<a href="nope.html">x</a><a href="a.html#L9">y</a>'
                                  '<a href="#gone">z</a><a href="../../etc/passwd">w</a>'
                                  '<img src="img/missing.svg">')
    write(tmp_path, "a.html", '<div id="L1"></div>')
    broken = {(b.href, b.reason.split(" ")[0]) for b in check_links(tmp_path)}
    assert broken == {("nope.html", "no"), ("a.html#L9", "no"), ("#gone", "no"),
                      ("../../etc/passwd", "leaves"), ("img/missing.svg", "no")}


def test_only_elements_attributes_are_read(tmp_path):
    """A link in a comment, a script's string or a note's text is none; every element's id and
    name count, quoted or not."""
    write(tmp_path, "index.html", '<!-- <a href="gone.html">old</a> -->'
                                  '<script>const a = \'<a href="nope.html">\' + "<p id=x>";</script>'
                                  '<p>&lt;a href="text.html"&gt;</p>'
                                  '<input name="pick" id=picked><a href=#picked>p</a><a href="#pick">q</a>'
                                  "<a href='#x'>x</a>")
    assert [(b.href, b.reason) for b in check_links(tmp_path)] == [("#x", "no id 'x' in index.html")]


def test_absolute_links_break_plain_file_browsing(tmp_path):
    write(tmp_path, "index.html", '<a href="/a.html">x</a>')
    write(tmp_path, "a.html", "")
    (b,) = check_links(tmp_path)
    assert b.reason.startswith("absolute")


def test_mkdocs_404_page_may_use_root_links(tmp_path):
    write(tmp_path, "404.html", '<a href="/a.html">x</a><a href="/nope.html">y</a>')
    write(tmp_path, "a.html", "")
    assert [b.href for b in check_links(tmp_path)] == ["/nope.html"]


def test_fragments_are_url_decoded(tmp_path):
    write(tmp_path, "index.html", '<a href="a.html#BlockSpec.to_block_mapping">x</a>'
                                  '<a href="a.html#uses-%5Fx">y</a>')
    write(tmp_path, "a.html", '<span id="BlockSpec.to_block_mapping"></span><li id="uses-_x"></li>')
    assert check_links(tmp_path) == []


def test_a_page_checked_before_is_read_from_the_cache(tmp_path, monkeypatch):
    import reader.linkcheck
    from reader.cache import Cache

    site, cache = tmp_path / "site", Cache(tmp_path / "cache")
    write(site, "index.html", '<a href="a.html#L1">a</a><a href="a.html#L2">b</a>')
    write(site, "a.html", '<div id="L1"></div>')
    first = check_links(site, cache)
    scanned: list[str] = []
    real = reader.linkcheck.scan
    monkeypatch.setattr(reader.linkcheck, "scan", lambda text: scanned.append(text) or real(text))
    assert check_links(site, cache) == first and scanned == []
    assert [b.href for b in first] == ["a.html#L2"]
    write(site, "a.html", '<div id="L1"></div><div id="L2"></div>')  # the target changed: scanned
    assert check_links(site, cache) == [] and len(scanned) == 1


def test_pages_scanned_before_the_check_are_read_back_while_their_bytes_are_the_same(tmp_path, monkeypatch):
    """A build scans its pages while the search index is made (`prescan`); the check reads those
    back, and scans again a page written since (its bytes differ) and one written after."""
    import reader.linkcheck

    write(tmp_path, "index.html", '<a href="a.html#L1">a</a><a href="b.html">b</a>')
    write(tmp_path, "a.html", '<div id="L1"></div>')
    early = prescan(tmp_path)
    assert sorted(early) == ["a.html", "index.html"]
    write(tmp_path, "a.html", '<div id="L2"></div>')
    write(tmp_path, "b.html", '<a href="index.html#top">up</a>')
    scanned: list[str] = []
    real = reader.linkcheck.scan
    monkeypatch.setattr(reader.linkcheck, "scan", lambda text: scanned.append(text) or real(text))
    broken = [(b.page, b.href) for b in check_links(tmp_path, scanned=early)]
    assert broken == [("b.html", "index.html#top"), ("index.html", "a.html#L1")]
    assert len(scanned) == 2 and not any("a.html#L1" in text for text in scanned)  # index.html read back
    assert broken == [(b.page, b.href) for b in check_links(tmp_path)]


def test_many_pages_are_scanned_on_worker_processes_with_the_same_result(tmp_path):
    for i in range(40):
        write(tmp_path, f"p{i}.html", f'<a href="p{(i + 1) % 40}.html#x{i}">n</a><i id="x{i - 1}"></i>')
    one = check_links(tmp_path, workers=Workers(1))
    assert one == check_links(tmp_path, workers=Workers(2))
    assert [b.href for b in one] == ["p0.html#x39"]


def test_a_pages_parts_are_checked_as_its_html(tmp_path):
    """A part (HTML served as a script, irview.js) holds links relative to its page and ids of it."""
    part = tmp_path / "assets" / "ir" / "labs" / "a" / "m.js"
    part.parent.mkdir(parents=True)
    part.write_text(part_text("m", '<div id="m-3"><a href="../source/k.py.html#L2">k</a>'
                                   '<a href="../source/k.py.html#L9">gone</a><a href="#m-4">no</a></div>'))
    write(tmp_path, "labs/a.html", '<div id="m" ><div class="ir-view" data-part="../assets/ir/labs/a/m.js">'
                                   '</div></div><div data-part="../assets/ir/labs/a/none.js"></div>')
    write(tmp_path, "source/k.py.html", '<div id="L2"></div><a href="../labs/a.html#m-3">op</a>')
    cache, digests = Cache(tmp_path / "cache"), {}
    broken = {(b.page, b.href, b.reason) for b in check_links(tmp_path, cache, digests=digests)}
    assert broken == {("labs/a.html", "../source/k.py.html#L9", "no id 'L9' in source/k.py.html"),
                      ("labs/a.html", "#m-4", "no id 'm-4' in labs/a.html"),
                      ("labs/a.html", "../assets/ir/labs/a/none.js", "no such file")}
    # a part's ids are its page's for a changed page's links too
    changed = {"source/k.py.html": b'<div id="L2"></div><a href="../labs/a.html#m-3">op</a>'
                                   b'<a href="../labs/a.html#m-5">x</a>'}
    assert [b.href for b in check_changed(tmp_path, changed, digests, cache)] == ["../labs/a.html#m-5"]
    part.write_text("not a part")
    assert any(b.reason.endswith("is not a part's script") for b in check_links(tmp_path))
