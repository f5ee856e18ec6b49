"""Untrusted text on the built site: hostile notes, prose and titles render inert, and upstream
lines with invisible or bidirectional control characters (Trojan Source) are visibly marked.

One small project is built for real (`reader build`: mkdocs-material and its theme) and every
HTML page of the result is parsed as a browser would build its elements."""

from __future__ import annotations

import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.small_project import FILES, fetch_and_build, write_small

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '<a href="javascript:alert(3)">three</a>',
    "[four](javascript:alert(4))",
    "[five](data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==)",
    '<iframe src="https://evil.example/6"></iframe>',
    "<svg onload=alert(7)>",
    '<div onclick="alert(8)">eight</div>',
    "![nine](javascript:alert(9))",
    "<style>body{display:none}</style>",
    '[ten](https://ok.example "t" onmouseover="alert(10)")',
    '<a href="jav&#x09;ascript:alert(11)">eleven</a>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(12)>",
    "[thirteen](JaVaScRiPt:alert(13))",
    "<object data=javascript:alert(14)></object><embed src=javascript:alert(15)>",
]
TITLE = "Evil <script>alert(16)</script> <img src=x onerror=alert(17)> & co"
# One of each: bidi embeddings and overrides, isolates, zero-width space/joiners, BOM, soft
# hyphen, a tag character, a combining grapheme joiner, a variation selector.
HIDDEN = ("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\ufeff\u00ad"
          "\U000e0041\u034f\ufe0f")
TROJAN = f'''"""Looks like one thing, reads as another."""


def is_admin(user):
    access = "user"
    if access != "user\u202e \u2066# admin\u2069 \u2066":  # Trojan Source: the comment hides code
        return True
    return False


HIDDEN = "{HIDDEN}"
ZERO_WIDTH = "a\u200bb"  # two letters, one name to the eye
'''


def _indent(text: str, by: int = 2) -> str:
    return "\n".join(" " * by + line for line in text.splitlines())


EVIL = f"""title: {TITLE!r}
slug: evil
phase: 1
kind: article
order: 2
summary: {HOSTILE[0]!r}
reads:
  - path: pkg/trojan.py
intro: |
{_indent(chr(10).join(HOSTILE))}
sections:
  - title: "<b onmouseover=alert(18)>Section</b>"
    body: "{HOSTILE[1]}"
notes:
  - id: evil-note
    symbol: is_admin
    body: |
{_indent(chr(10).join(HOSTILE), 6)}
"""


class Elements(HTMLParser):
    """Every element with its attributes, and the text inside each `<script>` and `<style>`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.code: list[tuple[str, str]] = []
        self._open = ""

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))
        self._open = tag if tag in ("script", "style") else ""

    def handle_endtag(self, tag):
        self._open = ""

    def handle_data(self, data):
        if self._open:
            self.code.append((self._open, data))


def elements(html: str) -> Elements:
    parser = Elements()
    parser.feed(html)
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    small = write_small(tmp_path_factory.mktemp("untrusted"), {**FILES, "pkg/trojan.py": TROJAN})
    (small.root / "annotations" / "evil.yaml").write_text(EVIL)
    track = small.root / "track.yaml"
    track.write_text(track.read_text().replace('title: "Only phase"', f"title: {TITLE!r}"))
    return fetch_and_build(small).root / "site"


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_the_hostile_article_was_built(site):
    article = (site / "articles" / "evil.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in article  # shown as text, not dropped
    assert "Evil &lt;script&gt;alert(16)&lt;/script&gt;" in article
    assert 'id="note-evil-note"' in article


def test_no_page_runs_or_embeds_anything_from_the_notes(site):
    theme = elements((site / "404.html").read_text())
    theme_code = [tag for tag, _ in theme.code]
    for page in pages(site):
        found = elements(page.read_text())
        where = page.relative_to(site)
        for tag, attrs in found.elements:
            assert tag not in ("iframe", "object", "embed", "frame", "base"), (where, tag)
            assert not [k for k in attrs if k.startswith("on")], (where, tag, attrs)
            for key in ("href", "src", "action", "formaction", "data", "xlink:href"):
                url = "".join(attrs.get(key, "").split()).lower()
                assert not url.startswith(("javascript:", "data:", "vbscript:")), (where, tag, attrs)
            if tag == "script" and "src" in attrs:
                assert attrs["src"].split("assets/")[0].strip("./") == "", (where, attrs)
        # the theme's own scripts and styles only: as many as on a page with no content at all
        assert [tag for tag, _ in found.code] == theme_code, where
        for _tag, text in found.code:
            assert "alert(" not in text and "display:none" not in text, where


def test_titles_are_text_in_the_nav_and_the_heading(site):
    for page in pages(site):
        html = page.read_text()
        assert "<script>alert(16)" not in html and "<img src=x" not in html, page
    assert "<h1>Evil &lt;script&gt;alert(16)&lt;/script&gt;" in (site / "articles/evil.html").read_text()


def test_hidden_characters_in_upstream_code_are_marked_visibly(site):
    page = (site / "source" / "pkg" / "trojan.py.html").read_text()
    for ch in HIDDEN:
        assert ch not in page, f"U+{ord(ch):04X} reached the page unmarked"
        label = f"U+{ord(ch):04X} {unicodedata.name(ch)}"
        assert f'<span class="rd-hidden" title="{label}" aria-label="{label}">\u2423</span>' in page
    marks = page.count('<span class="rd-hidden" title="U+')
    assert marks == sum(TROJAN.count(ch) for ch in set(TROJAN) if ch in HIDDEN)
    # the warning above the code counts them and names the lines
    assert f"This file contains {marks} character(s) that display differently" in page
    line_6 = page[page.index('id="L6"'):page.index('id="L7"')]
    assert line_6.count("rd-hidden") == 4 and "# admin" in line_6


def test_hidden_characters_are_marked_on_the_article_too(site):
    article = (site / "articles" / "evil.html").read_text()
    for ch in "\u202e\u2066\u2069":
        assert ch not in article
    assert 'title="U+202E RIGHT-TO-LEFT OVERRIDE"' in article
