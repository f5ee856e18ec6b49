"""`reader build`: a real mkdocs-material build of a small pinned project, the link check, the swap."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reader.errors import BuildError, InputError
from reader.site import build_site, swap_in
from tests.conftest import REPO_ROOT, make_upstream, write_project
from tests.golden import CALL, CORE

FILES = {"pkg/core.py": CORE.replace("fixture", "pkg"), "pkg/call.py": CALL.replace("fixture", "pkg")}
TRACK = """title: "A small track"
summary: "Two files."
phases:
  - title: "Only phase"
    summary: "Everything."
    entries:
      - source: pkg/call.py
        summary: The caller.
      - article: "An article not written yet"
      - lab: not_a_lab
        title: "LAB 9 · Nothing yet"
"""


@pytest.fixture
def project(tmp_path: Path, cache) -> Path:
    upstream = make_upstream(tmp_path / "upstream", [FILES])
    root = write_project(tmp_path / "project", "small", upstream.url, upstream.commits[0], FILES)
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(TRACK)
    return root


def test_build_writes_a_browsable_site(project):
    report = build_site(project, jobs=1)
    site = project / "site"
    assert report.site == site.resolve()
    core = (site / "source/pkg/core.py.html").read_text()
    call = (site / "source/pkg/call.py.html").read_text()
    # reader's HTML is in the page, inside material's layout, and mkdocs did not re-highlight it
    assert 'class="md-content"' in core and '<div class="rd-l" id="L6">' in core
    assert '<a href="core.py.html#L6" title="pkg.core.BlockSpec">BlockSpec</a>' in call
    assert "<!-- reader:page-body -->" not in core
    # every page of the outline exists, unwritten ones as placeholders
    assert "Not written yet" in (site / "articles/an-article-not-written-yet.html").read_text()
    assert (site / "labs/not_a_lab.html").is_file() and (site / "phase-1/index.html").is_file()
    home = (site / "index.html").read_text()
    assert "A small track" in home and (project / "pins.toml").read_text().split('"')[3] in home
    # search indexes names, not code
    index = (site / "search/search_index.json").read_text()
    assert "BlockSpec" in index and "BlockMapping(self, grid)" not in index
    assert not list(project.glob(".site-*"))


def test_a_second_build_replaces_the_first(project):
    build_site(project, jobs=1)
    (project / "site" / "stale.html").write_text("old")
    build_site(project, jobs=1)
    assert not (project / "site" / "stale.html").exists()
    assert not list(project.glob(".site-*"))


def test_failed_build_leaves_the_old_site(project, monkeypatch):
    build_site(project, jobs=1)
    before = sorted(p.relative_to(project) for p in (project / "site").rglob("*"))
    (project / "track.yaml").write_text("phases: [")
    with pytest.raises(InputError, match="track.yaml:1: malformed YAML"):
        build_site(project, jobs=1)
    assert sorted(p.relative_to(project) for p in (project / "site").rglob("*")) == before
    assert not list(project.glob(".site-*"))


def test_broken_internal_link_fails_the_build_and_keeps_the_old_site(project, monkeypatch):
    build_site(project, jobs=1)
    home = (project / "site" / "index.html").read_text()
    import reader.site

    real = reader.site._mkdocs_build

    def build_with_a_broken_link(root, out, jobs, progress):
        steps = real(root, out, jobs, progress)
        (out / "index.html").write_text('<a href="source/pkg/none.py.html#L1">x</a>')
        return steps

    monkeypatch.setattr(reader.site, "_mkdocs_build", build_with_a_broken_link)
    with pytest.raises(BuildError, match="1 broken internal link"):
        build_site(project, jobs=1)
    assert (project / "site" / "index.html").read_text() == home
    assert not list(project.glob(".site-*"))


def test_swap_in_replaces_the_folder(tmp_path):
    old, new = tmp_path / "site", tmp_path / "fresh"
    old.mkdir()
    (old / "a").write_text("old")
    new.mkdir()
    (new / "b").write_text("new")
    swap_in(new, old)
    assert [p.name for p in old.iterdir()] == ["b"] and not new.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.slow
def test_the_real_site_builds_with_a_page_for_every_pinned_file(tmp_path):
    from reader.corpus import Corpus, Project

    corpus = Corpus.open(Project.load(REPO_ROOT))
    report = build_site(REPO_ROOT, tmp_path / "site")
    site = tmp_path / "site"
    for _pin, path in corpus.all_files():
        assert (site / "source" / f"{path}.html").is_file(), path
    call = (site / "source/jax/_src/pallas/pallas_call.py.html").read_text()
    assert 'title="jax._src.pallas.core.BlockSpec">BlockSpec</a>' in call
    assert report.pages > len(corpus.all_files())
    index = (site / "search/search_index.json").read_text()
    assert len(index) < 2_000_000 and "_pallas_call_impl(*args, **params)" not in index
    assert "pallas_call.py.html" in index
