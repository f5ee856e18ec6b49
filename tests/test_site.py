"""`reader build`: a real mkdocs-material build of a small pinned project, the link check, the swap."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from reader.errors import BuildError, InputError
from reader.opening import open_project
from reader.packed import unpacked_call
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


def site_project(tmp_path: Path, track: str = TRACK, files: dict[str, str] = FILES) -> Path:
    """A project pinning an upstream of `files`, with this repository's mkdocs.yml and docs."""
    upstream = make_upstream(tmp_path / "upstream", [files])
    root = write_project(tmp_path / "project", "small", upstream.url, upstream.commits[0], files)
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(track)
    return root


@pytest.fixture
def project(tmp_path: Path, cache) -> Path:
    return site_project(tmp_path)


def test_build_writes_a_browsable_site(project):
    report = build_site(project, jobs=1)
    site = project / "site"
    assert report.site == site.resolve()
    core = (site / "source/pkg/core.py.html").read_text()
    call = (site / "source/pkg/call.py.html").read_text()
    # reader's HTML is in the page, inside material's layout, and mkdocs did not re-highlight it
    assert 'class="md-content"' in core and '<div id="L6"' in core
    assert '<a href="core.py.html#L6">BlockSpec</a>' in call and 'data-paint="../../assets/code/pkg/call.py.js"' in call
    # the link's title is in the page's paint script, which codeview.js loads
    assert b'"core.py.html#L6":"pkg.core.BlockSpec"' in unpacked_call((site / "assets/code/pkg/call.py.js").read_bytes())
    assert "<!-- reader:page-body -->" not in core
    # every page of the outline exists, unwritten ones as placeholders
    assert "Not written yet" in (site / "articles/an-article-not-written-yet.html").read_text()
    assert (site / "labs/not_a_lab.html").is_file() and (site / "phase-1/index.html").is_file()
    home = (site / "index.html").read_text()
    assert "A small track" in home and (project / "pins.toml").read_text().split('"')[3] in home
    # search's index comes in pieces (packed): the code's by its words, the prose's
    from tests.test_search_index import pieces

    index = pieces(site)
    assert "blockspec" in index["code/blo"]["t"] and "files" in index and "text/0" in index
    assert not list(project.glob(".site-*"))


def _index_made_in(project: Path, made_in: Path) -> int:
    """Build `project` on two workers, recording in `made_in` the pid that made the search index;
    return this process's pid."""
    from reader.render.recipe import generate

    index = generate.kept_search_assets

    def recorded(*args, **kwargs):
        made_in.write_text(str(os.getpid()))
        return index(*args, **kwargs)

    generate.kept_search_assets = recorded
    build_site(project, jobs=2)
    return os.getpid()


def test_a_build_makes_the_search_index_beside_mkdocs_and_writes_the_same_files(project, tmp_path):
    """The search index is made on a process forked as the pages are done (`generate_site(later=True)`:
    mkdocs lays the pages out meanwhile) and written into the site after mkdocs: the same files as
    made in one process, on an empty cache. The build runs in a fresh interpreter: threads other
    tests leave in this one (jax's, a server's) rightly stop a build from forking."""
    from reader.cache import Cache
    from reader.render.recipe import generate
    from reader.workers import isolated

    made_in = tmp_path / "made-in"
    builder = isolated(_index_made_in, project, made_in)
    assert int(made_in.read_text()) != builder
    site = project / "site"
    search = {p.relative_to(site).as_posix(): p.read_bytes() for p in (site / "search").iterdir()}
    alone = generate.generate_site(open_project(project, Cache(tmp_path / "empty")), jobs=1)
    assert alone.later is None and len(search) > 1
    assert {a.src_uri: a.data for a in alone.assets if a.src_uri.startswith("search/")} == search


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
    from reader.site_patch import state_path

    state_path(project / "site").unlink()  # mkdocs builds it again (not an unchanged site kept)

    real = reader.site._mkdocs_build

    def build_with_a_broken_link(root, out, *args):
        done = real(root, out, *args)
        (out / "index.html").write_text('<a href="source/pkg/none.py.html#L1">x</a>')
        return done

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
def test_the_real_site_builds_with_a_page_for_every_pinned_file(real_site):
    from reader.corpus import Corpus, Project

    corpus = Corpus.open(Project.load(REPO_ROOT))
    site = real_site
    for _pin, path in corpus.all_files():
        assert (site / "source" / f"{path}.html").is_file(), path
    call = (site / "source/jax/_src/pallas/pallas_call.py.html").read_text()
    link = re.search(r'<a href="(core\.py\.html#L\d+)">BlockSpec</a>', call)
    assert link, "pallas_call.py links BlockSpec to its line in core.py"
    # the link's title is in the page's paint script, set by codeview.js
    paint = (unpacked_call((site / "assets/code/jax/_src/pallas/pallas_call.py.js").read_bytes()) or b"").decode()
    assert f'"{link.group(1)}":"jax._src.pallas.core.BlockSpec"' in paint
    assert len(list(site.rglob("*.html"))) > len(corpus.all_files())
    # no piece of search's index is big: a query fetches a few
    pieces = [p for p in (site / "search").rglob("*.js")]
    assert max(p.stat().st_size for p in pieces) < 150_000


