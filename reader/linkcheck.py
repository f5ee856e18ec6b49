"""Internal link check over a built site: every relative href reaches a file, every #fragment an id."""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Attributes of tags only: `<` starts a tag (in text it is `&lt;`), so a note that shows
# `<a href="x">` as text is not taken for a link.
_ID_RE = re.compile(r"""<[A-Za-z][^<>]*?\s(?:id|name)=["']([^"']+)["']""")
_HREF_RE = re.compile(r"""<[A-Za-z][^<>]*?\s(?:href|src)=["']([^"']*)["']""")


@dataclass(frozen=True, order=True)
class BrokenLink:
    page: str
    href: str
    reason: str

    def __str__(self) -> str:
        return f"{self.page}: {self.href} ({self.reason})"


def _internal(href: str) -> bool:
    parts = urlsplit(href)
    return not (parts.scheme or parts.netloc or href.startswith("//"))


def check_links(site: Path) -> list[BrokenLink]:
    """Every broken internal link in the HTML files under `site`, sorted."""
    pages = {p.relative_to(site).as_posix(): p.read_text(encoding="utf-8", errors="replace")
             for p in site.rglob("*.html")}
    ids: dict[str, set[str]] = {}

    def has_id(page: str, fragment: str) -> bool:
        if page not in ids:
            ids[page] = set(_ID_RE.findall(pages[page])) if page in pages else set()
        return fragment in ids[page]

    broken: list[BrokenLink] = []
    for name, text in pages.items():
        targets: dict[str, str | BrokenLink] = {}
        for raw in _HREF_RE.findall(text):
            href = html.unescape(raw) if "&" in raw else raw
            if href.startswith("#"):  # the common case: a line of this page
                fragment = unquote(href[1:])
                if fragment and not has_id(name, fragment):
                    broken.append(BrokenLink(name, href, f"no id {fragment!r} in {name}"))
                continue
            if not href or not _internal(href):
                continue
            path, _, fragment = href.partition("#")
            if path not in targets:
                targets[path] = _resolve(site, name, href, path.partition("?")[0])
            target = targets[path]
            if isinstance(target, BrokenLink):
                broken.append(target)
                continue
            fragment = unquote(fragment)
            if fragment and target.endswith(".html") and not has_id(target, fragment):
                broken.append(BrokenLink(name, href, f"no id {fragment!r} in {target}"))
    return sorted(set(broken))


def _resolve(site: Path, name: str, href: str, path: str) -> str | BrokenLink:
    """The site file a link's path reaches from page `name`, or why it reaches none."""
    if path.startswith("/"):
        if name != "404.html":  # mkdocs' 404 page is served from the root, by design
            return BrokenLink(name, href, "absolute: breaks the site as plain files")
        target = unquote(path).lstrip("/") or "index.html"
    elif path:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(name), unquote(path)))
    else:
        target = name
    if target.startswith("../") or target == "..":
        return BrokenLink(name, href, "leaves the site")
    if (site / target).is_dir():
        target = posixpath.join(target, "index.html")
    if not (site / target).is_file():
        return BrokenLink(name, href, "no such file")
    return target
