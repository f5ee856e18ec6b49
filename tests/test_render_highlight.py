"""Highlighting: one pygments pass per file split into lines, links by column, hidden characters."""

from __future__ import annotations

import html
import re

from reader.cache import Cache
from reader.model import split_lines
from reader.providers import keep, kept
from reader.render.code.highlight import (
    HIGHLIGHT,
    Highlight,
    LineLink,
    hidden_characters,
    highlight,
    highlighted,
    lexed,
    link_line,
    pairs,
)


def test_lines_match_python_line_numbers():
    text = "a = 1\n\x0cb = '''x\ny'''\n\n"
    assert split_lines(text) == ["a = 1", "\x0cb = '''x", "y'''", ""]
    assert len(highlight(text).html()) == 4


def test_leading_and_trailing_blank_lines_are_kept():
    lines = highlight("\n\nx = 1\n\n").html()
    assert lines[:2] == ["", ""] and "x" in lines[2] and lines[3] == ""


def test_spans_close_on_each_line_of_a_multiline_string():
    lines = highlight('s = """one\ntwo\nthree"""\n').html()
    for line in lines:
        assert line.count("<span") == line.count("</span>")
    assert lines[1] == '<span class="s2">two</span>'


def test_html_is_escaped():
    (line,) = highlight("x = a < b & c  # <script>\n").html()
    assert "<script>" not in line and "&lt;script&gt;" in line and "&amp;" in line


def test_bidi_and_invisible_characters_are_marked_one_for_one():
    text = 'ok = "a\u202eb\u200bc\ufeff"\n'
    (line,) = highlight(text).html()
    for ch in "\u202e\u200b\ufeff":
        assert ch not in line
    assert line.count('class="rd-hidden"') == 3
    assert [n for _, n in hidden_characters(text)] == [
        "U+202E RIGHT-TO-LEFT OVERRIDE", "U+200B ZERO WIDTH SPACE", "U+FEFF ZERO WIDTH NO-BREAK SPACE"]
    # columns after a marked character still line up with the source
    linked = link_line(line, [LineLink(0, 2, "#x")])
    assert linked.startswith('<a href="#x">ok</a> <span class="o">=</span>')


def test_link_line_wraps_the_identifier_at_its_column():
    (line,) = highlight("y = pl.BlockSpec(x) < z\n").html()
    out = link_line(line, [LineLink(7, 9, "core.py.html#L5", "jax._src.pallas.core.BlockSpec")])
    assert '<a href="core.py.html#L5" title="jax._src.pallas.core.BlockSpec">BlockSpec</a>' in out
    # after an entity (`&lt;` is one character) columns still count source characters
    out = link_line(line, [LineLink(22, 1, "#z")])
    assert '<a href="#z">z</a>' in out


def test_link_crossing_a_tag_or_overlapping_is_left_out():
    (line,) = highlight("a.b\n").html()
    assert link_line(line, [LineLink(0, 3, "#ab")]) == line
    out = link_line(line, [LineLink(0, 1, "#a"), LineLink(0, 1, "#again")])
    assert out.count("<a ") == 1


def test_link_hrefs_are_escaped():
    (line,) = highlight("x\n").html()
    out = link_line(line, [LineLink(0, 1, 'a.html#"><script>', 'say "hi"')])
    assert "<script>" not in out and "&quot;" in out


def test_highlighting_is_cached_by_blob(tmp_path):
    cache = Cache(tmp_path)
    first = highlighted(cache, "ab" * 20, "x = 1\ny = 2\n")
    assert kept(HIGHLIGHT, lexed("ab" * 20), cache) == first
    cached = Highlight(["from"], [("", 4)])
    keep(HIGHLIGHT, lexed("ab" * 20), cached, cache)
    assert highlighted(cache, "ab" * 20, "x = 1\ny = 2\n") == cached


def test_the_token_stream_is_pygments_own():
    import pygments
    from pygments.lexers.python import PythonLexer

    from reader.render.code.highlight import _tokens

    lexer = PythonLexer(stripnl=False, stripall=False, ensurenl=False)
    for text in ("\ufeffx = 1\n", "a = '\u202e'\nb = 1 < 2 & 3\n", '"""doc\n\nmore"""\n', "", "\tif x:\n\t\tpass"):
        assert list(_tokens(text)) == list(pygments.lex(text, lexer))


def test_runs_cover_each_line_and_spans_come_back_from_them():
    text = 's = f"a{b!r}\u00e9\U0001f600" < c  # \u202e\n\tif x:\n\t\treturn 1\n'
    got = highlight(text)
    for line, runs in zip(got.lines, got.runs, strict=True):
        shown = html.unescape(re.sub(r"<[^>]*>", "", line))
        assert sum(n for _, n in pairs(runs)) == len(shown.encode("utf-16-le")) // 2
        assert all(c != "n" for c, _ in pairs(runs))  # names in the plain colour
    assert got.html()[0].startswith('s <span class="o">=</span> <span class="sa">f</span>')
    assert '<span class="c1">#' in got.html()[0] and 'class="rd-hidden"' in got.html()[0]
    assert got.html()[2] == '\t\t<span class="k">return</span> <span class="mi">1</span>'


