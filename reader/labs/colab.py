"""A lab's "Open in Colab" link: the notebook in the project's GitHub repository at a commit, found
from `READER_REPO_URL`, GitHub Actions' variables or the checkout's `origin`; or, without one,
a note for the track's author (the build's notes, never the page) that says how to get it."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from reader.errors import GitError
from reader.labs.notebook import notebook_path

REPO_ENV = "READER_REPO_URL"
"""The project's GitHub repository (`https://github.com/OWNER/NAME`), when its checkout does not say:
the lab pages' "Open in Colab" links open the notebook there. Else GitHub Actions' own variables
name it, or the checkout's `origin` remote; with none of them, the build's notes say how to get the link."""
def colab_url(repo_url: str, commit: str, name: str) -> str:
    """Colab's URL of the notebook in a GitHub repository at `commit`; "" when `repo_url` is not
    a GitHub repository (Colab opens notebooks from GitHub only) or no commit is known."""
    found = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?", repo_url.strip())
    if not found or not re.fullmatch(r"[0-9a-f]{40}", commit):
        return ""
    return (f"https://colab.research.google.com/github/{found.group(1)}/{found.group(2)}"
            f"/blob/{commit}/{notebook_path(name)}")


class ColabSource(NamedTuple):
    """Where the lab pages' Colab links point: a repository URL and a commit ("" when unknown), and
    a note: with a link, what it opens when that is not the commit built; without one, why and
    how to get it."""

    repo: str
    commit: str
    note: str = ""


class Colab(NamedTuple):
    """A lab's "Open in Colab" link ("" when there is none) and what the reader is told of it (what it
    opens when that is not the commit built)."""

    url: str
    note: str = ""


NO_LINK = Colab("")


def colab_link(source: ColabSource, name: str) -> Colab:
    url = colab_url(source.repo, source.commit, name)
    return Colab(url, source.note if url else "")


def colab_build_note(source: ColabSource) -> str:
    """The build's note for the track's author when the lab pages have no Colab link: why, and how
    to get one ("" with a link, or when nothing is known: an older edition's build)."""
    if colab_url(source.repo, source.commit, "x") or not source.note:
        return ""
    return f"the lab pages have no 'Open in Colab' link: {source.note}"


NO_REPOSITORY = (f"this build knew no GitHub repository to open it from: build from a clone of "
                 f"GitHub (its origin names it) or set {REPO_ENV}=https://github.com/OWNER/NAME")


def project_colab(root: Path, commits: Callable[[Path], tuple[str, str | None]],
                  env: Mapping[str, str] = os.environ) -> ColabSource:
    """The repository and commit the lab pages' Colab links name: `READER_REPO_URL`, else GitHub
    Actions' repository, else the checkout's `origin` when it is on GitHub; at the commit built,
    or, where that is not on GitHub yet, the newest commit of its history that is (a remote's
    branch holds it: `commits`, the git reads the command hands over, `opening.built_commits`).
    Without a repository or a commit, a note that says how to get the link."""
    repo = env.get(REPO_ENV, "").strip()
    actions = env.get("GITHUB_REPOSITORY", "").strip()
    if not repo and actions:
        repo = f"{env.get('GITHUB_SERVER_URL', 'https://github.com').rstrip('/')}/{actions}"
    if not repo:
        repo = github_url(origin_url(root))  # read from the checkout's config: GitPython loads only for a link
    if not repo:
        return ColabSource("", "", NO_REPOSITORY)
    if not colab_url(repo, "0" * 40, "x"):
        return ColabSource("", "", f"{repo} is not on GitHub, and Colab opens notebooks from GitHub only")
    if actions and re.fullmatch(r"[0-9a-f]{40}", env.get("GITHUB_SHA", "")):
        return ColabSource(repo, env["GITHUB_SHA"])
    try:
        head, pushed = commits(root)
    except GitError:  # not a git checkout, or no commit yet
        return ColabSource("", "", "this build is not a commit of a git checkout, and Colab opens a notebook at one")
    if pushed is None or pushed == head:  # no remote's branches to tell: the commit built
        return ColabSource(repo, head)
    if not pushed:
        return ColabSource("", "", f"no commit of this build is on {repo} yet: push it and build again")
    return ColabSource(repo, pushed, f"as of {pushed[:7]}, the newest commit of this build on GitHub")


def github_url(url: str) -> str:
    """`https://github.com/OWNER/NAME` for a GitHub remote URL (https, ssh or scp-like); "" for others."""
    found = re.fullmatch(r"(?:https://|ssh://git@|git@)github\.com[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?/?", url.strip())
    return f"https://github.com/{found.group(1)}/{found.group(2)}" if found else ""


def origin_url(root: Path) -> str:
    """The `origin` remote's URL in the git checkout holding `root` (its config read as text, so
    that a build without a GitHub remote never loads GitPython); "" when there is none."""
    for folder in (root.resolve(), *root.resolve().parents):
        dot = folder / ".git"
        if dot.is_file():  # a worktree: `gitdir: PATH`, whose `commondir` holds the config
            found = re.match(r"gitdir:\s*(.+)", dot.read_text(encoding="utf-8", errors="replace"))
            gitdir = (folder / found.group(1).strip()) if found else dot
            common = gitdir / "commondir"
            dot = (gitdir / common.read_text().strip()) if common.is_file() else gitdir
        if dot.is_dir():
            config = dot / "config"
            text = config.read_text(encoding="utf-8", errors="replace") if config.is_file() else ""
            section = re.search(r'^\s*\[remote\s+"origin"\]\s*$(.*?)(?=^\s*\[|\Z)', text, re.M | re.S)
            url = section and re.search(r"^\s*url\s*=\s*(\S+)", section.group(1), re.M)
            return url.group(1) if url else ""
    return ""
