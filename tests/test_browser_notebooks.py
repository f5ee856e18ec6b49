"""A lab page's notebook links, followed in headless Chromium: "Open in Colab" names the notebook in
the project's GitHub repository at the commit built (and where the build knows no repository, the
page says so and how to get the link); "Download .ipynb" serves a valid notebook of the lab."""

from __future__ import annotations

import subprocess
from pathlib import Path

import nbformat
import pytest

from reader.site import build_site
from tests.browser_support import chromium, serve_folder, wait
from tests.test_render_labs import REGISTRY, isolated_kernels  # noqa: F401 (autouse)
from tests.test_site import TRACK, site_project

pytestmark = pytest.mark.browser

LAB = '''"""LAB·0.1 · Hello: one section, one run.

Prints a greeting.

Exercises: pkg/core.py::BlockSpec
"""


# %% The greeting
def main(argv=None):
    print("hello")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
'''


@pytest.fixture
def browser(tmp_path: Path):
    yield from chromium(tmp_path / "profile")


def _project(tmp_path: Path) -> tuple[Path, str]:
    """A small project with one lab, committed to a git repository: (its root, the commit)."""
    root = site_project(tmp_path, TRACK.replace("lab: not_a_lab", "lab: hello"))
    (root / "kernels").mkdir()
    labs = REGISTRY.split("LABS = {lab.name: lab for lab in ")[1].split("}")[0]
    (root / "kernels/__init__.py").write_text(REGISTRY.replace(labs, '(Lab("hello", "Hello", "LAB·0.1", 1),)'))
    (root / "kernels/hello.py").write_text(LAB)
    git = ["git", "-C", str(root), "-c", "user.name=reader", "-c", "user.email=reader@example.invalid"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the project"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    return root, head.stdout.strip()


def _links(browser, url: str) -> dict[str, dict[str, str]]:
    browser.get(url)
    wait(browser, lambda b: b.find_elements("css selector", ".rd-notebook a"))
    return {a.text: {"href": a.get_attribute("href"), "target": a.get_attribute("target") or "",
                     "download": a.get_attribute("download")}
            for a in browser.find_elements("css selector", ".rd-notebook a")}


def _fetch(browser, href: str) -> str:
    """The body the browser gets for `href` (its own fetch, from the page)."""
    return browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0]).then(r => r.ok ? r.text() : 'HTTP ' + r.status).then(done, e => done(String(e)));",
        href)


def test_colab_link_names_the_repository_at_the_commit_and_the_download_is_a_notebook(
        tmp_path, cache, browser, monkeypatch):
    root, commit = _project(tmp_path)
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.setenv("READER_REPO_URL", "https://github.com/owner/pallas-reader")
    build_site(root, jobs=1)
    for url in serve_folder(root / "site"):
        links = _links(browser, f"{url}/labs/hello.html")
        assert sorted(links) == ["Download .ipynb", "Open in Colab"]
        colab = links["Open in Colab"]
        assert colab["href"] == ("https://colab.research.google.com/github/owner/pallas-reader/blob/"
                                 f"{commit}/notebooks/hello.ipynb")
        assert colab["target"] == "_blank"
        download = links["Download .ipynb"]
        assert download["href"] == f"{url}/labs/hello.ipynb" and download["download"] is not None
        nb = nbformat.reads(_fetch(browser, download["href"]), as_version=4)
    nbformat.validate(nb)
    assert nb.cells[0].cell_type == "code" and "RELEASES = " in nb.cells[0].source
    assert nb.cells[1].source.startswith("# LAB·0.1 · Hello\n\nPrints a greeting.")
    assert "## The greeting" in [c.source for c in nb.cells]
    assert nb.cells[-1].source == "assert main([]) == 0"


def test_without_a_repository_the_build_tells_the_author_and_the_page_the_reader(
        tmp_path, cache, browser, monkeypatch):
    root, _ = _project(tmp_path)
    for name in ("READER_REPO_URL", "GITHUB_REPOSITORY", "GITHUB_SHA"):
        monkeypatch.delenv(name, raising=False)
    report = build_site(root, jobs=1)
    told = [n for n in report.notes if "Open in Colab" in n]
    assert len(told) == 1 and "READER_REPO_URL=https://github.com/OWNER/NAME" in told[0], report.notes
    for url in serve_folder(root / "site"):
        links = _links(browser, f"{url}/labs/hello.html")
        assert sorted(links) == ["Download .ipynb"]
        page = browser.find_element("css selector", "article").text
        assert "READER_REPO_URL" not in page and "this build" not in page, page
        how = browser.find_element("css selector", ".rd-colab-how").text
        assert how.startswith("To run it in Colab, open the downloaded notebook there"), how
        assert "File › Upload notebook" in how
        nbformat.validate(nbformat.reads(_fetch(browser, links["Download .ipynb"]["href"]), as_version=4))
