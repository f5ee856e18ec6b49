"""The previous edition: a fixture project with a recorded move builds both editions, each page
marked and switching to the same page in the other (reader/editions.py), a source page's line
carried through the file's changes (docs/assets/editions.js)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from reader.cli import main
from reader.editions import Edition, Switcher, editions
from reader.site import build_site
from tests.browser_support import chromium, serve_folder, wait
from tests.conftest import REPO_ROOT, git
from tests.diff_project import make_demo

TRACK = """\
title: Demo
phases:
  - title: One
    entries:
      - article: Demo
        slug: demo
"""


def _moved(tmp: Path, monkeypatch, older_only: str = "") -> tuple[Path, str]:
    """The demo with a site, moved from v0 to v1 with one note rewritten and the move recorded;
    (project, the older edition's version: v0's commit). At v0 the article's file had another slug
    than the outline's (`demo-first`, found by its title), renamed to the outline's with the move."""
    upstream, root = make_demo(tmp, monkeypatch)
    shutil.copy(REPO_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", root / "docs")
    (root / "track.yaml").write_text(TRACK)
    yaml, first = root / "annotations" / "demo.yaml", root / "annotations" / "demo-first.yaml"
    first.write_text(yaml.read_text().replace("slug: demo\n", "slug: demo-first\n") + older_only)
    yaml.unlink()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the site")
    yaml.write_text(first.read_text().replace("slug: demo-first\n", "slug: demo\n")
                    .removesuffix(older_only))
    first.unlink()
    assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
    yaml.write_text(yaml.read_text().replace("body: The sum.", "body: The sum, now doubled."))
    main(["-C", str(root), "accept", "--all"])
    main(["-C", str(root), "diff", "HEAD:pins.toml", "--record", str(root / "moves" / "v1.json")])
    return root, upstream.commits[0][:7]


@pytest.fixture(scope="module")
def moved_site(tmp_path_factory) -> tuple[Path, str]:
    tmp = tmp_path_factory.mktemp("editions")
    env = pytest.MonkeyPatch()
    env.setenv("READER_CACHE", str(tmp / "cache"))
    try:
        root, old = _moved(tmp, env)
        build_site(root, jobs=1)
    finally:
        env.undo()
    return root / "site", old


def test_the_site_keeps_the_edition_before_the_move(moved_site):
    site, old = moved_site
    now, before = (site / "articles/demo.html").read_text(), (site / old / "articles/demo-first.html").read_text()
    assert not (site / "articles/demo-first.html").exists() and not (site / old / "articles/demo.html").exists()
    assert "The sum, now doubled." in now and "The sum, now doubled." not in before
    assert "The sum." in before
    # Every page of the older edition says what it is and links the same page now.
    for page in (site / old).rglob("*.html"):
        text = page.read_text()
        assert "An older edition: the track as it read jax " in text, page
    assert 'href="../../articles/demo.html">This page in the current edition' in before
    assert "An older edition" not in now
    # mike's versions.json: the current edition first, aliased latest.
    versions = json.loads((site / "versions.json").read_text())
    assert [v["version"] for v in versions] == [versions[0]["version"], old]
    assert versions[0]["aliases"] == ["latest"] and versions[1]["aliases"] == []


def test_the_switcher_opens_the_same_page_in_the_other_edition(moved_site):
    """The same article in each edition, though its file's slug changed between them."""
    site, old = moved_site
    links = re.findall(r'class="md-version__link[^"]*"', (site / "articles/demo.html").read_text())
    assert len(links) == 2
    now = (site / "articles/demo.html").read_text()
    assert f'href="../{old}/articles/demo-first.html" class="md-version__link"' in now
    before = (site / old / "articles/demo-first.html").read_text()
    assert 'href="../../articles/demo.html" class="md-version__link"' in before
    source = "source/jax/_src/pallas/core.py.html"  # not renamed: the same path in both
    assert f'href="../../../../{old}/{source}" class="md-version__link"' in (site / source).read_text()


