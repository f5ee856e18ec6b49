"""The internal link check over a built site."""

from __future__ import annotations

from pathlib import Path

from reader.linkcheck import check_links
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


def test_many_pages_are_scanned_on_worker_processes_with_the_same_result(tmp_path):
    for i in range(40):
        write(tmp_path, f"p{i}.html", f'<a href="p{(i + 1) % 40}.html#x{i}">n</a><i id="x{i - 1}"></i>')
    one = check_links(tmp_path, workers=Workers(1))
    assert one == check_links(tmp_path, workers=Workers(2))
    assert [b.href for b in one] == ["p0.html#x39"]
