"""The mkdocs plugin `reader`: generates every page at build time, so `mkdocs build`/`serve` work too."""

from __future__ import annotations

import json
import logging
import posixpath
import re
from functools import cache, partial
from pathlib import Path
from typing import NamedTuple

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page as MkPage
from mkdocs.structure.toc import get_toc

from reader import __version__
from reader.cache import Cache
from reader.editions import Switcher
from reader.errors import ReaderError
from reader.minify import NOT_MINIFIED, Part, esbuild, minify
from reader.opening import open_project
from reader.progress import Stage, stage
from reader.render.common.model import SLOT, Slot
from reader.render.common.templates import compiled_in
from reader.render.common.toc import toc_tokens
from reader.render.recipe.generate import generate_site
from reader.render.track.navigation import Generated, nav_pages
from reader.stencil import TEMPLATE, Stencils, eligible
from reader.versions import code_version, library_versions

log = logging.getLogger("mkdocs.plugins.reader")


class ReaderConfig(Config):
    track = c.Type(str, default="track.yaml")
    """The outline, relative to mkdocs.yml."""
    jobs = c.Type(int, default=0)
    """Worker processes for rendering; 0 means one per core."""


class ReaderPlugin(BasePlugin[ReaderConfig]):
    """Adds the generated pages as in-memory files and puts each page's HTML in its slot."""

    def __init__(self) -> None:
        self.generated: Generated | None = None
        self.preloaded: Generated | None = None
        """Set by `reader build`, which generates the pages before mkdocs runs."""
        self.bodies: dict[str, str] = {}
        self.slots: dict[str, Slot] = {}
        """src_uri -> (output file, URL, byte offset of the page's HTML in it): `reader.site_patch`."""
        self.contents: dict[str, str] = {}
        """src_uri -> mkdocs' HTML of a page whose toc is read from its whole HTML."""
        self.stencils = Stencils()
        self.converted: dict[str, _Converted | None] = {}
        """The Markdown of generated pages without links, converted (`on_page_markdown`); None:
        its conversion has a table of contents or a title, which is the page's own."""
        self.laying_out: Stage | None = None
        """Pages through the theme (a stage of `reader build`'s progress)."""
        self.switcher: Switcher | None = None
        """Set by `reader build` when the site has older editions: every page's version switcher."""
        self.cache: Cache | None = None
        """Set by `reader build`: its cache, inside the build's staging (a failed build keeps nothing)."""
        self.bundled: dict[str, list[str]] = {}
        """`BUNDLE_CSS` and `BUNDLE_JS`: the files each is made of (mkdocs.yml's lists)."""
        self.notes: list[str] = []
        """What the build should tell the track's author (the bundles not minified)."""
        self.shared: frozenset[str] = frozenset()
        """An older edition's build: the theme's and docs/'s files it links in the site's root
        (the current edition's copy) instead of writing its own."""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """The footer of every page names what built it (the versions every cache key holds); the
        site's own stylesheets and scripts (mkdocs.yml's `extra_css`, `extra_javascript`) are
        linked as one of each, `BUNDLE`s of them in their order (`on_files` makes them)."""
        config.copyright = " ".join(filter(None, (config.copyright, built_with())))
        self.bundled = {BUNDLE_CSS: [str(p) for p in config.extra_css],
                        BUNDLE_JS: [str(p) for p in config.extra_javascript]}
        config.extra_css = [BUNDLE_CSS] if config.extra_css else []
        config.extra_javascript = [BUNDLE_JS] if config.extra_javascript else []
        return config

    def on_env(self, env, /, *, config: MkDocsConfig, files: Files):
        """The theme's templates compile once, not on every build (jinja checks their source);
        and the stencils join the theme's environment."""
        if env.bytecode_cache is None:
            env.bytecode_cache = compiled_in(self.cache or Cache())
        self.stencils = Stencils()
        self.laying_out = stage("laying out pages", len(files.documentation_pages()))
        return self.stencils.install(env)

    def on_page_markdown(self, markdown: str, /, *, page: MkPage, config: MkDocsConfig,
                         files: Files) -> str:
        """A generated page whose Markdown holds no link (a source page's: its anchor and its
        slot) is converted once per distinct text: mkdocs sets up a converter with its extensions
        for every page, which cost more than the conversion (1 ms a page)."""
        if page.file.src_uri in self.bodies and not _LINKING.search(markdown):
            page.render = partial(_render_once, self.converted, page)  # type: ignore[method-assign]
        return markdown

    def on_page_content(self, html: str, /, *, page: MkPage, config: MkDocsConfig,
                        files: Files) -> str:
        """A generated page's toc comes from its whole HTML (mkdocs saw only the indexed part),
        unless the page hides it; a page whose layout is its folder's stencil is rendered by
        filling the stencil in."""
        body = self.bodies.get(page.file.src_uri)
        if body is not None and "toc" not in (page.meta.get("hide") or ()):
            page.toc = get_toc(toc_tokens(html.replace(SLOT, body, 1)))
            self.contents[page.file.src_uri] = html
        if body is not None and "template" not in page.meta and eligible(page, html):
            page.meta["template"] = TEMPLATE
        return html

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        root = Path(config.config_file_path or "mkdocs.yml").resolve().parent
        try:
            self.generated = self.preloaded or generate_site(open_project(root, Cache()), self.config.track,
                                                             self.config.jobs or None)
        except ReaderError as e:
            raise PluginError(f"reader: {e}") from None
        tool = esbuild(root)
        bundle(files, config, self.bundled, tool)
        self.notes = [] if tool is not None or not any(self.bundled.values()) else [NOT_MINIFIED]
        for dest, data in THEME_SCRIPTS.items():
            files.append(File.generated(config, dest, content=data, inclusion=InclusionLevel.NOT_IN_NAV))
        self.shared = frozenset(_leave_out(files, self.switcher is not None and bool(self.switcher.here.folder)))
        in_nav = nav_pages(self.generated.nav)
        self.bodies, self.slots, self.contents, self.converted = {}, {}, {}, {}
        for page in self.generated.pages:
            level = InclusionLevel.INCLUDED if page.src_uri in in_nav else InclusionLevel.NOT_IN_NAV
            file = File.generated(config, page.src_uri, content=page.markdown, inclusion=level)
            files.append(file)
            self.bodies[page.src_uri] = page.html
        for asset in self.generated.assets:
            files.append(File.generated(config, asset.src_uri, content=asset.data,
                                        inclusion=InclusionLevel.NOT_IN_NAV))
        for warning in self.generated.warnings:
            log.info("reader: %s", warning)
        if self.preloaded is None:  # `mkdocs build`/`serve`: a failed lab is a warning (strict fails)
            for failure in self.generated.failures:
                log.warning("reader: %s", failure)
        config.nav = list(self.generated.nav)
        log.info("reader: generated %d pages", len(self.generated.pages))
        return files

    def on_serve(self, server, /, *, config: MkDocsConfig, builder):
        """`mkdocs serve` rebuilds when the outline, an annotation file or a lab changes."""
        root = Path(config.config_file_path or "mkdocs.yml").resolve().parent
        for path in (root / self.config.track, root / "annotations", root / "kernels", root / "pins.toml"):
            if path.exists():
                server.watch(str(path))
        return server

    def on_post_template(self, output_content: str, /, *, template_name: str,
                         config: MkDocsConfig) -> str:
        """The theme's own pages (404.html) link the theme's shared scripts as every page does."""
        return shared_scripts(output_content, template_name) if template_name.endswith(".html") else output_content

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self.laying_out is not None:
            self.laying_out.close()
        if not config.site_url:
            relative_404(Path(config.site_dir) / "404.html")

    def on_post_page(self, output: str, /, *, page: MkPage, config: MkDocsConfig) -> str:
        if self.laying_out is not None:
            self.laying_out.advance()
        if self.switcher is not None:
            output = self.switcher.mark(output, page.file.dest_uri)
            if self.shared:
                output = _to_shared(output, page.file.dest_uri, self.shared, self.switcher.here.folder)
        output = shared_scripts(output, page.file.dest_uri)
        body = self.bodies.get(page.file.src_uri)
        if body is None:
            return compact(output)
        if SLOT not in output:
            raise PluginError(f"reader: the page {page.file.src_uri} lost its content slot")
        output = compact(_SKIP.sub(_SKIP_LINK, output, count=1))  # the layout's; the body is not in yet
        head = output[:output.index(SLOT)].encode("utf-8", errors="xmlcharrefreplace")
        self.slots[page.file.src_uri] = Slot(page.file.dest_uri, page.file.url, len(head))
        return output.replace(SLOT, body, 1)


