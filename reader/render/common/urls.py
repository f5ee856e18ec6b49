"""Where each page of the site lives, and relative links between pages (the site works as plain files)."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache


def source_page(path: str) -> str:
    """The Markdown source (`src_uri`) of a pinned or lab file's page: `source/jax/_src/pallas/core.py.md`."""
    return f"source/{path}.md"


def article_page(slug: str) -> str:
    return f"articles/{slug}.md"


def diff_page(path: str) -> str:
    """The diff page of a pinned file: `diffs/jax/_src/pallas/core.py.md`."""
    return f"diffs/{path}.md"


def move_uri(stem: str) -> str:
    """The page of a recorded pin move (`moves/<stem>.json`): `changes/<stem>.md`."""
    return f"changes/{stem}.md"


def lab_page(name: str) -> str:
    return f"labs/{name}.md"


def lab_notebook(name: str) -> str:
    """The lab's notebook on the site, beside its page (reader/labs/notebook.py)."""
    return f"labs/{name}.ipynb"


def phase_page(number: int) -> str:
    return f"phase-{number}/index.md"


HOME = "index.md"
RULES = "lowering-rules.md"
SOURCE_INDEX = "source/index.md"
LABS_INDEX = "labs/index.md"


def html_of(src_uri: str) -> str:
    """The built file of a page: `x/y.md` -> `x/y.html` (mkdocs with `use_directory_urls: false`)."""
    return src_uri.removesuffix(".md") + ".html"


def rel(from_src: str, to_src: str, fragment: str = "") -> str:
    """A relative link from page `from_src` to page `to_src` (both `src_uri`), with an optional `#fragment`."""
    link = "" if to_src == from_src and fragment else _relpath(from_src, to_src)
    return f"{link}#{fragment}" if fragment else link


@lru_cache(maxsize=65536)
def _relpath(from_src: str, to_src: str) -> str:
    return posixpath.relpath(html_of(to_src), posixpath.dirname(html_of(from_src)) or ".")


def rel_file(from_src: str, path: str) -> str:
    """A relative link from page `from_src` to a plain file of the site (an image)."""
    return posixpath.relpath(path, posixpath.dirname(html_of(from_src)) or ".")


def slugify(text: str) -> str:
    """A URL name from a title: lower-case words joined by '-'."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words[:8]) or "page"


def line_id(number: int, prefix: str = "") -> str:
    """The anchor of a source line: `L12`, or `core-L12` for a second file shown on one page."""
    return f"{prefix}L{number}"