def test_the_switcher_and_banner_are_spliced_into_the_header():
    """The switcher after the header's title box (divs inside it too: material hides its first topic
    as the page scrolls, the switch stays), the banner before material's header, found by their
    tags (a script's string is no header); every other byte of the page as it was."""
    now, before = Edition("2", "jax 2", ""), Edition("1", "jax 1", "1/", "abc")
    head = '<html><head><script>const h = \'<header class="md-header">\';</script></head><body>'
    title = ('<header class="md-header md-header--shadow">\n<div class="md-header__title">\n'
             '<div class="md-header__topic">  <span class="md-ellipsis">Track <span>&lt;/div&gt;</span> </span></div>'
             '<div class="md-header__topic" data-md-component="header-topic"><span class="md-ellipsis">'
             'The page</span></div>\n</div>')
    rest = '<form class="md-header__option"></form></header><main><div class="md-header__title"></div></main></body></html>'
    switcher = Switcher(before, (now, before), {})
    marked = switcher.mark(head + title + rest, "a/x.html")
    assert marked == head + switcher.banner("a/x.html") + title + switcher.selector("a/x.html") + rest
    plain = head + "<header><p>no material header</p></header>"
    assert Switcher(now, (now, before), {}).mark(plain, "a/x.html") == plain


def test_a_page_missing_from_the_other_edition_switches_to_its_home():
    now, before = Edition("2", "jax 2", ""), Edition("1", "jax 1", "1/", "abc")
    switcher = Switcher(before, (now, before), {"2": frozenset({"a/x.html"})})
    assert switcher.href("a/x.html", now) == "../../a/x.html"
    assert switcher.href("a/gone.html", now) == "../../index.html"
    assert switcher.href("a/gone.html", before) == "gone.html"


def test_the_switcher_says_when_a_page_has_no_counterpart_and_marks_what_carries_the_line():
    now, before = Edition("2", "jax 2", ""), Edition("1", "jax 1", "1/", "abc")
    pages = {"2": frozenset({"a/x.html", "ir/k.html"}), "1": frozenset({"a/x.html"})}
    html = Switcher(now, (now, before), pages).selector("ir/k.html")
    assert 'data-page="ir/k.html" data-now="../"' in html  # the way to the current edition's root
    assert ('href="../1/index.html" class="md-version__link" data-edition="1" data-diffed data-missing="its home" '
            'title="jax 1: this page is not in that edition; nearest there: its home">1 (no such page)</a>') in html
    assert 'class="md-version__link rd-edition-here" data-edition="2" data-current title="jax 2">2 (current)' in html
    kept = Switcher(before, (now, before), pages).selector("a/x.html")
    assert 'data-page="a/x.html" data-now="../../"' in kept and "data-missing" not in kept


def test_a_page_without_counterpart_links_the_nearest_there_its_old_path_or_its_folders_index():
    now, before = Edition("2", "jax 2", ""), Edition("1", "jax 1", "1/", "abc")
    pages = {"2": frozenset({"source/p/new/mod.py.html", "source/p/added.py.html", "source/q/x.py.html"}),
             "1": frozenset({"source/p/old/mod.py.html", "source/p/index.html", "index.html"})}
    switcher = Switcher(now, (now, before), pages)
    assert switcher.nearest("source/p/new/mod.py.html", before) == (
        "source/p/old/mod.py.html", "the file at its old path, p/old/mod.py")
    assert switcher.nearest("source/p/added.py.html", before) == ("source/p/index.html", "its folder's index, source/p/")
    assert switcher.nearest("source/q/x.py.html", before) == ("index.html", "its home")
    html = switcher.selector("source/p/new/mod.py.html")
    assert 'href="../../../1/source/p/old/mod.py.html"' in html and 'data-missing="the file at its old path' in html


def test_an_article_renamed_between_editions_switches_to_itself():
    """The outline's name for an article (`a/new.html`) finds its page in an edition whose file
    was named otherwise (`a/old.html`), in both directions."""
    now, before = Edition("2", "jax 2", ""), Edition("1", "jax 1", "1/", "abc")
    pages = {"2": frozenset({"a/new.html", "a/x.html"}), "1": frozenset({"a/old.html", "a/x.html"})}
    renamed = {"1": {"a/new.html": "a/old.html"}, "2": {}}
    assert Switcher(now, (now, before), pages, renamed).href("a/new.html", before) == "../1/a/old.html"
    assert Switcher(before, (now, before), pages, renamed).href("a/old.html", now) == "../../a/new.html"
    assert Switcher(now, (now, before), pages, renamed).href("a/x.html", before) == "../1/a/x.html"
    assert Switcher(now, (now, before), pages, {}).href("a/new.html", before) == "../1/index.html"


