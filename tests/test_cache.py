"""The cache's derived-result store: pickled objects, kept results, and pruning of old code versions."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from reader.cache import (
    JOURNAL,
    KEPT,
    Cache,
    atomic_write_all,
    blob_sha,
    code_version,
    finish_interrupted,
)
from reader.errors import InputError


def test_objects_round_trip_and_a_corrupt_entry_reads_as_missing(tmp_path: Path):
    cache = Cache(tmp_path)
    cache.put_object("k", "ab12", {"x": (1, "y")})
    assert cache.get_object("k", "ab12") == {"x": (1, "y")} and cache.has("k", "ab12")
    (tmp_path / "derived" / code_version() / "k" / "ab" / "ab12").write_bytes(b"\x80garbage")
    assert cache.get_object("k", "ab12") is None
    assert cache.get_object("k", "cd34") is None and not cache.has("k", "cd34")


def _old_version(cache: Cache, name: str) -> Path:
    folder = cache.root / "derived" / name / "highlight" / "ab"
    folder.mkdir(parents=True)
    (folder / "abcd").write_text("old")
    return folder.parent.parent


def test_prune_removes_other_code_versions_and_keeps_the_current_and_kept_ones(tmp_path: Path):
    cache = Cache(tmp_path)
    cache.put_json("scan", "ab12", [1])
    cache.put_kept_json("lab-artifacts", "cd34", [2])
    old = _old_version(cache, "0123456789abcdef")
    assert cache.prune() == ["0123456789abcdef"]
    assert not old.exists()
    assert cache.get_json("scan", "ab12") == [1] and cache.get_kept_json("lab-artifacts", "cd34") == [2]
    assert sorted(p.name for p in (tmp_path / "derived").iterdir() if not p.name.startswith(".")) \
        == sorted([code_version(), KEPT])


def _hold(root: str, name: str, ready, release) -> None:
    from reader import cache as module

    module.code_version.cache_clear()
    module.code_version = lambda: name  # type: ignore[assignment]
    with Cache(Path(root)).in_use():
        ready.set()
        release.wait(30)


def test_prune_keeps_a_version_another_process_is_using(tmp_path: Path):
    cache = Cache(tmp_path)
    busy = _old_version(cache, "busy000000000000")
    idle = _old_version(cache, "idle000000000000")
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    other = ctx.Process(target=_hold, args=(str(tmp_path), "busy000000000000", ready, release))
    other.start()
    try:
        assert ready.wait(30)
        assert cache.prune() == ["idle000000000000"]
        assert busy.exists() and not idle.exists()
    finally:
        release.set()
        other.join(30)
    assert cache.prune() == ["busy000000000000"]


def test_staged_results_reach_the_disk_only_when_the_block_succeeds(tmp_path: Path):
    cache = Cache(tmp_path)
    final = tmp_path / "derived" / code_version() / "t" / "ab" / "ab12"
    with cache.staged():
        cache.put_json("t", "ab12", "kept")
        assert cache.get_json("t", "ab12") == "kept" and cache.has("t", "ab12")
        assert not final.exists() and not Cache(tmp_path).has("t", "ab12")
    assert final.read_text() == '"kept"' and Cache(tmp_path).get_json("t", "ab12") == "kept"
    with cache.staged() as staging:
        cache.put_object("o", "cd34", 1)
        staging.discard()
    try:
        with cache.staged():
            cache.put_json("j", "ef56", 2)
            raise KeyError("the build failed")
    except KeyError:
        pass
    assert cache.get_object("o", "cd34") is None and cache.get_json("j", "ef56") is None
    assert [p.name for p in (tmp_path / "derived").iterdir()] == [code_version()]


def _stage_and_die(root: str) -> None:
    cache = Cache(Path(root))
    with cache.staged():
        cache.put_json("t", "ab12", "never")
        os._exit(9)  # killed mid-build: the staging folder stays behind


def test_a_killed_build_leaves_nothing_in_place_and_prune_removes_its_staging(tmp_path: Path):
    ctx = multiprocessing.get_context("spawn")
    child = ctx.Process(target=_stage_and_die, args=(str(tmp_path),))
    child.start()
    child.join(30)
    left = [p.name for p in (tmp_path / "derived").iterdir()]
    assert len(left) == 1 and left[0].startswith(".staging-")
    assert Cache(tmp_path).get_json("t", "ab12") is None
    Cache(tmp_path).prune()
    assert list((tmp_path / "derived").iterdir()) == []


def test_atomic_write_makes_its_folders_and_leaves_no_temp_file(tmp_path, monkeypatch):
    import itertools

    from reader import cache as cache_module
    from reader.cache import atomic_write

    target = tmp_path / "a" / "b" / "file.bin"
    atomic_write(target, b"one", durable=False)
    assert target.read_bytes() == b"one"
    # a dead process's leftover holds the next temp name: the write goes through anyway
    monkeypatch.setattr(cache_module, "_TEMPS", itertools.count(7))
    leftover = target.parent / f".file.bin.{os.getpid()}-7.tmp"
    leftover.write_bytes(b"old")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert sorted(p.name for p in target.parent.iterdir()) == [leftover.name, "file.bin"]


def test_the_code_version_names_the_versions_of_the_libraries_that_shape_the_output(monkeypatch):
    import importlib.metadata
    import platform

    from reader import cache as cache_mod

    found = cache_mod.library_versions()
    assert list(found) == list(cache_mod.SHAPING)
    assert found["Python"] == f"{platform.python_implementation()} {platform.python_version()}"
    for name in cache_mod.SHAPING[1:]:
        assert found[name] == importlib.metadata.version(name), name
    # Another Pygments (or any of them): another code version, so no derived result is shared.
    versions = []
    for pygments in ("2.21.0", "2.22.0"):
        monkeypatch.setattr(cache_mod, "library_versions", lambda p=pygments: {**found, "Pygments": p})
        cache_mod.code_version.cache_clear()
        versions.append(cache_mod.code_version())
    cache_mod.code_version.cache_clear()
    assert versions[0] != versions[1]


def test_a_journal_left_by_a_killed_write_is_completed_and_a_changed_file_refused(tmp_path: Path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"old a")
    b.write_bytes(b"old b")
    atomic_write_all({a: b"new a", b: b"new b"})
    assert (a.read_bytes(), b.read_bytes()) == (b"new a", b"new b") and not (tmp_path / JOURNAL).exists()
    # What a SIGKILL after the journal and the first file leaves: the rest is written on the next read.
    journal = {"files": {"a.txt": {"old": blob_sha(b"new a"), "new": "YWFh"},
                         "b.txt": {"old": blob_sha(b"new b"), "new": "YmJi"}}}
    (tmp_path / JOURNAL).write_text(json.dumps(journal))
    a.write_bytes(b"aaa")
    assert finish_interrupted(tmp_path) == ["a.txt", "b.txt"]
    assert (a.read_bytes(), b.read_bytes()) == (b"aaa", b"bbb") and not (tmp_path / JOURNAL).exists()
    # A file edited by hand since: nothing is overwritten, the journal is named.
    (tmp_path / JOURNAL).write_text(json.dumps(journal).replace(blob_sha(b"new b"), blob_sha(b"bbb")))
    a.write_bytes(b"edited")
    with pytest.raises(InputError, match="but a.txt changed since"):
        finish_interrupted(tmp_path)
    assert a.read_bytes() == b"edited"
