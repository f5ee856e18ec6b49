"""The code view's light markup (render/code/view.py): the lines' HTML keeps their text, links and
hidden-character marks, and the token runs give back every character's class as pygments gave it."""

from __future__ import annotations

import html
import re

import pygments
from pygments.lexers.python import PythonLexer

from reader.packed import RUN_MARK
from reader.render.code.highlight import Highlight, LineLink, css_class, escape_code, highlight
from reader.render.code.runs import decode
from reader.render.code.view import (
    CHUNK,
    KEEP,
    LONG,
    RUN_ON,
    CodeLines,
    MarginNote,
    code_view,
    split_code_view,
)

SOURCE = '''import jax  # a comment
def f(x: int, s="a<b&c") -> "x\u202ey":
    """Doc \U0001f600 string."""
    return x ** 2 + len(s)  # \u2066hidden


class Thing(f):
    pass
'''


def _classes_by_unit(text: str) -> list[list[str]]:
    """Each line's UTF-16 units of text as shown (an invisible character's mark is one), each
    with the class of the pygments token it is in, straight from pygments."""
    lexer = PythonLexer(stripnl=False, stripall=False, ensurenl=False)
    out: list[list[str]] = [[]]
    for ttype, value in pygments.lex(text, lexer):
        cls = css_class(ttype)
        for i, part in enumerate(value.split("\n")):
            if i:
                out.append([])
            for ch in part:
                hidden = escape_code(ch) != html.escape(ch, quote=False)
                out[-1] += ["" if cls == "n" else cls] * (1 if hidden or ord(ch) <= 0xFFFF else 2)
    return out


def _view(page: str) -> tuple[list[str], dict[str, str], list[tuple[str, str]]]:
    head = re.search(r'data-c="([^"]*)" data-t="([^"]*)"', page)
    titles = dict(p.split("\t") for p in html.unescape(head.group(2)).split("\n") if p)
    lines = []
    for runs, rows in re.findall(r'<div class="rd-k" style="--n:\d+" data-h="([^"]*)">(.*?)</div></div>', page):
        bodies = re.findall(r'<div id="L\d+"[^>]*>(.*?)(?=</div>)', rows + "</div>")
        lines += list(zip(runs.split(" "), bodies, strict=True))
    return head.group(1).split(" "), titles, lines


def test_runs_give_back_every_characters_class_and_links_keep_their_titles():
    code = highlight(SOURCE).linked({7: [LineLink(6, 5, "../x.py.html#Thing", "pkg.x.Thing")]})
    lines = code.lines
    page = code_view(CodeLines(code, "", {7: ("Thing",)}))
    classes, titles, shown = _view(page)
    assert len(shown) == len(lines)
    for (runs, body), original, want in zip(shown, lines, _classes_by_unit(SOURCE), strict=False):
        got = []
        for index, length in decode(runs):
            got += [classes[index]] * length
        assert got == want, (runs, original)
        assert html.unescape(re.sub(r"<[^>]*>", "", body)) == html.unescape(re.sub(r"<[^>]*>", "", original))
    assert 'class="rd-hidden"' in shown[1][1] and 'class="rd-hidden"' in shown[3][1]
    assert '<a href="../x.py.html#Thing">Thing</a>' in shown[6][1] and 'title="' not in shown[6][1]
    assert titles == {"../x.py.html#Thing": "pkg.x.Thing"}
    assert '<span class="rd-sym" id="Thing"></span>' in page and "<span class=\"k\">" not in page


def test_chunks_number_their_lines_and_notes_name_their_lines():
    lines = [f"x_{n} = {n}" for n in range(1, 2 * CHUNK + 11)]
    runs = [("", len(line)) for line in lines]
    page = code_view(CodeLines(Highlight(lines, runs), "core-"), [MarginNote(3, 5, "<p>note</p>")])
    starts = re.findall(r'<div id="core-L(\d+)" style="counter-reset:l (\d+)">', page)
    free = 6 + RUN_ON  # the first line after the note's run-on: its chunks take the whole width
    assert starts == [("1", "0"), ("3", "2"), ("6", "5"), (str(free), str(free - 1)),
                      (str(free + CHUNK), str(free + CHUNK - 1))]
    blocks = re.findall(r'<div class="(rd-block[^"]*)"><div class="rd-lines"><div class="rd-k" style="--n:(\d+)"', page)
    assert blocks == [("rd-block rd-free", "2"), ("rd-block rd-noted", "3"), ("rd-block", str(RUN_ON)),
                      ("rd-block rd-free", str(CHUNK))]  # (the free block's first chunk)
    assert '<div class="rd-mn" data-lines="core-L3-L5"><p>note</p></div>' in page
    assert '<button type="button" class="rd-wrap" aria-pressed="true"' in page
    assert page.startswith('<div class="rd-code highlight rd-margin"')
    assert 'rd-margin' not in code_view(CodeLines(Highlight(lines, runs)))