# Caches ------------------------------------------------------------------------------------------

def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The small project of tests/small_project.py (one article, one note), fetched and built."""
    from tests.small_project import MIRROR, build_small

    built = build_small(tmp_path)
    monkeypatch.setenv("READER_CACHE", str(built.cache))
    monkeypatch.setenv(MIRROR, str(built.upstream))
    return built


def test_a_second_build_reads_every_page_from_the_cache(small):
    first = build_site(small.root, jobs=1)
    site = _files(small.root / "site")
    again = build_site(small.root, jobs=1)
    assert first.count("source") == (0, 2) and first.count("article") == (0, 1)  # built before
    assert again.count("source") == (0, 2) and again.count("article") == (0, 1)
    assert _files(small.root / "site") == site


def test_editing_a_note_renders_only_the_pages_that_show_it(small):
    tour = small.root / "annotations" / "tour.yaml"
    tour.write_text(tour.read_text().replace("body: The spec.", "body: The spec, edited."))
    report = build_site(small.root, jobs=1)
    # the note sits on pkg/core.py: that page and the article change, pkg/call.py does not
    assert report.count("source") == (1, 1) and report.count("article") == (1, 0)
    site = small.root / "site"
    assert "The spec, edited." in (site / "source/pkg/core.py.html").read_text()
    assert "The spec, edited." in (site / "articles/tour.html").read_text()
    assert "The spec, edited." not in (site / "source/pkg/call.py.html").read_text()


SECOND = """title: "A second look"
slug: second
phase: 1
kind: article
order: 2
summary: "The same file again."
reads:
  - path: pkg/core.py
notes:
  - id: second-blockspec
    symbol: BlockSpec
    body: Seen again.
