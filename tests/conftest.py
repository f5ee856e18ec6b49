"""Shared fixtures: temporary upstream git repos and projects pinned to them."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from reader.cache import Cache, blob_sha
from reader.pins import LockEntry, dump_lock

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


@dataclass
class Upstream:
    """A local git repository with one commit per version, tagged `v<i>`."""

    path: Path
    commits: list[str]

    @property
    def url(self) -> str:
        return self.path.as_uri()


def make_upstream(path: Path, versions: list[dict[str, str]]) -> Upstream:
    """Each dict is a whole tree (path -> text) committed on top of the previous one."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.invalid")
    git(path, "config", "user.name", "t")
    git(path, "config", "uploadpack.allowFilter", "true")
    git(path, "config", "uploadpack.allowAnySHA1InWant", "true")
    commits = []
    for i, tree in enumerate(versions):
        for old in path.rglob("*.py"):
            old.unlink()
        for rel, text in tree.items():
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            (path / rel).write_text(text)
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", f"version {i}")
        git(path, "tag", f"v{i}")
        commits.append(git(path, "rev-parse", "HEAD"))
    return Upstream(path, commits)


def write_project(root: Path, name: str, repo: str, commit: str, files: dict[str, str],
                  paths: tuple[str, ...] = ("pkg",), release: str = "") -> Path:
    """A project whose single pin `name` locks exactly `files` (path -> text) at `commit`."""
    root.mkdir(parents=True, exist_ok=True)
    rel = f'release = "{release}"\n' if release else ""
    (root / "pins.toml").write_text(
        f'[pins.{name}]\nrepo = "{repo}"\ncommit = "{commit}"\n{rel}'
        f"paths = [{', '.join(repr(p).replace(chr(39), chr(34)) for p in paths)}]\n")
    lock = LockEntry(name, commit, {p: blob_sha(t.encode()) for p, t in files.items()})
    (root / "pins.lock").write_text(dump_lock({name: lock}))
    return root


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cache:
    root = tmp_path / "cache"
    monkeypatch.setenv("READER_CACHE", str(root))
    return Cache(root)


class Forks(list):
    """The test's `os.fork` calls; one while `serial` is set fails it (a one-process build forked)."""

    serial = False


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Forks:
    counted, fork = Forks(), os.fork

    def counted_fork() -> int:
        assert not counted.serial, "a one-process build forked"
        counted.append(1)
        return fork()
    monkeypatch.setattr(os, "fork", counted_fork)
    return counted


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once for the session from the repository's pins (the default cache:
    CI fetches them first); its folder. `READER_REAL_SITE` names one built already (`reader build`
    of this checkout) to read instead."""
    from reader.site import build_site

    built = os.environ.get("READER_REAL_SITE")
    if built:
        return Path(built).resolve()
    site = tmp_path_factory.mktemp("real") / "site"
    build_site(REPO_ROOT, site)
    return site


@pytest.fixture(autouse=True, scope="session")
def _declared_reads_only() -> Iterator[None]:
    """Every producer run in the tests is handed a view of its inputs that raises on reading
    anything its inputs do not declare (`reader.providers.strict`)."""
    from reader.providers import strict

    with strict():
        yield
