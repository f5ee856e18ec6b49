"""The cache's derived-result store: pickled objects, kept results, and pruning of old code versions."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

from reader.cache import KEPT, Cache
from reader.versions import code_version


def test_objects_round_trip_and_a_corrupt_entry_reads_as_missing(tmp_path: Path):
    cache = Cache(tmp_path)
    cache.put_object("k", "ab12", {"x": (1, "y")})
    assert cache.get_object("k", "ab12") == {"x": (1, "y")} and cache.has("k", "ab12")
    (tmp_path / "derived" / code_version() / "k" / "ab" / "ab12").write_bytes(b"\x80garbage")
    assert cache.get_object("k", "ab12") is None
    assert cache.get_object("k", "cd34") is None and not cache.has("k", "cd34")


def test_a_frozen_result_is_unpickled_once_while_its_file_is_the_same(tmp_path: Path, monkeypatch):
    """`get_frozen` (a rendered page: `reader serve` builds again and again in one process) reads a
    result back from memory while its file is the one it read, and from the file once it changed."""
    from reader import cache as module

    cache = Cache(tmp_path)
    cache.put_object("k", "ab12", ("page", 1))
    loads = []
    monkeypatch.setattr(module, "_unpickled", lambda data: loads.append(data) or module.pickle.loads(data))
    first = cache.get_frozen("k", "ab12")
    assert first == ("page", 1) and cache.get_frozen("k", "ab12") is first and len(loads) == 1
    cache.put_object("k", "ab12", ("page", 2))  # a new file (atomic_write: another inode)
    assert cache.get_frozen("k", "ab12") == ("page", 2) and len(loads) == 2
    (tmp_path / "derived" / code_version() / "k" / "ab" / "ab12").unlink()
    assert cache.get_frozen("k", "ab12") is None
    with cache.staged():  # a result staged by this build is read from the staging folder
        cache.put_object("k", "ab12", ("page", 3))
        assert cache.get_frozen("k", "ab12") == ("page", 3)
    assert cache.get_frozen("k", "ab12") == ("page", 3)


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


def test_a_commit_moves_new_folders_whole_and_merges_into_existing_ones(tmp_path: Path):
    cache = Cache(tmp_path)
    with cache.staged():
        cache.put_json("t", "ab12", "first")
    derived = tmp_path / "derived" / code_version()
    with cache.staged() as staging:
        cache.put_json("t", "ab34", "beside")  # into the existing folder t/ab
        cache.put_json("u", "cd56", "new kind")  # u/ does not exist: moved in one rename
        (staging.folder / code_version() / "u" / "cd" / "cd78.tmp").write_text("unfinished")
    assert (derived / "t" / "ab" / "ab12").read_text() == '"first"'
    assert cache.get_json("t", "ab34") == "beside" and cache.get_json("u", "cd56") == "new kind"
    assert sorted(p.name for p in (derived / "u" / "cd").iterdir()) == ["cd56"]
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


def test_a_template_compiled_once_is_read_back_from_the_cache(tmp_path, monkeypatch):
    """A build's process compiles a template the cache lacks and keeps its code there; the next
    process (a fresh environment) reads it back and compiles nothing, rendering the same text."""
    import jinja2

    from reader.render.common import templates

    cache = Cache(tmp_path / "cache")
    templates.environment.cache_clear()
    templates.keep_compiled(cache)
    first = templates.render("page.md.j2", title="T", hide=["toc"], slot="S")
    templates.environment.cache_clear()

    def compiled(*_args, **_kwargs):
        raise AssertionError("a template kept in the cache compiled again")

    monkeypatch.setattr(jinja2.Environment, "compile", compiled)
    try:
        templates.keep_compiled(cache)
        assert templates.render("page.md.j2", title="T", hide=["toc"], slot="S") == first
    finally:
        templates.environment.cache_clear()
