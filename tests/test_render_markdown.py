"""Notes and prose are Markdown rendered safely: nothing in them can execute."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from reader.render.markdown import render_markdown

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