def test_a_project_without_moves_has_one_edition():
    assert len(editions(REPO_ROOT)) == 1 + len(list((REPO_ROOT / "moves").glob("*.json")))


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium(tmp_path_factory.mktemp("chromium-profile"))


def test_browser_switches_editions_on_the_same_page(moved_site, browser, tmp_path):
    from selenium.webdriver.common.by import By

    site, old = moved_site
    for server in serve_folder(site):
        browser.get(f"{server}/articles/demo.html")
        selector = wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, ".md-version__current"))
        selector.click()
        link = wait(browser, lambda b: b.find_element(By.LINK_TEXT, old))
        link.click()
        wait(browser, lambda b: b.current_url.endswith(f"/{old}/articles/demo-first.html"))
        banner = browser.find_element(By.CSS_SELECTOR, ".rd-edition-banner")
        assert banner.is_displayed() and "An older edition" in banner.text
        assert "The sum, now doubled." not in browser.find_element(By.TAG_NAME, "body").text
        browser.save_screenshot(str(tmp_path / "older.png"))
        browser.find_element(By.CSS_SELECTOR, ".md-version__current").click()
        wait(browser, lambda b: b.find_element(By.PARTIAL_LINK_TEXT, "(current)")).click()
        wait(browser, lambda b: b.current_url.endswith("/articles/demo.html")
             and f"/{old}/" not in b.current_url)
        assert not browser.find_elements(By.CSS_SELECTOR, ".rd-edition-banner")


def _selected(browser) -> list[str]:
    return browser.execute_script("return [...document.querySelectorAll('.rd-k > .rd-sel')].map(e => e.id)")


def _switch(browser, text: str) -> None:
    """Chooses the edition whose link shows `text` (the page scrolled to a line: the header shows
    the page's title over the switcher, so the clicks are the script's)."""
    from selenium.webdriver.common.by import By

    wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, ".md-version__current"))
    link = next(a for a in browser.find_elements(By.CSS_SELECTOR, ".md-version__link")
                if text in a.get_attribute("textContent"))
    browser.execute_script("arguments[0].click()", link)


@pytest.fixture(scope="module")
def server(moved_site):
    yield from serve_folder(moved_site[0])


def test_the_switch_carries_the_line_through_the_files_changes(moved_site, server, browser):
    """core.py's line 19 (`def moved_fn`) is line 13 before the move, both ways; line 15, changed,
    opens the line it replaced; a page the older edition lacks says so in place, linking its home."""
    from selenium.webdriver.common.by import By

    _site, old = moved_site
    source = "source/jax/_src/pallas/core.py.html"
    browser.get(f"{server}/{source}#L19")
    wait(browser, lambda b: _selected(b) == ["L19"])
    _switch(browser, old)
    wait(browser, lambda b: b.current_url == f"{server}/{old}/{source}#L13")
    wait(browser, lambda b: _selected(b) == ["L13"])
    assert "def moved_fn(x):" in browser.find_element(By.ID, "L13").text
    note = browser.find_element(By.CSS_SELECTOR, ".rd-edition-note").text
    assert note.startswith("Line 19 of jax/_src/pallas/core.py in ") and note.endswith(" is line 13 here.")
    _switch(browser, "(current)")
    wait(browser, lambda b: b.current_url == f"{server}/{source}#L19")
    browser.get(f"{server}/{source}#L15")
    wait(browser, lambda b: _selected(b) == ["L15"])
    _switch(browser, old)
    wait(browser, lambda b: b.current_url == f"{server}/{old}/{source}#L9")
    assert "changed between the editions: line 9 here" in browser.find_element(
        By.CSS_SELECTOR, ".rd-edition-note").text
    here = f"{server}/diffs/jax/_src/pallas/core.py.html"
    browser.get(here)
    _switch(browser, old)
    said = wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, ".rd-edition-missing"))
    assert browser.current_url == here  # said where the reader stands, not on the other edition's home
    assert f"has no counterpart in the {old} edition. Nearest there: its home." in said.text
    assert said.find_element(By.TAG_NAME, "a").get_attribute("href") == f"{server}/{old}/index.html"


