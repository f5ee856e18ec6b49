"""Every locked file of every edition accounted for: a file no source serves is named on the build's
output and on the edition's source index, a file another edition's pins serve (the same blob) is
read from there, and the site is the same whatever the cache held before the build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reader.cache import Cache, blob_sha
from reader.cli import main
from reader.corpus import Corpus, Project
from reader.editions import editions
from reader.minify import esbuild
from reader.opening import checkout
from tests.conftest import REPO_ROOT, git
from tests.diff_project import make_demo
from tests.small_project import tree_digest

ADDED, LOST = "ADDED = 1\n", "LOST = 0\n"
TRACK = "title: Demo\nphases:\n  - title: One\n    entries:\n      - article: Demo\n        slug: demo\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The demo moved from v0 to v1, whose v0 lock names two files v0's tree lacks: `added.py`,
    which v1 adds (the same blob), and `lost.py`, which no source has."""
    tmp = tmp_path_factory.mktemp("edition-files")
    env = pytest.MonkeyPatch()
    env.setenv("READER_CACHE", str(tmp / "setup-cache"))
    try:
        _upstream, root = make_demo(tmp, env, ({}, {"jax/_src/pallas/added.py": ADDED}))
        shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
        shutil.copytree(REPO_ROOT / "docs", root / "docs")
        (root / "track.yaml").write_text(TRACK)
        lock = root / "pins.lock"
        lock.write_text(lock.read_text() + "".join(f'"jax/_src/pallas/{name}" = "{blob_sha(text.encode())}"\n'
                                                   for name, text in (("added.py", ADDED), ("lost.py", LOST))))
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "v0's lock names two files its tree lacks")
        assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
        main(["-C", str(root), "accept", "--all"])
        main(["-C", str(root), "diff", "HEAD:pins.toml", "--record", str(root / "moves" / "v1.json")])
    finally:
        env.undo()
    return root


def _build(root: Path, cache: Path, site: Path, monkeypatch, capsys, before: str = "") -> tuple[str, dict[str, str]]:
    """`reader build` into `site` with a cache of its own; `before`: `fetch` (the current pins) or
    `older` (the older edition's pins, the order the build used to take) fetched first."""
    monkeypatch.setenv("READER_CACHE", str(cache))
    monkeypatch.setenv("READER_MIRROR_JAX", str(root.parent / "upstream"))
    if before == "fetch":
        assert main(["-C", str(root), "fetch"]) == 0
    if before == "older":
        older = editions(root)[1]
        Corpus.open(Project.load(checkout(root, older, Cache(cache))), Cache(cache))
    capsys.readouterr()
    assert main(["-C", str(root), "build", "--jobs", "1", "--site", str(site)]) == 0
    return capsys.readouterr().out, tree_digest(site)


def test_a_file_no_source_serves_is_named_and_the_site_is_the_same_whatever_the_cache_held(
        project, tmp_path, monkeypatch, capsys):
    old = editions(project)[1]
    out, straight = _build(project, tmp_path / "c1", tmp_path / "s1", monkeypatch, capsys)
    assert (f"  the {old.version} edition lacks 1 locked file that no source serves (its source index "
            "lists them): jax/_src/pallas/lost.py") in out.splitlines()
    index = (tmp_path / "s1" / old.folder / "source" / "index.html").read_text()
    assert "1 locked file missing" in index and "<code>jax/_src/pallas/lost.py</code>" in index
    assert (tmp_path / "s1" / old.folder / "source/jax/_src/pallas/added.py.html").is_file()
    for n, before in ((2, "fetch"), (3, "older")):
        _, site = _build(project, tmp_path / f"c{n}", tmp_path / f"s{n}", monkeypatch, capsys, before)
        differ = sorted(p for p in straight.keys() | site.keys() if straight.get(p) != site.get(p))
        assert differ == [], (before, differ[:10])


