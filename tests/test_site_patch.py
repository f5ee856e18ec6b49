"""A build after a note's edit patches the pages' HTML into the site instead of running mkdocs
(reader/site_patch.py): the site it leaves is byte for byte the one a full build makes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import reader.render.search.index as search_index
import reader.site
from reader.errors import BuildError, InputError
from reader.linkcheck import BrokenLink
from reader.site import build_site
from reader.site_patch import state_path
from tests.small_project import MIRROR, Small, build_small, tree_digest
from tests.test_search_index import pieces


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return build_small(tmp_path_factory.mktemp("small"))


@pytest.fixture
def small(built: Small, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Small:
    copy = built.copy(tmp_path)
    monkeypatch.setenv("READER_CACHE", str(copy.cache))
    monkeypatch.setenv(MIRROR, str(copy.upstream))
    build_site(copy.root, jobs=1)  # the copy's state names the original's folder: a full build
    return copy


def edit(small: Small, old: str, new: str) -> None:
    tour = small.root / "annotations" / "tour.yaml"
    text = tour.read_text()
    assert old in text
    tour.write_text(text.replace(old, new))


def steps(report: reader.site.BuildReport) -> list[str]:
    return [name for name, _ in report.steps]


def full_build(small: Small, tmp_path: Path) -> dict[str, str]:
    """The project built from scratch into a new folder, on a cold cache (the fetched sources
    only): mkdocs runs and every page is rendered."""
    cold = tmp_path / "cold-cache"
    for part in ("objects", "pins"):
        shutil.copytree(small.cache / part, cold / part)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("READER_CACHE", str(cold))
        report = build_site(small.root, tmp_path / "full", jobs=1)
    assert "mkdocs" in steps(report) and report.count("source") == (2, 0)
    return tree_digest(tmp_path / "full")


def test_a_note_edit_is_patched_and_equals_a_full_build(small, tmp_path):
    edit(small, "body: The spec.", "body: The spec, edited; see [[pkg/call.py]] and <b>this</b>.")
    site = small.root / "site"
    folder = site.stat().st_ino
    report = build_site(small.root, jobs=1)
    assert steps(report) == ["pages", "patch", "link check"]
    assert report.count("patched") == (2, 0)  # the article and pkg/core.py's page
    assert site.stat().st_ino == folder  # written into the site itself, not a copy swapped in
    assert "The spec, edited; see" in (site / "articles/tour.html").read_text()
    assert "The spec, edited; see" in (site / "source/pkg/core.py.html").read_text()
    assert any("The spec, edited" in json.dumps(d) for k, d in pieces(site).items() if k.startswith("docs/"))
    assert not list(small.root.glob(".site-*"))
    assert tree_digest(site) == full_build(small, tmp_path)
    # and a second edit patches the patched site
    edit(small, "The spec, edited;", "The spec, twice;")
    again = build_site(small.root, jobs=1)
    assert steps(again) == ["pages", "patch", "link check"]
    assert tree_digest(site) == full_build(small, tmp_path / "2")


def test_a_section_edit_is_patched_and_equals_a_full_build(small, tmp_path):
    edit(small, "notes:\n", "sections:\n  - title: A section\n    body: |\n      Its body.\nnotes:\n")
    assert "mkdocs" in steps(build_site(small.root, jobs=1))  # a new heading: the toc changes
    edit(small, "Its body.", "Its body, edited.")
    report = build_site(small.root, jobs=1)
    assert steps(report) == ["pages", "patch", "link check"]
    assert report.count("patched") == (1, 0) and report.count("article") == (1, 0)
    site = small.root / "site"
    assert "Its body, edited." in (site / "articles/tour.html").read_text()
    assert tree_digest(site) == full_build(small, tmp_path)


def test_a_page_that_loses_an_id_is_patched_once_the_whole_site_is_checked(small, tmp_path):
    """Another page may link to the id a patched page lost: every page's links are checked, on a
    copy of the site that is swapped in."""
    edit(small, "id: tour-blockspec", "id: tour-spec")
    site = small.root / "site"
    folder = site.stat().st_ino
    report = build_site(small.root, jobs=1)
    assert steps(report) == ["pages", "patch", "link check"]
    assert site.stat().st_ino != folder
    assert 'id="note-tour-spec"' in (site / "articles/tour.html").read_text()
    assert not list(small.root.glob(".site-*"))
    assert tree_digest(site) == full_build(small, tmp_path)
    # and the copy's state serves the next patch
    edit(small, "body: The spec.", "body: The spec, edited.")
    assert steps(build_site(small.root, jobs=1)) == ["pages", "patch", "link check"]
    assert tree_digest(site) == full_build(small, tmp_path / "2")


def test_an_unchanged_project_leaves_the_site_as_it_is(small):
    before = tree_digest(small.root / "site")
    report = build_site(small.root, jobs=1)
    assert steps(report) == ["pages"] and report.count("patched") == (0, 0)
    assert report.pages == sum(1 for name in before if name.endswith(".html"))
    assert tree_digest(small.root / "site") == before


def test_a_title_edit_runs_mkdocs(small, tmp_path):
    """The title is in the nav and the layout: not a patch."""
    edit(small, 'title: "A tour"', 'title: "A longer tour"')
    report = build_site(small.root, jobs=1)
    assert "mkdocs" in steps(report) and "patch" not in steps(report)
    assert tree_digest(small.root / "site") == full_build(small, tmp_path)


def test_a_site_changed_by_hand_is_built_in_full(small):
    site = small.root / "site"
    (site / "stale.html").write_text("old")
    edit(small, "body: The spec.", "body: The spec, edited.")
    report = build_site(small.root, jobs=1)
    assert "mkdocs" in steps(report)
    assert not (site / "stale.html").exists()


def test_a_bad_note_keeps_the_site_then_the_fix_is_patched(small, tmp_path):
    site = small.root / "site"
    before, state = tree_digest(site), state_path(site).read_bytes()
    edit(small, "phase: 1", "phase: one")
    with pytest.raises(InputError, match="tour.yaml:3: `phase` must be an integer"):
        build_site(small.root, jobs=1)
    assert tree_digest(site) == before and state_path(site).read_bytes() == state
    edit(small, "phase: one", "phase: 1")
    edit(small, "body: The spec.", "body: The spec, fixed.")
    report = build_site(small.root, jobs=1)
    assert steps(report) == ["pages", "patch", "link check"]
    assert tree_digest(site) == full_build(small, tmp_path)


def test_a_broken_link_in_a_patch_fails_and_keeps_the_old_site(small, monkeypatch):
    site = small.root / "site"
    before = tree_digest(site)
    broken = BrokenLink("articles/tour.html", "nowhere.html", "no such file")
    monkeypatch.setattr(reader.site, "check_changed", lambda *args: [broken])
    edit(small, "body: The spec.", "body: The spec, edited.")
    with pytest.raises(BuildError, match="1 broken internal link"):
        build_site(small.root, jobs=1)
    assert tree_digest(site) == before
    assert not list(small.root.glob(".site-*"))


def test_a_patch_checks_the_links_of_the_pages_it_writes(small, monkeypatch):
    """A note's link to a line that does not exist fails the patch's link check."""
    site = small.root / "site"
    before = tree_digest(site)
    checked: list[list[str]] = []

    def check_changed(site, changed, *args):
        checked.append(sorted(changed))
        return real(site, changed, *args)
    real = reader.site.check_changed
    monkeypatch.setattr(reader.site, "check_changed", check_changed)
    edit(small, "body: The spec.", "body: See [line 999](../source/pkg/call.py.html#L999).")
    with pytest.raises(BuildError, match=r"articles/tour.html: ../source/pkg/call.py.html#L999 "
                                         r"\(no id 'L999' in source/pkg/call.py.html\)"):
        build_site(small.root, jobs=1)
    assert checked == [["articles/tour.html", "source/pkg/core.py.html"]]
    assert tree_digest(site) == before


def test_reader_build_says_what_it_patched(small, monkeypatch, capsys):
    from reader.cli import main

    edit(small, "body: The spec.", "body: The spec, edited.")
    monkeypatch.chdir(small.root)
    assert main(["build", "--quiet", "--verbose", "--jobs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("built 10 pages into ") and "(pages " in out[0]
    assert ", patch " in out[0] and "mkdocs" not in out[0]
    assert out[1] == ("  source pages 1 rendered / 1 cached, article pages 1 rendered / 0 cached, "
                      "2 page(s) patched into the site (mkdocs did not run)")


def test_a_state_whose_offsets_are_off_is_not_used(small, tmp_path):
    """Say a plugin after reader's changed the output: the HTML is not where the state says."""
    import pickle
    from dataclasses import replace

    from reader.site_patch import save

    site = small.root / "site"
    state = pickle.loads(state_path(site).read_bytes())
    moved = {uri: replace(p, slot=p.slot + 1) for uri, p in state.pages.items()}
    save(site, replace(state, pages=moved))
    edit(small, "body: The spec.", "body: The spec, edited.")
    report = build_site(small.root, jobs=1)
    assert "mkdocs" in steps(report)
    assert tree_digest(site) == full_build(small, tmp_path)


def test_an_edit_that_repacks_the_search_index_into_more_files_is_patched(small, tmp_path):
    """The search index's files are packed by size: an edit may make more or fewer of them, which
    only search.js names; the patch adds and removes them and equals a full build (here the packs
    made smaller with the edit, then as they were with the edit undone)."""
    site = small.root / "site"
    before = {p.name for p in (site / "search").iterdir()}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search_index, "BLOCK", 64)
        edit(small, "body: The spec.", "body: The spec, edited.")
        report = build_site(small.root, jobs=1)
        assert steps(report) == ["pages", "patch", "link check"]
        assert len({p.name for p in (site / "search").iterdir()}) > len(before)
        assert tree_digest(site) == full_build(small, tmp_path)
    edit(small, "body: The spec, edited.", "body: The spec.")
    report = build_site(small.root, jobs=1)
    assert steps(report) == ["pages", "patch", "link check"]
    assert {p.name for p in (site / "search").iterdir()} == before
    assert tree_digest(site) == full_build(small, tmp_path / "2")