def test_a_patched_build_reports_the_older_editions_notes_as_the_full_build_did(tmp_path, monkeypatch):
    monkeypatch.setenv("READER_CACHE", str(tmp_path / "cache"))
    root, old = _moved(tmp_path, monkeypatch, older_only="outro: See [[page:gone]].\n")
    full = build_site(root, jobs=1)
    assert [n.split(": ", 1)[0] for n in full.notes] == [old]  # the older edition's only
    yaml = root / "annotations" / "demo.yaml"
    yaml.write_text(yaml.read_text().replace("body: The sum, now doubled.", "body: The sum, doubled."))
    patched = build_site(root, jobs=1)
    assert patched.count("patched").rendered > 0 and patched.notes == full.notes


def test_a_patched_build_reads_the_rule_history_with_the_editions_the_full_build_did(tmp_path, monkeypatch):
    """The history's key names the releases read from archives, those an older edition pins being
    read from its files instead: a warm build given no editions missed the full build's kept
    history and read every release again (6-13 s on the first rebuild of the real site)."""
    from reader.render.recipe import schedule

    monkeypatch.setenv("READER_CACHE", str(tmp_path / "cache"))
    root, _ = _moved(tmp_path, monkeypatch)
    given, history = [], schedule.start_history

    def recorded(corpus, workers, releases, cache=None, editions=()):
        given.append(sorted(e.project.root.name for e in editions))
        return history(corpus, workers, releases, cache, editions)

    monkeypatch.setattr(schedule, "start_history", recorded)
    build_site(root, jobs=1)
    yaml = root / "annotations" / "demo.yaml"
    yaml.write_text(yaml.read_text().replace("body: The sum, now doubled.", "body: The sum, doubled."))
    assert build_site(root, jobs=1).count("patched").rendered > 0
    assert len(given) == 3 and given[0] and given[-1] == given[0]  # full (current, v0), patched


def _count_opens(monkeypatch) -> Counter[tuple[str, str]]:
    """Every `Project.load` and `Corpus.open` from now on, by the project's folder."""
    from reader.corpus import Corpus, Project

    counted: Counter[tuple[str, str]] = Counter()
    load, open_ = Project.load.__func__, Corpus.open.__func__  # type: ignore[attr-defined]

    def counted_load(cls, root=Path(".")):
        counted["load", Path(root).name] += 1
        return load(cls, root)

    def counted_open(cls, project, *args, **kwargs):
        counted["open", project.root.name] += 1
        return open_(cls, project, *args, **kwargs)

    monkeypatch.setattr(Project, "load", classmethod(counted_load))
    monkeypatch.setattr(Corpus, "open", classmethod(counted_open))
    return counted


def test_a_build_opens_each_edition_once(tmp_path, monkeypatch):
    """`reader build` opens the project once (every edition's pins, lock and files) and hands it
    down: a cold build with an older edition, and the build patched after a note's edit, load each
    edition's project once and open its files once (the previous edition's are the older one's)."""
    monkeypatch.setenv("READER_CACHE", str(tmp_path / "cache"))
    root, _ = _moved(tmp_path, monkeypatch)
    counted = _count_opens(monkeypatch)
    build_site(root, jobs=1)
    older = [p.name for p in (tmp_path / "cache" / "editions").iterdir()]  # the v0 edition's checkout
    assert len(older) == 1
    assert counted == {("load", root.name): 1, ("open", root.name): 1,
                       **{(what, rev): 1 for rev in older for what in ("load", "open")}}
    counted.clear()
    yaml = root / "annotations" / "demo.yaml"
    yaml.write_text(yaml.read_text().replace("body: The sum, now doubled.", "body: The sum, doubled."))
    assert build_site(root, jobs=1).count("patched").rendered > 0
    assert counted == {("load", root.name): 1, ("open", root.name): 1,
                       **{(what, rev): 1 for rev in older for what in ("load", "open")}}


def test_a_build_of_one_edition_opens_it_once(tmp_path, monkeypatch):
    from tests.small_project import build_small

    small = build_small(tmp_path)
    shutil.rmtree(small.root / "site")  # a full build, not a patch
    monkeypatch.setenv("READER_CACHE", str(small.cache))
    counted = _count_opens(monkeypatch)
    build_site(small.root, jobs=1)
    assert counted == {("load", small.root.name): 1, ("open", small.root.name): 1}