def test_an_older_edition_links_the_sites_one_copy_of_the_theme(project, tmp_path, monkeypatch, capsys):
    """The theme's and docs/'s files are in the site's root once: an older edition's pages link
    them there, except the scripts that find their edition's data from their own URL; the theme's
    files nothing loads (lunr, the search worker, its source maps) are in neither (the site's own
    bundles' maps are)."""
    import re

    old = editions(project)[1]
    _build(project, tmp_path / "cache", tmp_path / "site", monkeypatch, capsys)
    site = tmp_path / "site"
    files = [p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()]
    assert not [f for f in files if "/lunr/" in f or "/workers/" in f
                or (f.endswith(".map") and not f.endswith(("assets/bundle.js.map", "assets/bundle.css.map")))]
    theirs = {f.removeprefix(old.folder) for f in files if f.startswith(old.folder + "assets/")}
    assert "assets/javascripts/bundle." not in " ".join(theirs) and not any("stylesheets" in f for f in theirs)
    assert "assets/bundle.js" in theirs  # its scripts (search.js, cards.js, scope.js) locate the edition's data
    assert "assets/search.js" not in theirs and "assets/bundle.css" in theirs  # one file of each kind
    page = site / old.folder / "articles/demo.html"
    links = re.findall(r'(?:href|src)="([^"#?:]+\.(?:css|js))"', page.read_text())
    css = [link for link in links if "stylesheets/main." in link]
    assert css and css[0].startswith("../../assets/stylesheets/")
    for link in links:  # each resolves to a file of the site
        assert (page.parent / link).resolve().is_file(), link
    assert "../assets/bundle.js" in links  # its own search, over its own index


def test_a_page_links_one_stylesheet_one_script_of_the_sites_own_and_the_themes_shared_scripts(
        project, tmp_path, monkeypatch, capsys):
    """The site's own stylesheets and scripts come as one bundle each, their parts in mkdocs.yml's
    order; material's inline scripts that every page repeated are files the pages link; its
    config names no search worker (no page has material's search)."""
    import re

    import yaml

    _build(project, tmp_path / "cache", tmp_path / "site", monkeypatch, capsys)
    site, old = tmp_path / "site", editions(project)[1]
    listed = yaml.safe_load((project / "mkdocs.yml").read_text().replace("!ENV", ""))
    for page, up in ((site / "articles/demo.html", "../"), (site / old.folder / "articles/demo.html", "../")):
        html = page.read_text()
        ours = re.findall(r'<link rel="stylesheet" href="([^"]+)">', html)
        assert [link for link in ours if "stylesheets/" not in link] == [f"{up}assets/bundle.css"]
        scripts = re.findall(r'<script src="([^"]+)"', html)
        assert [s for s in scripts if "javascripts/" not in s] == [
            f"{up}assets/theme-base.js", f"{up}assets/theme-palette.js", f"{up}assets/bundle.js"]
        assert "__md_get(" not in html.split("</head>")[1]  # the palette's script is linked, not inline
        config = json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', html)[1])
        assert "search" not in config and not [k for k in config["translations"] if k.startswith("search")]
        for link in scripts + ours:
            assert (page.parent / link).resolve().is_file(), link
    bundled = (site / "assets/bundle.js").read_text()
    if esbuild(project) is None:  # as written, one part after another
        parts = [(project / "docs" / name).read_text().rstrip("\n") for name in listed["extra_javascript"]]
        assert bundled == "\n;\n".join(parts) + "\n"
    else:  # minified, its map naming each part with its text
        assert bundled.endswith("\n//# sourceMappingURL=bundle.js.map\n")
        sections = json.loads((site / "assets/bundle.js.map").read_text())["sections"]
        assert [s["map"]["sources"] for s in sections] == [[f"docs/{name}"] for name in listed["extra_javascript"]]
        assert [s["map"]["sourcesContent"][0] for s in sections] == [
            (project / "docs" / name).read_text() for name in listed["extra_javascript"]]
    assert not (site / "assets/reader.js").exists() and not (site / "assets/reader.css").exists()


def test_the_current_editions_slow_readers_start_before_the_older_editions_pages(
        project, tmp_path, monkeypatch, capsys):
    """The labs' jax run and the rule history start first and run beside the older edition's pages:
    the current edition's build is handed them (they were started after the older edition's pages)."""
    import reader.site as site

    calls: list[str] = []
    start, generate = site.start_slow, site.generate_site

    def start_slow(*args, **kwargs):
        calls.append("slow readers started")
        return start(*args, **kwargs)

    def generate_site(root, *args, **kwargs):
        calls.append("older edition's pages" if kwargs.get("started") is None else "current edition's pages")
        return generate(root, *args, **kwargs)
    monkeypatch.setattr(site, "start_slow", start_slow)
    monkeypatch.setattr(site, "generate_site", generate_site)
    _build(project, tmp_path / "cache", tmp_path / "site", monkeypatch, capsys)
    assert calls == ["slow readers started", "older edition's pages", "current edition's pages"]