_LINKING = re.compile(r"\[|<[a-z]+:|\bhttps?:")
"""What could make a page's Markdown convert differently on another page: a link or an image
(`[...](...)`, `[...][ref]`), an autolink (`<https://...>`), a bare URL."""


class _Converted(NamedTuple):
    content: str
    anchors: frozenset[str]
    links: bool
    """Whether mkdocs recorded the page's links to anchors (an empty record: there are none)."""


def _render_once(converted: dict[str, _Converted | None], page: MkPage, config: MkDocsConfig,
                 files: Files) -> None:
    """`page.render`, or what it gave for a page of the same Markdown: its HTML, no table of
    contents and no title of its own, its ids."""
    assert page.markdown is not None
    done = converted.get(page.markdown)
    if done is None:
        MkPage.render(page, config, files)
        if page.markdown not in converted:
            ok = not page.toc.items and page._title_from_render is None and not page.links_to_anchors
            converted[page.markdown] = _Converted(page.content or "", frozenset(page.present_anchor_ids or ()),
                                                  page.links_to_anchors is not None) if ok else None
        return
    page.content, page.toc, page._title_from_render = done.content, get_toc([]), None
    page.present_anchor_ids = set(done.anchors)
    if done.links:
        page.links_to_anchors = {}


BUNDLE_CSS, BUNDLE_JS = "assets/bundle.css", "assets/bundle.js"
"""The site's own stylesheets in one file, and its scripts in another: one link and one script tag
a page instead of 11 and 17 (their tags were 2.5 MB of the site's ~1,500 pages)."""