"""


def test_a_note_edit_leaves_another_article_on_the_same_file_alone(small):
    """An article's margins show its own notes: another article's note on a file it shows is no
    input of its page, which is read back from the cache, the same bytes."""
    (small.root / "annotations" / "second.yaml").write_text(SECOND)
    track = small.root / "track.yaml"
    track.write_text(track.read_text().replace("        slug: tour\n", "        slug: tour\n"
                                               "      - article: \"A second look\"\n        slug: second\n"))
    build_site(small.root, jobs=1)
    second = (small.root / "site/articles/second.html").read_bytes()
    tour = small.root / "annotations" / "tour.yaml"
    tour.write_text(tour.read_text().replace("body: The spec.", "body: The spec, edited."))
    report = build_site(small.root, jobs=1)
    assert report.count("article") == (1, 1)  # the tour, not the second look
    assert "The spec, edited." in (small.root / "site/articles/tour.html").read_text()
    assert (small.root / "site/articles/second.html").read_bytes() == second


def test_editing_an_articles_prose_patches_its_page_without_mkdocs(small):
    tour = small.root / "annotations" / "tour.yaml"
    tour.write_text(tour.read_text().replace("See [[pkg/core.py::BlockSpec]]", "First see [[pkg/core.py::BlockSpec]]"))
    report = build_site(small.root, jobs=1)
    assert report.count("patched") == (1, 0)  # the article's page: no mkdocs run
    assert report.count("source") == (0, 2) and report.count("article") == (1, 0)
    assert "First see" in (small.root / "site/articles/tour.html").read_text()


def test_the_parallel_build_equals_the_one_process_build(small, tmp_path, monkeypatch, forks):
    """`--jobs 1` forks nothing (every stage runs in the build's process: pdb works); two
    workers fork for every stage that can, and the sites are byte for byte the same."""

    from reader import linkcheck
    from reader.render.recipe import parallel

    monkeypatch.setattr(parallel, "MIN_PARALLEL", 1)
    monkeypatch.setattr(linkcheck, "MIN_PARALLEL", 1)
    for jobs in (1, 2):
        forks.serial = jobs == 1
        monkeypatch.setenv("READER_CACHE", str(tmp_path / f"cache-{jobs}"))
        shutil.copytree(small.cache / "objects", tmp_path / f"cache-{jobs}" / "objects")
        shutil.copytree(small.cache / "pins", tmp_path / f"cache-{jobs}" / "pins")
        report = build_site(small.root, tmp_path / f"site-{jobs}", jobs=jobs)
        assert report.count("source") == (2, 0)
    assert forks, "the two-worker build forked no worker"
    assert _files(tmp_path / "site-1") == _files(tmp_path / "site-2")


def test_a_failed_generation_ends_the_search_index_part_started_beside_it(small, tmp_path, monkeypatch):
    """A cold generation forks the search index's code part (`code_lines`) as it starts; when the
    generation fails, that process is ended, not left blocked on its result (`reader serve`)."""
    import multiprocessing
    import time

    from reader.cache import Cache
    from reader.render.recipe import generate
    from reader.render.recipe.schedule import Schedule
    from reader.workers import Workers

    start, started = Schedule.early, []

    def recorded(*args, **kwargs):
        started.append(start(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(generate, "code_lines", lambda *a: time.sleep(60))  # still running at the failure
    monkeypatch.setattr(Schedule, "early", recorded)

    def failing(*args, **kwargs):
        raise RuntimeError("the outline's pages failed")

    monkeypatch.setattr(generate, "_assemble", failing)
    cold = tmp_path / "cold"
    for part in ("objects", "pins"):
        shutil.copytree(small.cache / part, cold / part)
    workers = Workers(2)
    # forked whatever other threads the test process runs (an earlier test's may still be ending,
    # and `may_fork` then declines): the subject here is the part's end, not the decision to fork
    monkeypatch.setattr(workers, "may_fork", lambda: True)
    before = set(multiprocessing.active_children())
    with pytest.raises(RuntimeError, match="outline"):
        generate.generate_site(open_project(small.root, Cache(cold)), "track.yaml", 2, later=workers)
    assert started and started[0] is not None, "the code part was not started on a process of its own"
    assert set(multiprocessing.active_children()) == before


def test_stencilled_pages_equal_the_theme_rendering(tmp_path, cache, monkeypatch):
    import reader.mkdocs_plugin

    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(4)}
    root = site_project(tmp_path, TRACK.replace("pkg/call.py", "pkg/m0.py"), files)
    report = build_site(root, tmp_path / "stencilled", jobs=1)
    rendered, filled = report.count("layout")
    assert filled == 2  # m1..m3 are not in the nav: the first is rendered, the others filled in
    monkeypatch.setattr(reader.mkdocs_plugin, "eligible", lambda page, html: False)
    plain = build_site(root, tmp_path / "plain", jobs=1)
    assert plain.count("layout") == (rendered + filled, 0)
    assert _files(tmp_path / "stencilled") == _files(tmp_path / "plain")


def test_a_build_removes_the_results_of_other_reader_versions(project, cache):
    from reader.cache import KEPT
    from reader.versions import code_version

    old = cache.root / "derived" / "0123456789abcdef" / "highlight" / "ab" / "abcd"
    old.parent.mkdir(parents=True)
    old.write_text("old")
    report = build_site(project, jobs=1)
    assert report.pruned == ("0123456789abcdef",)
    assert not old.parent.parent.parent.exists()
    assert {p.name for p in (cache.root / "derived").iterdir() if not p.name.startswith(".")} \
        <= {code_version(), KEPT}
