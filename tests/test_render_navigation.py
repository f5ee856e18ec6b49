"""The outline matched against what is written: nav order, placeholders, extras, and the track file."""

from __future__ import annotations

from pathlib import Path

import pytest

from reader.errors import InputError
from reader.render.track.navigation import Written, entry_link, nav_pages, phase_links
from reader.track import Entry, Phase, load_track


def test_articles_match_by_slug_then_by_title():
    written = [Written("article", "pallas-call", "pallas_call, Line by Line", 2),
               Written("article", "other", "BlockSpec and the Grid!", 2)]
    by_slug = entry_link(Entry("article", "Some outline title", "Some outline title", slug="pallas-call"),
                         written, set())
    assert (by_slug.page, by_slug.title, by_slug.missing) == ("articles/pallas-call.md",
                                                              "pallas_call, Line by Line", "")
    by_title = entry_link(Entry("article", "BlockSpec and the grid", "BlockSpec and the grid"), written, set())
    assert by_title.page == "articles/other.md"


def test_unwritten_entries_point_at_placeholders_that_say_why():
    link = entry_link(Entry("article", "Not yet", "Not yet", slug="not-yet"), [], set())
    assert link.page == "articles/not-yet.md" and "annotations/" in link.missing
    lab = entry_link(Entry("lab", "ring", "LAB·4.2 · Ring"), [], set())
    assert lab.page == "labs/ring.md" and "kernels/ring.py" in lab.missing
    src = entry_link(Entry("source", "a/b.py", "a/b.py"), [], {"a/b.py"})
    assert src.page == "source/a/b.py.md" and src.missing == ""
    gone = entry_link(Entry("source", "a/c.py", "a/c.py"), [], {"a/b.py"})
    assert "not among the fetched" in gone.missing


def test_written_pages_missing_from_the_outline_join_their_phase_in_order():
    phase = Phase(3, "TPU", "", (Entry("source", "x.py", "x.py"),))
    written = [Written("article", "b", "B", 3, order=2), Written("lab", "lab1", "Lab one", 3),
               Written("article", "a", "A", 3, order=1), Written("article", "z", "Z", 4)]
    links = phase_links(phase, written, {"x.py"})
    assert [link.page for link in links] == ["source/x.py.md", "labs/lab1.md", "articles/a.md",
                                             "articles/b.md"]


def test_nav_pages_collects_every_page():
    nav = [{"Home": "index.md"}, {"1 · P": ["phase-1/index.md", {"A": "articles/a.md"}]}]
    assert nav_pages(nav) == {"index.md", "phase-1/index.md", "articles/a.md"}


def test_track_file_loads_with_lines(tmp_path: Path):
    path = tmp_path / "track.yaml"
    path.write_text('title: T\nsummary: S\nphases:\n  - title: One\n    entries:\n'
                    '      - article: "An article"\n        slug: an-article\n'
                    '      - lab: toy\n        title: "LAB · Toy"\n      - source: a/b.py\n')
    track = load_track(path)
    (phase,) = track.phases
    assert [(e.kind, e.ref, e.title, e.slug, e.line) for e in phase.entries] == [
        ("article", "An article", "An article", "an-article", 6), ("lab", "toy", "LAB · Toy", "", 8),
        ("source", "a/b.py", "a/b.py", "", 10)]


@pytest.mark.parametrize(("text", "message"), [
    ("phases: [", "track.yaml:1: malformed YAML"),
    ("title: T\n", "expected 'title', 'summary' and a list of 'phases'"),
    ("phases:\n  - summary: no title\n", "phase 1 needs a 'title'"),
    ("phases:\n  - title: P\n    entries:\n      - article: A\n        lab: b\n",
     "track.yaml:4: an entry names exactly one of 'article', 'lab', 'source'"),
])
def test_bad_track_files_are_located_errors(tmp_path: Path, text: str, message: str):
    path = tmp_path / "track.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        load_track(path)


def test_the_repository_outline_has_six_phases():
    track = load_track(Path(__file__).resolve().parent.parent / "track.yaml")
    assert [p.number for p in track.phases] == [1, 2, 3, 4, 5, 6]
    assert all(p.entries for p in track.phases)


def test_the_repository_articles_carry_the_outlines_slugs():
    """One slug per article, the outline's: each outlined article is the annotation file of its
    slug, and no file of another name stands in for it by its title."""
    from reader.annotations import load_articles
    from reader.render.track.navigation import _norm

    root = Path(__file__).resolve().parent.parent
    articles = {a.slug: a for a in load_articles(root)}
    entries = [e for p in load_track(root / "track.yaml").phases for e in p.entries if e.kind == "article"]
    assert all(e.slug for e in entries)
    for e in entries:
        named = [slug for slug, a in articles.items() if _norm(a.title) == _norm(e.ref)]
        assert named in ([], [e.slug]), f"{e.ref!r} is written as {named}, the outline's slug is {e.slug}"
    assert {"tpu-pipeline", "gpu-backends"} <= set(articles)