def test_pygments_own_lexer_and_the_joined_one_highlight_alike(monkeypatch):
    """A process lexes its first PLAIN_CHARS characters with pygments' own lexer (building the
    joined one costs more than one edited file's lexing), then with the joined one."""
    from pathlib import Path

    from reader.render.code import highlight as hl

    text = Path(hl.__file__).read_text()
    hl._python.cache_clear()
    monkeypatch.setattr(hl, "_plain", [0])
    plain = hl.highlight(text)
    assert hl._plain[0] == len(text) and not hl._python.cache_info().currsize
    monkeypatch.setattr(hl, "PLAIN_CHARS", 0)
    joined = hl.highlight(text)
    assert hl._python.cache_info().currsize and hl._plain[0] == len(text)
    assert plain == joined and len(plain.lines) == text.count("\n")


def test_a_pygments_the_joined_lexer_was_not_checked_on_lexes_with_its_own_loop(monkeypatch):
    from pathlib import Path

    from reader.render.code import highlight as hl

    text = Path(hl.__file__).read_text()
    monkeypatch.setattr(hl, "PLAIN_CHARS", 0)
    joined = hl.highlight(text)
    hl._python.cache_clear()
    monkeypatch.setattr(hl, "checked", lambda: False)
    assert hl.highlight(text) == joined and not hl._python.cache_info().currsize


def test_workers_given_the_corpus_lex_with_the_joined_lexer_from_their_first_file(monkeypatch, tmp_path):
    """A cold build's highlighting: more than PLAIN_CHARS a worker, so each builds the joined lexer
    at once instead of first lexing PLAIN_CHARS with pygments' own loop; an edited file does not."""
    from concurrent.futures import Future

    from reader.model import SourceFile
    from reader.render.code import highlight as hl

    class Here:  # runs each task as it is submitted, as a worker would
        def submit(self, fn, *args):
            done: Future[None] = Future()
            done.set_result(fn(*args))
            return done

    text = "def f(x):\n    return x + 1\n"
    monkeypatch.setattr(hl, "PLAIN_CHARS", len(text) - 1)
    for count, built in ((1, True), (2, False)):  # more than one worker's PLAIN_CHARS, not two's
        hl._python.cache_clear()
        monkeypatch.setattr(hl, "_plain", [0])
        cache = Cache(tmp_path / str(count))
        hl.submit_highlighting(Here(), [SourceFile("jax", "m.py", "blob", text)], cache, count)  # type: ignore[arg-type]
        assert bool(hl._python.cache_info().currsize) is built
        assert hl._plain[0] == (hl.PLAIN_CHARS if built else len(text))
        assert kept(hl.HIGHLIGHT, lexed("blob"), cache) == highlight(text)


def test_a_line_of_plain_text_links_as_a_line_with_an_entity_does():
    line = "alpha = beta(gamma, delta)"
    links = [LineLink(8, 4, "#b", 'say "b"'), LineLink(0, 5, "#a"), LineLink(9, 2, "#inside"),
             LineLink(20, 5, "#d"), LineLink(24, 9, "#past"), LineLink(26, 0, "#end"), LineLink(13, 0, "#empty")]
    plain = link_line(line, links)
    assert plain.startswith('<a href="#a">alpha</a> = <a href="#b" title="say &quot;b&quot;">beta</a>(')
    assert '#inside' not in plain and '#past' not in plain and '#end' not in plain
    # an entity after the links sends the line down the segments' path: the same links
    assert link_line(line + "&amp;", links) == plain + "&amp;"
    assert link_line("", links) == ""


def test_a_hidden_character_is_found_in_ascii_text_as_in_any_other():
    from reader.render.code.highlight import _HIDDEN_RE, _has_hidden

    for code in [*range(0x100), 0x200B, 0x202E, 0x2066, 0xFEFF, 0xE0041, 0x1F600]:
        for text in (chr(code), f"x = 1\n\ty = '{chr(code)}'\r\n", f"é{chr(code)}"):
            assert _has_hidden(text) == (_HIDDEN_RE.search(text) is not None), (hex(code), text)
    assert not _has_hidden("def f():\n\treturn 1\n") and _has_hidden("a\rb") and _has_hidden("\x7f")
    assert hidden_characters("ok = 1\nbad = '\x1b'\n") == [(2, "U+001B CONTROL CHARACTER")]
