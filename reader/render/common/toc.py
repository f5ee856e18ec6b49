"""A generated page's table of contents: its `<h2>`/`<h3>` headings that have an id, in order.

mkdocs builds `page.toc` from the Markdown it reads, which holds only the indexed part of a
generated page; the headings of the whole page (the prose's, and an article's one heading per file
it reads) are in its HTML, so the toc is read from there."""

from __future__ import annotations

import html
import re
from typing import Any

_HEADING = re.compile(r"<h([23])\b[^>]*?\bid=\"([^\"]+)\"[^>]*>(.*?)</h\1>", re.S)
_TAG = re.compile(r"<[^>]+>")


def toc_tokens(page_html: str) -> list[Any]:
    """The headings as mkdocs' toc tokens (`mkdocs.structure.toc.get_toc` takes them): each h3
    under the h2 before it."""
    out: list[dict[str, Any]] = []
    for level, ident, inner in _HEADING.findall(page_html):
        name = html.unescape(_TAG.sub("", inner)).strip()
        token = {"level": int(level), "id": html.unescape(ident), "name": html.escape(name),
                 "children": []}
        if level == "3" and out:
            out[-1]["children"].append(token)
        else:
            out.append(token)
    return out
