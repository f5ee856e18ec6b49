"""Markdown from notes and prose rendered safely: raw HTML is shown as text, the result is sanitised.

Math (`$x$` inline, `$$x$$` on its own line for display) becomes arithmatex's generic markup,
`<span class="arithmatex">\\(x\\)</span>` and `<div class="arithmatex">\\[x\\]</div>`, which survives
sanitising as text; the site's own KaTeX (`docs/assets/katex/`, `docs/assets/math.js`) typesets it
in the browser. Math in a code span or block stays literal.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import nh3

if TYPE_CHECKING:
    import markdown

ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol", "p", "pre", "span", "strong", "sub",
    "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "code": {"class"},
    "span": {"class"},
    "div": {"class"},
    "h2": {"id"},
    "h3": {"id"},
    "h4": {"id"},
    "th": {"align"},
    "td": {"align"},
}
URL_SCHEMES = {"http", "https", "mailto"}


_DISPLAY_LINE = re.compile(r"^\s*\$\$(?:(?!\$\$).)+\$\$\s*$")
"""A line that is one display equation, `$$...$$`, and nothing else."""


def _display_lines(lines: list[str]) -> list[str]:
    """Each line that is one display equation becomes a block of its own, so that consecutive
    equations (one per line, no blank line between) are typeset one under another, not joined.
    Runs after fenced code is stashed away, so a `$$` line in a code block is left alone."""
    out: list[str] = []
    for line in lines:
        if _DISPLAY_LINE.match(line):
            out += [*([""] if out and out[-1].strip() else []), line, ""]
        else:
            out.append(line)
    return out


def _heading_id(value: str, separator: str) -> str:
    """A heading's id, `h-` before its slug: never one of the ids the pages give lines and notes."""
    from markdown.extensions.toc import slugify

    return "h-" + slugify(value, separator)


@lru_cache(maxsize=1)
def _converter() -> markdown.Markdown:
    """The converter, made (and Markdown imported: 35 ms with pymdownx) on the first note or
    prose a process renders: a warm build that renders none does without."""
    import markdown
    from markdown.extensions.fenced_code import FencedCodeExtension
    from markdown.extensions.sane_lists import SaneListExtension
    from markdown.extensions.tables import TableExtension
    from markdown.extensions.toc import TocExtension
    from markdown.preprocessors import Preprocessor
    from pymdownx.arithmatex import ArithmatexExtension

    class DisplayLines(Preprocessor):
        def run(self, lines: list[str]) -> list[str]:
            return _display_lines(lines)

    # Extensions as instances: a name makes Markdown scan every installed package's entry points.
    md = markdown.Markdown(
        extensions=[FencedCodeExtension(), TableExtension(), SaneListExtension(),
                    ArithmatexExtension(generic=True), TocExtension(slugify=_heading_id, toc_depth="2-4")],
        output_format="html")
    # Raw HTML in a note is text, never markup: drop the block and inline HTML handlers.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.preprocessors.register(DisplayLines(md), "reader_display_math", 20)
    return md


def sanitize(html: str) -> str:
    """Keep formatting tags and http(s)/mailto/relative links; drop scripts, handlers, styles."""
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRIBUTES, url_schemes=URL_SCHEMES,
                     link_rel="noopener noreferrer", strip_comments=True)


def render_markdown(text: str) -> str:
    """Markdown -> safe HTML: raw HTML is escaped as text, `javascript:` links and handlers removed."""
    md = _converter()
    md.reset()
    return sanitize(md.convert(text))