def bundle(files: Files, config: MkDocsConfig, parts: dict[str, list[str]], tool: Path | None) -> None:
    """Each bundle made of its parts (docs/ files, in order), which leave the build: a page loads
    the same code in the same order from one file, minified by esbuild (`tool`) with its source
    map beside it, or as written without it. A script that finds the site's folder from its own
    URL (`currentScript`) reads any `assets/*.js` name, its bundle's among them."""
    for dest, names in parts.items():
        found = []
        for name in names:
            file = files.get_file_from_path(name)
            if file is None or file.abs_src_path is None:
                raise PluginError(f"reader: mkdocs.yml lists {name}, which docs/ lacks")
            found.append(Part(posixpath.join(Path(config.docs_dir).name, name), Path(file.abs_src_path)))
            files.remove(file)
        if not found:
            continue
        if tool is not None:
            try:
                made = minify(tool, dest, found)
            except ReaderError as e:
                raise PluginError(f"reader: {e}") from None
            files.append(File.generated(config, dest, content=made.code, inclusion=InclusionLevel.NOT_IN_NAV))
            files.append(File.generated(config, f"{dest}.map", content=made.map, inclusion=InclusionLevel.NOT_IN_NAV))
            continue
        sep = b"\n" if dest.endswith(".css") else b"\n;\n"  # a script's last statement ended
        data = sep.join(part.path.read_bytes().rstrip(b"\n") for part in found) + b"\n"
        files.append(File.generated(config, dest, content=data, inclusion=InclusionLevel.NOT_IN_NAV))


def _theme_script(partial: str) -> str:
    """A script of material's partials as it writes it into a page (its comment left out)."""
    import material

    text = (Path(material.__file__).parent / "templates" / partial).read_text(encoding="utf-8")
    return re.sub(r"\{#.*?#\}", "", text, flags=re.S).strip()


_BASE = _theme_script("partials/javascripts/base.html")
"""Its head's script: `__md_scope` (the page's root, `{{ ... }}` in the partial) and the
localStorage helpers, which are the same on every page."""
_OPEN, _AFTER = _BASE[:_BASE.index("{{")], '",location),'
_HELPERS = _BASE[_BASE.index("}}") + 2:].removeprefix(_AFTER).removesuffix("</script>")
_PALETTE = _theme_script("partials/javascripts/palette.html")
"""Its header's script setting the page's colours from the reader's choice: the same on every page."""
THEME_SCRIPTS = {"assets/theme-base.js": f"{_HELPERS};\n".encode(),
                 "assets/theme-palette.js": (_PALETTE.removeprefix("<script>").removesuffix("</script>") + "\n").encode()}
"""material's scripts that every page repeated inline (1 KB a page), as files the pages link."""
_SCOPE = re.compile(re.escape(_OPEN) + r'([^"<]*)' + re.escape(_AFTER + _HELPERS + "</script>"))
_CONFIG = re.compile(r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S)


def shared_scripts(output: str, dest: str) -> str:
    """A page with material's inline scripts that are the same on every page linked from
    `THEME_SCRIPTS` instead (each where it was: the head's, the palette's), and its config
    without the strings and the worker of material's search, which no page has (reader's own)."""
    up = posixpath.relpath("assets", posixpath.dirname(dest) or ".")
    base, palette = (f'<script src="{up}/{name.removeprefix("assets/")}"></script>' for name in THEME_SCRIPTS)
    output, found = _SCOPE.subn(lambda m: f'{_OPEN}{m[1]}",location)</script>{base}', output, count=1)
    if found:  # the palette's script uses the helpers
        output = output.replace(_PALETTE, palette, 1)
    return _CONFIG.sub(lambda m: m[1] + _lean_config(m[2]) + m[3], output, count=1)


