"""`reader build` and `reader fetch` under faults: two builds at once, kill -9 mid-build and
mid-fetch, a kill between the two renames of the swap; each in child processes on a small project."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import filelock
import pytest

from reader.site import lock_path, recover
from tests.small_project import Small, build_small, reader, tree_digest, write_small

BUILD = ("build", "--jobs", "1")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Small:
    return build_small(tmp_path_factory.mktemp("small"))


@pytest.fixture
def small(built: Small, tmp_path: Path) -> Small:
    return built.copy(tmp_path)


def start(small: Small, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "reader", *argv], cwd=small.root,
                            env=small.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_when(proc: subprocess.Popen[str], ready: Callable[[], bool]) -> bool:
    """SIGKILL `proc` as soon as `ready()` holds; True when the kill landed (it was still running)."""
    deadline = time.monotonic() + 120
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.communicate()
            return False
        time.sleep(0.005)
    proc.kill()
    proc.communicate()
    return proc.returncode == -9


def leftovers(small: Small) -> list[str]:
    return sorted(p.name for p in small.root.glob(".site-*"))


def change_the_title(small: Small) -> None:
    track = small.root / "track.yaml"
    track.write_text(track.read_text().replace("A small track", "A changed track"))


def test_a_second_build_waits_for_the_lock_or_exits_with_no_wait(small):
    with filelock.FileLock(str(lock_path(small.root / "site"))):
        busy = reader(small, "build", "--no-wait")
        assert busy.returncode == 3
        assert busy.stderr == (f"reader: error: {small.root.resolve()}/.site.lock: another reader "
                               "build is writing site/; wait for it to finish, or run without "
                               "--no-wait to wait\n")
        waiting = start(small, *BUILD)
        assert waiting.stderr is not None
        assert waiting.stderr.readline() == ("  another reader build is writing site/; waiting "
                                             "for it to finish\n")
        assert waiting.poll() is None and leftovers(small) == []
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert out.startswith("built 10 pages into ")


def test_two_builds_at_once_both_finish_and_the_site_is_whole(small):
    before = set(tree_digest(small.root / "site"))
    change_the_title(small)
    procs = [start(small, *BUILD) for _ in range(2)]
    results = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    site = small.root / "site"
    assert set(tree_digest(site)) == before
    assert "A changed track" in (site / "index.html").read_text()
    assert leftovers(small) == []


def test_kill_9_mid_build_keeps_the_old_site_and_the_next_build_cleans_up(small):
    site = small.root / "site"
    old = tree_digest(site)
    change_the_title(small)

    def writing() -> bool:  # mkdocs has begun writing pages into the new folder
        return any(True for fresh in small.root.glob(".site-new-*") for _ in fresh.rglob("*.html"))

    landed = [kill_when(start(small, *BUILD), writing) for _ in range(3)]
    assert any(landed), "every build finished before the kill"
    assert [n for n in leftovers(small) if n.startswith(".site-new-")], "the kill left no folder"
    assert tree_digest(site) == old  # the old site, whole, until a build swaps in a new one
    done = reader(small, *BUILD)
    assert done.returncode == 0, done.stderr
    assert leftovers(small) == []
    assert "A changed track" in (site / "index.html").read_text()
    status = reader(small, "fetch", "--status")
    assert status.returncode == 0 and "2/2 files from git" in status.stdout
    assert status.stdout.rstrip().endswith("verified")


def test_a_kill_between_the_two_renames_is_undone_by_the_next_build(small):
    """site/ renamed away, the new folder not yet in: the next build puts the old site back first,
    so even when that build fails the site is there and whole."""
    site = small.root / "site"
    old = tree_digest(site)
    (small.root / ".site-old-x").mkdir()
    site.rename(small.root / ".site-old-x" / "site")
    (small.root / ".site-new-y" / "half").mkdir(parents=True)
    tour = small.root / "annotations" / "tour.yaml"
    tour.write_text(tour.read_text().replace("phase: 1", "phase: one"))
    failed = reader(small, *BUILD)
    assert failed.returncode == 2 and "tour.yaml:3: `phase` must be an integer" in failed.stderr
    assert tree_digest(site) == old
    assert leftovers(small) == []


def test_recover_keeps_the_site_when_the_kill_fell_after_the_swap(tmp_path):
    site = tmp_path / "site"
    (site / "new").mkdir(parents=True)
    (tmp_path / ".site-old-a" / "deleting" / "half").mkdir(parents=True)
    recover(site)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert [p.name for p in site.iterdir()] == ["new"]


def test_kill_9_mid_fetch_then_rerun_completes_and_verifies(tmp_path):
    files = {f"pkg/m{i:03}.py": f"X = {i}\n" + "# padding\n" * 2000 for i in range(150)}
    small = write_small(tmp_path, files)

    def storing() -> bool:  # blobs are going into the cache, the manifest is not written yet
        return (small.cache / "objects").is_dir() and any((small.cache / "objects").iterdir())

    landed = [kill_when(start(small, "fetch"), storing) for _ in range(3)]
    assert any(landed), "every fetch finished before the kill"
    assert reader(small, "fetch", "--status").returncode == 1  # not fetched, said so
    done = reader(small, "fetch")
    assert done.returncode == 0, done.stderr
    status = reader(small, "fetch", "--status")
    assert status.returncode == 0, status.stdout
    # what the killed fetch had stored is kept and used
    assert re.fullmatch(rf"small @ {small.commit[:12]}: 150/150 files from (cache, )?git \S+, "
                        r"verified\n", status.stdout), status.stdout

