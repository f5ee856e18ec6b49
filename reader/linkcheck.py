"""Internal link check over a built site: every relative href reaches a file, every #fragment an id."""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

_ID_RE = re.compile(r"""\s(?:id|name)=["']([^"']+)["']""")
_HREF_RE = re.compile(r"""\s(?:href|src)=["']([^"']*)["']""")


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
    broken: list[BrokenLink] = []
    for name, text in pages.items():
        for raw in _HREF_RE.findall(text):
            href = html.unescape(raw)
            if not href or not _internal(href):
                continue
            parts = urlsplit(href)
            target = name
            if parts.path.startswith("/"):
                if name != "404.html":  # mkdocs' 404 page is served from the root, by design
                    broken.append(BrokenLink(name, href, "absolute: breaks the site as plain files"))
                    continue
                target = unquote(parts.path).lstrip("/") or "index.html"
            elif parts.path:
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), unquote(parts.path)))
            if target.startswith("../") or target == "..":
                broken.append(BrokenLink(name, href, "leaves the site"))
                continue
            if parts.path:
                if (site / target).is_dir():
                    target = posixpath.join(target, "index.html")
                if not (site / target).is_file():
                    broken.append(BrokenLink(name, href, "no such file"))
                    continue
            fragment = unquote(parts.fragment)
            if fragment and target.endswith(".html"):
                if target not in ids:
                    ids[target] = set(_ID_RE.findall(pages[target])) if target in pages else set()
                if fragment not in ids[target]:
                    broken.append(BrokenLink(name, href, f"no id {fragment!r} in {target}"))
    return sorted(set(broken))
