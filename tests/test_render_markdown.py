"""Notes and prose are Markdown rendered safely: nothing in them can execute."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from reader.render.common.markdown import render_markdown

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src="x" onerror="alert(1)">',
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD4=)",
    "![img](javascript:alert(1))",
    '<div onclick="alert(1)">x</div>',
    "<iframe src=//evil.example></iframe>",
    "<style>body{display:none}</style>",
    '[x](https://ok.example "t" onmouseover="alert(1)")',
]


class _Elements(HTMLParser):
    """Every element and attribute a browser would build from the HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))


def elements(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.elements


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_never_executes(text):
    for tag, attrs in elements(render_markdown(text)):
        assert tag not in ("script", "iframe", "style", "object", "embed"), text
        assert not any(k.startswith("on") for k in attrs), (text, attrs)
        for key in ("href", "src"):
            value = attrs.get(key, "").strip().lower()
            assert not value.startswith(("javascript:", "data:", "vbscript:")), (text, attrs)


def test_raw_html_is_shown_as_text():
    out = render_markdown("Use <b>bold</b> and <script>x</script>.")
    assert "&lt;b&gt;bold&lt;/b&gt;" in out and "&lt;script&gt;" in out


def test_markdown_formatting_and_safe_links_survive():
    out = render_markdown("**b** `c < d` [rel](../a.html#L3) [web](https://example.org)\n\n- item")
    assert "<strong>b</strong>" in out and "<code>c &lt; d</code>" in out
    assert 'href="../a.html#L3"' in out and 'href="https://example.org"' in out
    assert "<li>item</li>" in out


def test_inline_and_display_math_become_arithmatex_markup():
    out = render_markdown("Each of $N$ rows:\n\n$$\\ell = \\sum_j e^{s_j - m}$$\n")
    assert '<span class="arithmatex">\\(N\\)</span>' in out
    assert '<div class="arithmatex">\\[\\ell = \\sum_j e^{s_j - m}\\]</div>' in out


def test_display_equations_on_consecutive_lines_stay_separate():
    out = render_markdown("Then:\n$$a = 1 \\qquad (1)$$\n$$b = 2 \\qquad (2)$$\nso on.")
    assert out.count('<div class="arithmatex">') == 2
    assert "\\[a = 1 \\qquad (1)\\]</div>" in out and "\\[b = 2 \\qquad (2)\\]</div>" in out
    assert "<p>so on.</p>" in out


def test_math_in_code_stays_literal():
    out = render_markdown("`$x$` and ``a $$b$$``\n\n```\n$$c$$\n$d$\n```\n")
    assert "arithmatex" not in out
    assert "<code>$x$</code>" in out and "$$c$$\n$d$" in out


def test_a_dollar_amount_is_not_math():
    assert "arithmatex" not in render_markdown("It costs $5 and $6 more.")


def test_markup_inside_math_is_text():
    out = render_markdown('$x < y$ and $<script>alert(1)</script>$ and $<img src=x onerror="a()">$')
    assert "<script" not in out and "<img" not in out
    assert out.count('class="arithmatex"') == 3 and "\\(x &lt; y\\)" in out


def test_headings_get_ids_that_no_line_or_note_uses():
    out = render_markdown("## Note 3\n\ntext\n\n### L12\n")
    assert '<h2 id="h-note-3">Note 3</h2>' in out and '<h3 id="h-l12">L12</h3>' in out
