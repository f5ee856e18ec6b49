"""A generated page's toc is read from its whole HTML: h2 entries with their h3 under them."""

from __future__ import annotations

from reader.render.common.markdown import render_markdown
from reader.render.common.toc import toc_tokens


def test_headings_with_ids_nest_and_headings_without_are_left_out():
    page = ('<div class="rd-indexed">' + render_markdown("## The cost of $N$\n\n### Per block\n")
            + '</div><h2 id="rd-read-main" class="rd-read-title"><code>pkg/call.py</code></h2>'
            + "<h2>no id</h2><h4 id='deep'>too deep</h4><h3 id=\"rd-x\">A &amp; B</h3>"
            + '<!-- <h2 id="old">commented out</h2> --><script>"<h3 id=\'s\'>a string</h3>"</script>')
    tokens = toc_tokens(page)
    assert [(t["id"], t["name"], [c["id"] for c in t["children"]]) for t in tokens] == [
        ("h-the-cost-of-n", "The cost of \\(N\\)", ["h-per-block"]),
        ("rd-read-main", "pkg/call.py", ["rd-x"]),
    ]
    assert tokens[1]["children"][0]["name"] == "A &amp; B"  # escaped once, as mkdocs shows it


def test_a_page_without_headings_has_an_empty_toc():
    assert toc_tokens("<p>text</p>") == []
