"""Theme stencils: material's layout rendered once per folder, then filled with each page's title
and content, for the pages whose layout differs in nothing else (the pinned files' pages).

Material renders its whole navigation for every page, which is most of what mkdocs spends on the
285 source pages. A page that is not in the nav, has no table of contents, no `<h1>` of its own
and a plain title gets the same layout as its neighbours in the same folder but for the title and
the content. So the first such page of a folder is rendered twice, for real and with two tokens
in place of its title and content; when filling the tokens in gives exactly the real output (and
the layout names nothing of the page), the result is the folder's stencil, and the folder's other
pages are the stencil with their own title and content filled in. Any doubt: the real template.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any

from jinja2 import ChoiceLoader, DictLoader, Environment, pass_context
from jinja2.runtime import Context

TEMPLATE = "reader-stencil.html"
"""The template name a stencilled page's `meta['template']` is set to."""
THEME_TEMPLATE = "main.html"
TITLE = "ReaderStencilTitle5c1e"
CONTENT = "ReaderStencilContent5c1e"
_PLAIN_TITLE = re.compile(r"^[A-Za-z0-9_./ -]+$")


def eligible(page: Any, content: str) -> bool:
    """Whether `page` may share its folder's stencil: not in the nav, no toc, no own `<h1>`, a
    title that no filter of the theme changes."""
    title = page.title or ""
    return (page.parent is None and page.previous_page is None and page.next_page is None
            and not list(page.toc) and "<h1" not in content and TITLE not in content
            and CONTENT not in content and bool(_PLAIN_TITLE.match(title))
            and page.meta.get("title") == title and not page.is_homepage)


class Stencils:
    """The stencils of one build, by folder and front matter; `filled` counts the pages made
    from one."""

    def __init__(self) -> None:
        self.env: Environment | None = None
        self._by_key: dict[tuple[str, str], str | None] = {}
        self.filled = 0

    def install(self, env: Environment) -> Environment:
        """Add the stencil template (and the function it calls) to the theme's environment."""
        own = DictLoader({TEMPLATE: "{{ reader_stencil() }}"})
        env.loader = ChoiceLoader([own, env.loader] if env.loader is not None else [own])
        env.globals["reader_stencil"] = pass_context(lambda ctx: self._render(ctx))
        self.env = env
        return env

    def _render(self, ctx: Context) -> str:
        assert self.env is not None
        page = ctx["page"]
        main = self.env.get_template(THEME_TEMPLATE)
        values = ctx.get_all()
        key = (posixpath.dirname(page.file.src_uri),
               repr(sorted((k, v) for k, v in page.meta.items() if k not in ("title", "template"))))
        if key in self._by_key:
            stencil = self._by_key[key]
            if stencil is not None:
                self.filled += 1
                return fill(stencil, page.title, page.content)
            return main.render(values)
        real = main.render(values)
        self._by_key[key] = _stencil_of(main, values, page, real)
        return real


def _stencil_of(main: Any, values: Mapping[str, Any], page: Any, real: str) -> str | None:
    """`page`'s layout with tokens for its title and content, or None when that is not exactly
    what `page` differs from its neighbours by."""
    meta, content = page.meta, page.content
    page.meta = {**meta, "title": TITLE}
    page.content = CONTENT
    try:
        shell = main.render(values)
    finally:
        page.meta, page.content = meta, content
    own = posixpath.basename(page.url or "")
    if shell.count(CONTENT) != 1 or TITLE not in shell or (own and own in shell):
        return None
    return shell if fill(shell, page.title, content) == real else None


def fill(stencil: str, title: str, content: str) -> str:
    head, _, tail = stencil.partition(CONTENT)
    return f"{head.replace(TITLE, title)}{content}{tail.replace(TITLE, title)}"
