"""A generated page's table of contents: its `<h2>`/`<h3>` headings that have an id, in order.

mkdocs builds `page.toc` from the Markdown it reads, which holds only the indexed part of a
generated page; the headings of the whole page (the prose's, and an article's one heading per file
it reads) are in its HTML, so the toc is read from there, by an HTML parser (lexbor)."""

from __future__ import annotations

import html
from typing import Any

from selectolax.lexbor import LexborHTMLParser


def toc_tokens(page_html: str) -> list[Any]:
    """The headings as mkdocs' toc tokens (`mkdocs.structure.toc.get_toc` takes them): each h3
    under the h2 before it."""
    out: list[dict[str, Any]] = []
    for heading in LexborHTMLParser(page_html).css("h2[id], h3[id]"):
        ident, level = heading.attributes.get("id"), 3 if heading.tag == "h3" else 2
        if not ident:
            continue
        token = {"level": level, "id": ident, "name": html.escape(heading.text(deep=True).strip()),
                 "children": []}
        if level == 3 and out:
            out[-1]["children"].append(token)
        else:
            out.append(token)
    return out