def test_a_link_repeated_keeps_its_title_out_until_its_href_meets_a_second_title():
    tag = '<a href="#A" title="one">a</a>'
    lines = [tag, f"{tag} {tag}", '<a href="#A" title="two">a</a>', tag]
    page = code_view(CodeLines(Highlight(lines, [()] * len(lines))))
    _, titles, shown = _view(page)
    assert [body for _, body in shown] == ['<a href="#A">a</a>', '<a href="#A">a</a> <a href="#A">a</a>',
                                          '<a href="#A" title="two">a</a>', tag]
    assert titles == {}  # two titles for #A: each link from the second on keeps its own


def _split(lines: list[str], rows_src: str = "../rows/x.py.js"):
    runs = [("", len(re.sub(r"<[^>]*>", "", line))) for line in lines]
    return split_code_view(CodeLines(Highlight(lines, runs)), [MarginNote(3, 4, "<p>n</p>")], "x.py", "x.py.js",
                           changed=[2, KEEP + 5], rows_src=rows_src)


def test_a_long_files_rows_past_keep_come_as_a_part_and_its_chunks_stay_sized():
    lines = [f'y = <a href="#L{n}" title="t">v</a> + {n}' for n in range(1, 2 * KEEP + 3)]  # 2 tags + 2 a row
    assert 4 * len(lines) < LONG  # not long: the HTML holds every row, as before
    short = _split(lines)
    assert short.rows == "" and "data-part" not in short.html and "data-i=" not in short.html
    assert short.html == _split(lines, "").html
    lines *= LONG // (4 * len(lines)) + 1
    view = _split(lines)
    kept = [int(n) for n in re.findall(r'<div id="L(\d+)"', view.html)]
    last = kept[-1]  # the first screenfuls' rows: to the end of the chunk holding line KEEP, then none
    assert kept == list(range(1, last + 1)) and KEEP <= last < KEEP + CHUNK
    assert ' id="rd-rows" data-part="../rows/x.py.js"' in view.html
    slots = re.findall(r'<div class="rd-k" style="--n:(\d+)" data-i="(\d+)"></div>', view.html)
    runs = view.rows.split(RUN_MARK)
    assert runs[0] == "" and len(runs) - 1 == len(slots) and [i for _, i in slots] == [str(i) for i in range(len(slots))]
    assert sum(int(n) for n, _ in slots) == len(lines) - last  # each slot sized by its lines
    rows = [re.findall(r'<div id="L(\d+)"[^>]*>(.*?)</div>', run) for run in runs[1:]]
    assert [int(n) for run in rows for n, _ in run] == list(range(last + 1, len(lines) + 1))
    assert all(len(run) == int(n) for run, (n, _) in zip(rows, slots, strict=True))
    assert f'<div id="L{last + 1}" style="counter-reset:l {last}">' in runs[1]
    assert f'<a href="#L{last + 1}">v</a>' in runs[1]  # the titles out, in the paint script's table, as the HTML's
    assert view.script.count('"h":[') == 1 and len(view.script.split('"h":[')[1].split("]")[0].split('","')) == \
        len(re.findall(r'<div class="rd-k"', view.html))  # every chunk's runs, slots' included


def test_a_reports_closed_details_bodies_go_to_a_part_when_they_are_many():
    from reader.packed import read_part
    from reader.render.common.folds import FOLDS_DIR, FOLDS_ID, LEAST, fold_details

    item = "<details><summary>s{}</summary><ul><li><a href=\"#x{}\">x</a></li></ul></details>\n"
    few = "".join(item.format(i, i) for i in range(3)) + "<details open><summary>o</summary><p>kept</p></details>"
    assert fold_details(few, "rep.md", "assets/folds/rep.js").html == few  # few tags: byte for byte
    many = few + "".join(item.format(i, i) for i in range(3, LEAST // 6 + 5))
    folded = fold_details(many, "rep.md", "assets/folds/rep.js")
    assert folded.asset is not None and folded.asset.src_uri == f"{FOLDS_DIR}/rep.js"
    assert '<details data-i="0"><summary>s0</summary></details>' in folded.html
    assert "<details open><summary>o</summary><p>kept</p></details>" in folded.html  # an open one stays
    assert folded.html.endswith(f'<div hidden id="{FOLDS_ID}" data-part="assets/folds/rep.js"></div>')
    bodies = (read_part(folded.asset.data) or "").split(RUN_MARK)
    assert bodies[0] == "" and bodies[4] == '<ul><li><a href="#x3">x</a></li></ul>'
    assert len(bodies) - 1 == many.count("<details>")
