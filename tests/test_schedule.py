"""The recipe's schedule: the labs' pages in a second pass only while their run goes on, every
page in order, a cold build's warm-up only while the pool highlights."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reader.model import SourceFile
from reader.providers import is_kept
from reader.render.code.highlight import HIGHLIGHT, highlighted, lexed
from reader.render.common.model import Page
from reader.render.common.prose import Prose
from reader.render.recipe.pagecache import PageCache
from reader.render.recipe.parallel import Job
from reader.render.recipe.schedule import Schedule


@dataclass
class Site:
    """Pages named after their job, and a log of what was asked when."""

    prose: Prose = field(default_factory=lambda: Prose(lambda _path, _name: None))
    log: list[str] = field(default_factory=list)

    def render(self, job: Job) -> Page:
        self.log.append(f"{job.kind}:{job.name}")
        return Page(f"{job.kind}/{job.name}.md", job.name, "")

    def prepare(self, todo: Sequence[Job]) -> None:
        self.log.append("prepare")

    def jobs(self, artifacts: bool) -> list[Job]:
        if not artifacts:
            return [Job("source", "a.py", "k-a"), Job("article", "intro", "k-intro")]
        self.log.append("lab jobs")
        return [Job("lab", "tiled", "k-lab")]


def test_waiting_for_the_labs_renders_them_in_a_second_pass():
    site = Site()
    with Schedule(1) as run:
        pages = run.pages(site, PageCache(None), wait=True)
    assert [r.page.src_uri for r in pages] == ["source/a.py.md", "article/intro.md", "lab/tiled.md"]
    assert site.log == ["source:a.py", "article:intro", "lab jobs", "lab:tiled"]


def test_labs_ready_join_the_first_pass():
    site = Site()
    with Schedule(1) as run:
        pages = run.pages(site, PageCache(None), wait=False)
    assert [r.page.src_uri for r in pages] == ["source/a.py.md", "article/intro.md", "lab/tiled.md"]
    assert site.log == ["lab jobs", "source:a.py", "article:intro", "lab:tiled"]


def test_the_warm_up_runs_only_while_the_pool_highlights(cache):
    ran: list[str] = []
    files = [SourceFile("p", "x.py", "0" * 40, "x = 1\n")]
    with Schedule(2) as run:
        run.highlight(files, cache)
        run.while_highlighting(lambda: ran.append("facts"), lambda: ran.append("uses"))
    assert ran == ["facts", "uses"]
    highlighted(cache, files[0].blob, files[0].text)  # (the pool may have dropped its task: not started yet)
    assert is_kept(HIGHLIGHT, lexed(files[0].blob), cache)
    with Schedule(2) as run:  # highlighted already: nothing to overlap with
        run.highlight(files, cache)
        run.while_highlighting(lambda: ran.append("again"))
    assert ran == ["facts", "uses"]


def test_pages_start_once_every_file_is_highlighted(cache):
    files = [SourceFile("p", f"x{n}.py", f"{n:040d}", f"x_{n} = {n}\n" * 200) for n in range(12)]
    with Schedule(2) as run:
        run.highlight(files, cache)
        run.pages(Site(), PageCache(None), wait=False)
        assert all(is_kept(HIGHLIGHT, lexed(f.blob), cache) for f in files)


def test_a_page_read_back_decodes_its_html_only_when_read(cache):
    """A warm build reads every page back and patches few: a page from the page cache holds its
    HTML as the UTF-8 it was stored in until read, and equals the page stored (repr and hash too)."""
    from reader.render.common.model import Asset, SearchEntry
    from reader.render.recipe.pagecache import CachedPage, Shown

    page = Page("source/a.py.md", "a.py", "---\n", "<p>π ≤ 4</p>", (Asset("assets/a.js", b"x"),),
                (SearchEntry("L1", "f", "def f"),))
    pages = PageCache(cache)
    shown = Shown("w", "source", "a.py")
    pages.put("source", shown, CachedPage(page, ("fact x",)))
    back = PageCache(cache).get("source", shown)
    assert back is not None and back.unresolved == ("fact x",)
    assert "html" not in vars(back.page)  # not decoded yet
    assert back.page.title == "a.py" and back.page.assets == page.assets and "html" not in vars(back.page)
    assert back.page == page and page == back.page and back.page.html == page.html
    assert repr(back.page) == repr(page) and hash(back.page) == hash(page)
