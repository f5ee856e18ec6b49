"""Theme stencils are verified on every page they fill: a layout that depends on something else
of a page (here a theme override standing in for a material upgrade) renders that page for real."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import reader.mkdocs_plugin
from reader.site import build_site
from tests.conftest import REPO_ROOT, make_upstream, write_project
from tests.test_site import TRACK

FILES = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)}


def _project(tmp_path: Path, main_html: str) -> Path:
    """Five source files, m0 in the nav, m1..m4 outside it; the theme's main.html overridden."""
    upstream = make_upstream(tmp_path / "upstream", [FILES])
    root = write_project(tmp_path / "project", "small", upstream.url, upstream.commits[0], FILES)
    config = (REPO_ROOT / "mkdocs.yml").read_text()
    assert "  name: material\n" in config
    (root / "mkdocs.yml").write_text(config.replace("  name: material\n",
                                                    "  name: material\n  custom_dir: overrides\n"))
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "overrides").mkdir()
    (root / "overrides/main.html").write_text(
        '{% extends "base.html" %}\n{% block content %}{{ super() }}' + main_html + "{% endblock %}\n")
    (root / "track.yaml").write_text(TRACK.replace("pkg/call.py", "pkg/m0.py"))
    return root


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _both(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Build with stencils and without; the sites must be equal. (rendered, filled) of the first."""
    report = build_site(root, tmp_path / "stencilled", jobs=1)
    with monkeypatch.context() as m:
        m.setattr(reader.mkdocs_plugin, "eligible", lambda page, html: False)
        plain = build_site(root, tmp_path / "plain", jobs=1)
    assert plain.count("layout")[1] == 0
    assert _files(tmp_path / "stencilled") == _files(tmp_path / "plain")
    return report.count("layout")


def test_a_layout_that_tests_the_content_fills_the_source_pages_that_test_alike(tmp_path, monkeypatch):
    # A source page's content is its title and the slot its code goes into after the layout ran:
    # m2's code defines f2, but the layout's test reads the same on m1..m4, so m2..m4 are filled.
    root = _project(tmp_path, '{% if "f2" in page.content %}<p id="two">two</p>{% endif %}')
    _rendered, filled = _both(root, tmp_path, monkeypatch)
    assert filled == 3
    site = tmp_path / "stencilled/source/pkg"
    assert "f2" in (site / "m2.py.html").read_text()
    assert not any('<p id="two">' in (site / f"m{i}.py.html").read_text() for i in range(1, 5))


def test_a_layout_that_reads_the_pages_own_file_fills_none(tmp_path, monkeypatch):
    root = _project(tmp_path, '{% if page.file.src_uri.endswith("m3.py.md") %}<p id="m3">m3</p>{% endif %}')
    _rendered, filled = _both(root, tmp_path, monkeypatch)
    assert filled == 0  # each page's own src_uri: no page reads what m1 read
    assert '<p id="m3">' in (tmp_path / "stencilled/source/pkg/m3.py.html").read_text()


def test_a_layout_that_transforms_the_title_makes_no_stencil(tmp_path, monkeypatch):
    root = _project(tmp_path, '{% if page.title.upper().endswith("M3.PY") %}<p id="m3">m3</p>{% endif %}')
    _rendered, filled = _both(root, tmp_path, monkeypatch)
    assert filled == 0  # a method of the title: its result is not recorded, so nothing is filled
    assert '<p id="m3">' in (tmp_path / "stencilled/source/pkg/m3.py.html").read_text()


def test_the_stock_layout_fills_every_page_after_the_first_of_a_folder(tmp_path, monkeypatch):
    root = _project(tmp_path, "")
    _rendered, filled = _both(root, tmp_path, monkeypatch)
    assert filled == 3  # m2..m4


def test_the_layout_is_compacted_and_the_pages_body_is_kept_as_rendered():
    """The theme's indentation goes (a run of white space holding a line break is one line break),
    `<pre>`, `<script>`, `<textarea>` and `<style>` keep theirs; a page's body is filled in after."""
    from reader.mkdocs_plugin import compact

    layout = ('<nav>\n    <ul>\n      <li>\n        <a href="x.html">\n          X\n        </a>\n'
              '      </li>\n    </ul>\n  </nav>\n  <pre>a\n    b</pre>\n  <script>if (a)\n    b();</script>'
              '<style>\n  p {}\n</style>  <textarea>\n  kept</textarea>')
    assert compact(layout) == ('<nav>\n<ul>\n<li>\n<a href="x.html">\nX\n</a>\n</li>\n</ul>\n</nav>\n'
                               '<pre>a\n    b</pre>\n<script>if (a)\n    b();</script><style>\n  p {}\n'
                               '</style>  <textarea>\n  kept</textarea>')



def test_compact_joins_each_run_of_white_space_holding_a_line_break_as_the_regex_does():
    """`compact`'s text between kept tags, by lines, is `re.sub(r"[ \t]*\n[ \t\n]*", "\n", ...)`:
    at the ends, blank lines, no-break and other white space (kept), random runs."""
    import random
    import re

    from reader.mkdocs_plugin import _one_break

    def reference(text: str) -> str:
        return re.sub(r"[ \t]*\n[ \t\n]*", "\n", text)
    cases = ["", "a", "\n", " \n ", "\n\n", "a \n \n b", "  a  b  ", " \t\n\t x \n", "x\n", "\nx",
             "a\t\n\tb\n \n", "a\xa0\n\xa0b", "a\r\n b", "\f\n\v", "  \n  \n  "]
    rng = random.Random(39)
    cases += ["".join(rng.choice(" \t\n\n ab\xa0\r") for _ in range(rng.randrange(30))) for _ in range(3000)]
    for text in cases:
        assert _one_break(text) == reference(text), repr(text)


def test_each_distinct_config_of_the_theme_is_made_lean_once(monkeypatch):
    """`shared_scripts` drops material's search from a page's config; pages of the same config
    (most of a site's ~1,500 pages share one of a few) read and write its JSON once."""
    import json

    from reader import mkdocs_plugin

    loads = []
    monkeypatch.setattr(mkdocs_plugin, "json", type("J", (), {"loads": staticmethod(
        lambda text: loads.append(text) or json.loads(text))}))
    mkdocs_plugin._lean_config.cache_clear()
    config = {"base": "..", "search": "x.js", "translations": {"search.a": "A", "clipboard.b": "B"}}
    page = f'<p>x</p><script id="__config" type="application/json">{json.dumps(config)}</script>'
    lean = '<p>x</p><script id="__config" type="application/json">{"base": "..", "translations": {"clipboard.b": "B"}}</script>'
    for dest in ("a/x.html", "b/y.html", "a/z.html"):
        assert mkdocs_plugin.shared_scripts(page, dest) == lean
    assert len(loads) == 1
    mkdocs_plugin.shared_scripts(page.replace('".."', '"."'), "x.html")
    assert len(loads) == 2


def test_pages_of_the_same_markdown_without_links_are_converted_once_into_the_same_site(tmp_path, monkeypatch):
    """mkdocs converts each page's Markdown with a converter of its own; the source pages' (their
    anchor and slot: no link) is converted once and every page gets the same HTML and ids."""
    from mkdocs.structure.pages import Page

    root = _project(tmp_path, "")
    converted: list[str] = []
    real = Page.render
    monkeypatch.setattr(Page, "render", lambda page, config, files: converted.append(page.file.src_uri)
                        or real(page, config, files))
    build_site(root, tmp_path / "once", jobs=1)
    sources = [uri for uri in converted if uri.startswith("source/pkg/")]
    assert len(sources) == 1
    converted.clear()
    with monkeypatch.context() as m:
        m.setattr(reader.mkdocs_plugin, "_LINKING", re.compile(""))  # every page's Markdown may link
        build_site(root, tmp_path / "each", jobs=1)
    assert len([uri for uri in converted if uri.startswith("source/pkg/")]) == 5
    assert _files(tmp_path / "once") == _files(tmp_path / "each")
