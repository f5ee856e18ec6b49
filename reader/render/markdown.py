"""Markdown from notes and prose rendered safely: raw HTML is shown as text, the result is sanitised."""

from __future__ import annotations

from functools import lru_cache

import markdown
import nh3

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
    "th": {"align"},
    "td": {"align"},
}
URL_SCHEMES = {"http", "https", "mailto"}


@lru_cache(maxsize=1)
def _converter() -> markdown.Markdown:
    md = markdown.Markdown(extensions=["fenced_code", "tables", "sane_lists"], output_format="html")
    # Raw HTML in a note is text, never markup: drop the block and inline HTML handlers.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
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