@cache
def _lean_config(text: str) -> str:
    """The config's JSON without material's search: once per distinct config (a site's pages
    have a few, by their depth), not once a page."""
    from jinja2.utils import htmlsafe_json_dumps

    config = json.loads(text)
    config.pop("search", None)
    config["translations"] = {k: v for k, v in config.get("translations", {}).items()
                              if not k.startswith("search.")}
    return str(htmlsafe_json_dumps(config, sort_keys=True))


UNLOADED = re.compile(r"assets/javascripts/(?:lunr|workers)/|\.map$")
"""The theme's files nothing loads: lunr and its languages, the search worker (the search is
reader's own: no page has material's search component), the source maps."""


def _leave_out(files: Files, older: bool) -> list[str]:
    """Remove from the build the theme's files nothing loads and, in an older edition's build, every
    file neither reader generated (the bundles, whose scripts locate their edition's data by
    their own URL, are each edition's own) nor locates its edition's data so (`currentScript`):
    the edition's pages link the site root's copy of those. The output paths an older edition
    leaves to the root's copy."""
    shared = []
    for file in list(files):
        if file.generated_by is not None:
            continue
        if UNLOADED.search(file.dest_uri):
            files.remove(file)
        elif older and not _locates_itself(file):
            files.remove(file)
            shared.append(file.dest_uri)
    return shared


def _locates_itself(file: File) -> bool:
    """A script that finds its site's folder from its own URL, so each edition needs its own."""
    return file.dest_uri.endswith(".js") and b"document.currentScript" in Path(file.abs_src_path or "").read_bytes()


_RELATIVE = re.compile(r'((?:href|src)=")(?![a-z][a-z0-9+.-]*:|/|#)([^"#?]+)')


def _to_shared(output: str, dest: str, shared: frozenset[str], folder: str) -> str:
    """An older edition's page (`dest` in its build) with its links to `shared` files pointing to
    the site root's copy: `folder` (`0.10.2/`) up."""
    here, up = posixpath.dirname(dest), "../" * folder.count("/")

    def rewrite(m: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(here, m.group(2)))
        return f"{m.group(1)}{up}{m.group(2)}" if target in shared else m.group(0)
    return _RELATIVE.sub(rewrite, output)


_KEPT = re.compile(r"(<(pre|script|textarea|style)\b.*?</\2>)", re.S)


def compact(layout: str) -> str:
    """The theme's layout with each run of white space that holds a line break as one line break
    (its templates' indentation: a sixth of the site's HTML), which renders the same; `<pre>`,
    `<script>`, `<textarea>` and `<style>` are kept as they are."""
    parts = _KEPT.split(layout)  # [text, kept, its tag's name, text, kept, its tag's name, ..., text]
    return "".join(_one_break(part) if i % 3 == 0 else part
                   for i, part in enumerate(parts) if i % 3 != 2)


def _one_break(text: str) -> str:
    """`text` with each run of spaces, tabs and line breaks that holds a line break as one line
    break: `re.sub(r"[ \t]*\n[ \t\n]*", "\n", text)`, by lines (twice as fast: the regex tried
    every character of the site's layouts)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    inner = [kept for line in lines[1:-1] if (kept := line.strip(" \t"))]  # blank lines join the run
    inner.append(lines[-1].lstrip(" \t"))
    return lines[0].rstrip(" \t") + "\n" + "\n".join(inner)


_ROOTED = re.compile(r'((?:href|src)=")/(?!/)')


def relative_404(page: Path) -> None:
    """mkdocs' 404 page names its assets from the server's root (`/assets/...`), unstyled under a
    subpath or from file://; with no site URL known, they are made relative to the site's folder
    (where the page lies; `reader serve` gives it a base when it answers a deeper path)."""
    if not page.is_file():
        return
    text = _ROOTED.sub(r"\1", page.read_text(encoding="utf-8"))
    page.write_text(text.replace('"base": "/"', '"base": "."', 1), encoding="utf-8")


_SKIP = re.compile(r'(<div data-md-component="skip">).*?(</div>)', re.S)
_SKIP_LINK = r'\1<a href="#rd-main" class="md-skip">Skip to content</a>\2'
"""Every generated page's skip link lands where its content begins (page.md.j2's `#rd-main`): on
pages without a table of contents material makes none, and on the others it skipped to the first
heading (an article's code, past its introduction)."""


def built_with() -> str:
    """`Built by reader 0.1.0 (code <version>) with CPython 3.12.1, libcst 1.9.0, ...`."""
    versions = ", ".join(f"{name} {version}" if name != "Python" else version
                         for name, version in library_versions().items())
    return f"Built by reader {__version__} (code {code_version()}) with {versions}."
