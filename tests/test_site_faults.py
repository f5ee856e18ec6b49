"""`reader build` and `reader fetch` under faults: two builds at once, kill -9 mid-build and
mid-fetch, a kill between the two renames of the swap; each in child processes on a small project."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import filelock
import pytest

from reader.cache import blob_sha
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



def test_a_flipped_bit_in_a_cached_blob_still_builds_the_right_site(small):
    site = small.root / "site"
    old = tree_digest(site)
    sha = next(line.split('"')[3] for line in (small.root / "pins.lock").read_text().splitlines()
               if line.startswith('"pkg/core.py"'))
    obj = small.cache / "objects" / sha[:2] / sha[2:]
    data = bytearray(obj.read_bytes())
    data[len(data) // 2] ^= 0x01
    obj.write_bytes(bytes(data))
    shutil.rmtree(small.cache / "derived")  # so that the build reads the blob
    done = reader(small, *BUILD)
    assert done.returncode == 0, done.stderr
    assert "small: fetching files: 1/1" in done.stderr  # the one file, from the upstream again
    assert tree_digest(site) == old
    assert blob_sha(obj.read_bytes()) == sha
    # `reader fetch` reads every blob: a flipped bit is named, refused and served again.
    obj.write_bytes(bytes(data))
    fetched = reader(small, "fetch")
    assert fetched.returncode == 1 and f"from the cache's copy {obj} does not match the lock's {sha}" \
        in fetched.stdout
    assert reader(small, "fetch").returncode == 0 and blob_sha(obj.read_bytes()) == sha


def test_truncated_cache_entries_are_computed_again(small):
    site = small.root / "site"
    old = tree_digest(site)
    cut = 0
    for entry in [*small.cache.glob("derived/*/**/*"), *small.cache.glob("pins/*.json")]:
        if entry.is_file():
            entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
            cut += 1
    assert cut > 20
    change_the_title(small)  # a build that renders, then back: the site must be the old one
    assert reader(small, *BUILD).returncode == 0
    change_the_title_back = small.root / "track.yaml"
    change_the_title_back.write_text(change_the_title_back.read_text().replace("A changed track",
                                                                               "A small track"))
    done = reader(small, *BUILD)
    assert done.returncode == 0, done.stderr
    assert tree_digest(site) == old
    assert reader(small, "fetch", "--status").returncode == 0


def _files(digest: dict[str, str]) -> dict[str, str]:
    """A cache's files, without its folders and (empty) lock files."""
    return {k: v for k, v in digest.items() if v != "/" and not k.endswith(".lock")}


ENOSPC = """
import errno, sys
import mkdocs.utils
from reader import cache
from reader.cli import main
where, after = sys.argv[1], int(sys.argv[2])
calls = [0]

def full(*args, **kwargs):
    calls[0] += 1
    if calls[0] > after:
        raise OSError(errno.ENOSPC, "No space left on device", str(args[1]))
    return real(*args, **kwargs)

if where == "site":
    real = mkdocs.utils.write_file
    mkdocs.utils.write_file = full
else:
    real = cache.atomic_write
    cache.atomic_write = full
sys.exit(main(["build", "--jobs", "1"]))
"""


@pytest.mark.parametrize("where, after", [("site", 3), ("cache", 5)])
def test_a_full_disk_mid_build_is_one_located_error_and_loses_nothing(small, where, after):
    site = small.root / "site"
    old = tree_digest(site)
    change_the_title(small)
    shutil.rmtree(small.cache / "derived")  # every result is written again
    cache_before = tree_digest(small.cache)
    full = subprocess.run([sys.executable, "-c", ENOSPC, where, str(after)], cwd=small.root,
                          env=small.env(), capture_output=True, text=True, timeout=180)
    assert full.returncode == 2, full.stderr
    errors = [line for line in full.stderr.splitlines() if line.startswith("reader: error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0], full.stderr
    assert "free some space" in errors[0] and "Traceback" not in full.stderr
    assert tree_digest(site) == old and leftovers(small) == []
    # The cache holds nothing of the failed build (no half result, no staging folder left).
    assert _files(tree_digest(small.cache)) == _files(cache_before)
    done = reader(small, *BUILD)
    assert done.returncode == 0, done.stderr
    assert "A changed track" in (site / "index.html").read_text()
