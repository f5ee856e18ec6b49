"""`reader pin`: move a pin by tag or sha through git, or from a release archive; atomic rewrites."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from reader import atomic
from reader.atomic import JOURNAL
from reader.cache import Cache, blob_sha
from reader.cli import main
from reader.corpus import Corpus, Project
from reader.errors import FetchError, InputError
from reader.lockfile import lock_from_archive
from reader.pinning import move_pin
from reader.pins import Pin, load_lock, load_pins
from tests.conftest import REPO_ROOT
from tests.diff_project import make_demo, tree


@pytest.fixture
def demo(tmp_path, cache, monkeypatch):
    return make_demo(tmp_path, monkeypatch)


def _snapshot(root: Path) -> tuple[bytes, bytes]:
    return (root / "pins.toml").read_bytes(), (root / "pins.lock").read_bytes()


def _shas(files: dict[str, str]) -> dict[str, str]:
    return {p: blob_sha(t.encode()) for p, t in files.items()}


def test_pin_to_a_tag_rewrites_pins_and_lock_keeping_comments(demo, capsys):
    upstream, root = demo
    before = (root / "pins.toml").read_text()
    assert main(["-C", str(root), "pin", "jax", "--to", "v1"]) == 0
    out = capsys.readouterr().out
    assert f"jax: {upstream.commits[0][:7]} -> {upstream.commits[1][:7]} (v1)" in out
    after = (root / "pins.toml").read_text()
    expected = before.replace(upstream.commits[0], upstream.commits[1]).replace('"v0"', '"v1"')
    # Only the commit and tag changed, and the commit date was added after the last key.
    assert after.startswith("# The demo's pins: keep this comment.\n")
    date = [line for line in after.splitlines() if line.startswith("date = ")]
    assert len(date) == 1 and after.replace(date[0] + "\n", "") == expected
    pins = load_pins(root / "pins.toml")
    lock = load_lock(root / "pins.lock", pins)["jax"]
    assert lock.commit == upstream.commits[1] and lock.source == ""
    assert lock.files == _shas(tree(1))
    # The new files are in the cache already: opening the corpus needs no source.
    corpus = Corpus.open(Project.load(root), Cache(), names=["jax"])
    assert corpus.read_text("jax", "jax/_src/pallas/core.py") == tree(1)["jax/_src/pallas/core.py"]


def test_pin_to_a_full_sha_drops_the_old_tag(demo, capsys):
    upstream, root = demo
    assert main(["-C", str(root), "pin", "jax", "--to", upstream.commits[1].upper()]) == 0
    assert "dropped tag 'v0'" in capsys.readouterr().out
    pin = load_pins(root / "pins.toml")["jax"]
    assert (pin.commit, pin.tag) == (upstream.commits[1], "")


@pytest.mark.parametrize("argv, message", [
    (["pin", "jax", "--to", "no-such-tag"], "'no-such-tag' is not a full 40-hex commit sha"),
    (["pin", "numpy", "--to", "v1"], "unknown pin 'numpy'"),
    (["pin", "jax", "--to", "v1", "--release", "jax"], "--release 'jax' is not NAME==VERSION"),
])
def test_bad_input_exits_2_and_writes_nothing(demo, capsys, argv, message):
    _, root = demo
    before = _snapshot(root)
    assert main(["-C", str(root), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reader: error: ") and message in err and "Traceback" not in err
    assert _snapshot(root) == before


def test_unreachable_git_without_release_says_what_to_do(demo, tmp_path, monkeypatch, capsys):
    upstream, root = demo
    monkeypatch.setenv("READER_MIRROR_JAX", str(tmp_path / "nowhere"))
    before = _snapshot(root)
    assert main(["-C", str(root), "pin", "jax", "--to", upstream.commits[1]]) == 2
    err = capsys.readouterr().err
    assert "no --release names an archive" in err and "READER_MIRROR_JAX" in err
    assert _snapshot(root) == before


def _sdist(path: Path, top: str, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_without_git_the_release_archive_is_locked_by_blob(demo, tmp_path, monkeypatch, capsys):
    upstream, root = demo
    monkeypatch.setenv("READER_MIRROR_JAX", str(tmp_path / "nowhere"))
    shipped = {p: t for p, t in tree(1).items() if p != "jax/_src/pallas/utils.py"}
    archive = _sdist(tmp_path / "jax-1.0.tar.gz", "jax-1.0",
                     {**shipped, "PKG-INFO": "Name: jax\n", "jax/version.py": "x = 1\n"})
    asked = []
    move = move_pin(root, "jax", upstream.commits[1], "jax==1.0", Cache(),
                    download=lambda release, dest: asked.append(release) or archive)
    assert asked == ["jax==1.0"] and move.via == "archive jax==1.0"
    lock = load_lock(root / "pins.lock", load_pins(root / "pins.toml"))["jax"]
    # Exactly the pinned .py files the archive carries, by their git blob shas.
    assert lock.files == _shas(shipped) and lock.source == "archive jax==1.0"
    pin = load_pins(root / "pins.toml")["jax"]
    assert (pin.commit, pin.release, pin.tag, pin.date) == (upstream.commits[1], "jax==1.0", "", "")
    assert move.fetched.served == len(shipped) and not move.fetched.mismatches
    # The file the archive lacks is not reported as deleted upstream.
    assert main(["-C", str(root), "diff", "--format", "json"]) == 1
    changes = json.loads(capsys.readouterr().out)["changes"]
    files = [(c["path"], c["status"]) for c in changes if c["section"] == "files"]
    assert files == [("jax/_src/pallas/utils.py", "unknown")]
    note = next(c for c in changes if c.get("note") == "note-unchanged")
    assert note["status"] == "orphaned" and "jax==1.0 archive" in note["detail"]


def test_an_archive_without_pinned_files_is_refused(tmp_path):
    archive = _sdist(tmp_path / "other-1.0.tar.gz", "other-1.0", {"other/x.py": "x = 1\n"})
    pin = Pin("jax", "https://example.invalid/jax", "0" * 40, ("jax/_src/pallas",), "other==1.0")
    with pytest.raises(FetchError, match="holds no .py file under jax/_src/pallas"):
        lock_from_archive(pin, archive)


def test_a_failed_write_leaves_pins_and_lock_as_they_were(demo, monkeypatch):
    upstream, root = demo
    before = _snapshot(root)
    real, calls = os.replace, []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("disk full")
        real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", flaky)
    with pytest.raises(OSError, match="disk full"):
        move_pin(root, "jax", "v1", cache=Cache())
    monkeypatch.setattr(atomic.os, "replace", real)
    # The lock was renamed into place first, then restored when pins.toml failed.
    assert len(calls) >= 2 and _snapshot(root) == before
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def test_a_commit_the_reachable_repository_lacks_is_not_taken_from_the_archive(demo, capsys):
    _, root = demo
    before = _snapshot(root)
    assert main(["-C", str(root), "pin", "jax", "--to", "1" * 40, "--release", "jax==1.0"]) == 2
    err = capsys.readouterr().err
    assert f"does not serve commit {'1' * 40}" in err and "check the sha" in err
    assert _snapshot(root) == before


def _recording_sdist(tmp_path: Path, commit: str, files: dict[str, str]) -> Path:
    version = f'"""Version."""\n\n_version = "1.0"\n_git_hash: str = {commit!r}\n'
    return _sdist(tmp_path / "jax-1.0.tar.gz", "jax-1.0",
                  {**files, "PKG-INFO": "Name: jax\n", "jax/version.py": version})


def test_release_alone_moves_to_the_commit_the_release_records(demo, tmp_path, monkeypatch):
    upstream, root = demo
    monkeypatch.setenv("READER_MIRROR_JAX", str(tmp_path / "nowhere"))
    archive = _recording_sdist(tmp_path, upstream.commits[1], tree(1))
    asked = []
    move = move_pin(root, "jax", "", "jax==1.0", Cache(),
                    download=lambda release, dest: asked.append(release) or archive)
    # One download serves both the recorded commit and the files.
    assert asked == ["jax==1.0"]
    assert move.recorded is not None and move.recorded.sha == upstream.commits[1]
    assert str(move.recorded.where) == "jax/version.py:4" and move.recorded.name == "_git_hash"
    pin = load_pins(root / "pins.toml")["jax"]
    assert (pin.commit, pin.release) == (upstream.commits[1], "jax==1.0")
    lock = load_lock(root / "pins.lock", load_pins(root / "pins.toml"))["jax"]
    assert lock.files == _shas(tree(1)) and lock.source == "archive jax==1.0"


def test_a_move_adds_the_release_it_leaves_to_the_history(demo, tmp_path, monkeypatch):
    upstream, root = demo
    monkeypatch.setenv("READER_MIRROR_JAX", str(tmp_path / "nowhere"))
    archives = {"jax==1.0": _recording_sdist(tmp_path, upstream.commits[1], tree(1))}
    (tmp_path / "old").mkdir()
    archives["jax==0.9"] = _recording_sdist(tmp_path / "old", upstream.commits[0], tree(0))
    move_pin(root, "jax", "", "jax==1.0", Cache(), download=lambda release, dest: archives[release])
    assert load_pins(root / "pins.toml")["jax"].history == ()  # the demo's pin named no release
    move_pin(root, "jax", "", "jax==0.9", Cache(), download=lambda release, dest: archives[release])
    assert load_pins(root / "pins.toml")["jax"].history == ("jax==1.0",)
    move_pin(root, "jax", "", "jax==1.0", Cache(), download=lambda release, dest: archives[release])
    # the release moved to leaves the history; the one left joins it
    assert load_pins(root / "pins.toml")["jax"].history == ("jax==0.9",)


def test_release_alone_with_git_reachable_locks_from_git(demo, tmp_path):
    upstream, root = demo
    archive = _recording_sdist(tmp_path, upstream.commits[1], {})
    move = move_pin(root, "jax", "", "jax==1.0", Cache(), download=lambda release, dest: archive)
    assert move.via.startswith("git ") and move.recorded.sha == upstream.commits[1]
    lock = load_lock(root / "pins.lock", load_pins(root / "pins.toml"))["jax"]
    assert lock.files == _shas(tree(1)) and lock.source == ""


@pytest.mark.parametrize("version_py, what", [
    ("x = 1\n", "records no commit"),
    (f"_git_hash = '{'a' * 40}'\n", "records 2 different commits"),
])
def test_a_release_that_does_not_record_one_commit_is_refused(demo, tmp_path, version_py, what):
    _, root = demo
    before = _snapshot(root)
    archive = _sdist(tmp_path / "jax-1.0.tar.gz", "jax-1.0", {
        "jax/version.py": version_py, "jax/_src/version.py": f"GIT_REVISION = '{'b' * 40}'\n"})
    if what == "records no commit":
        archive = _sdist(tmp_path / "jax-1.0.tar.gz", "jax-1.0", {"jax/version.py": version_py})
    with pytest.raises(FetchError, match=what) as e:
        move_pin(root, "jax", "", "jax==1.0", Cache(), download=lambda release, dest: archive)
    assert "pass the commit with --to" in str(e.value.hint)
    assert _snapshot(root) == before


def test_neither_to_nor_release_is_a_usage_error(demo, capsys):
    _, root = demo
    before = _snapshot(root)
    assert main(["-C", str(root), "pin", "jax"]) == 2
    assert "nothing to move to" in capsys.readouterr().err
    assert _snapshot(root) == before


@pytest.mark.parametrize("git_reachable", [False, True])
@pytest.mark.parametrize("to", ["the other release's", "all zeros"])
def test_a_release_that_records_another_commit_is_refused_naming_both(demo, tmp_path, monkeypatch,
                                                                       git_reachable, to):
    upstream, root = demo
    if not git_reachable:
        monkeypatch.setenv("READER_MIRROR_JAX", str(tmp_path / "nowhere"))
    before = _snapshot(root)
    archive = _recording_sdist(tmp_path, upstream.commits[1], tree(1))
    target = upstream.commits[0] if to == "the other release's" else "0" * 40
    if git_reachable and to == "all zeros":
        return  # a reachable repository without the commit is refused before any archive
    with pytest.raises(InputError) as e:
        move_pin(root, "jax", target, "jax==1.0", Cache(), download=lambda release, dest: archive)
    assert e.value.message.startswith(f"--to {target} is not the commit jax==1.0 was built from: "
                                      f"it records {upstream.commits[1]} (recorded as _git_hash")
    assert str(e.value.location) == "jax-1.0.tar.gz:jax/version.py:4"
    assert f"pass --to {upstream.commits[1]}" in str(e.value.hint)
    assert _snapshot(root) == before


KILLED_MID_WRITE = """
import os, signal, sys
from reader import atomic
from reader.cli import main
real, written = atomic.atomic_write, []

def write_then_die(path, data, durable=True):
    real(path, data, durable)
    if path.name in (atomic.JOURNAL, "pins.toml", "pins.lock"):
        written.append(path.name)
    if len(written) == 2:  # the journal, then one of the two files
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))

atomic.atomic_write = write_then_die
sys.exit(main(["pin", "jax", "--to", "v1"]))
"""


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM"])
def test_a_pin_killed_between_its_two_files_leaves_both_new(demo, cache, sig):
    upstream, root = demo
    old = _snapshot(root)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), READER_CACHE=str(cache.root))
    done = subprocess.run([sys.executable, "-c", KILLED_MID_WRITE, sig], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -getattr(signal, sig), done.stderr
    if sig == "SIGTERM":  # it waited until both files were written
        assert not (root / JOURNAL).exists() and _snapshot(root) != old
    else:  # killed outright: one file new, the journal says what the other must hold
        assert (root / JOURNAL).exists() and (root / "pins.toml").read_bytes() == old[0]
    pins = load_pins(root / "pins.toml")  # what every command reads first
    assert pins["jax"].commit == upstream.commits[1]
    assert load_lock(root / "pins.lock", pins)["jax"].files == _shas(tree(1))
    assert not (root / JOURNAL).exists()
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_pin_killed_at_any_moment_leaves_both_files_old_or_both_new(demo, cache, tmp_path, sig):
    upstream, root = demo
    old = _snapshot(root)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), READER_CACHE=str(cache.root))
    argv = [sys.executable, "-m", "reader", "pin", "jax", "--to", "v1"]
    for delay in (0.3, 0.6, 0.9, 1.2, 1.5):
        shutil.rmtree(cache.root, ignore_errors=True)
        (root / "pins.toml").write_bytes(old[0])
        (root / "pins.lock").write_bytes(old[1])
        proc = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(sig)
        proc.wait(timeout=120)
        pins = load_pins(root / "pins.toml")
        commit = pins["jax"].commit
        assert commit in upstream.commits[:2]
        assert load_lock(root / "pins.lock", pins)["jax"].files == _shas(tree(upstream.commits.index(commit)))


PIP_SAYS = ("ERROR: Could not find a version that satisfies the requirement jax==0.11.3 (from "
            "versions: 0.1, 0.11.1, 0.11.2, 0.12.0, 0.12.0.1)\n"
            "ERROR: No matching distribution found for jax==0.11.3\n")


@pytest.mark.parametrize("said, message", [
    (PIP_SAYS, "--release jax==0.11.3: the package index has no source archive of jax==0.11.3 "
               "(the nearest it has: 0.11.1, 0.11.2, 0.12.0); name a release the index has"),
    (PIP_SAYS.replace("0.1, 0.11.1, 0.11.2, 0.12.0, 0.12.0.1", "none"),  # offline, or no such name
     "--release jax==0.11.3: pip download failed: ERROR: No matching distribution found for "
     "jax==0.11.3; check the name and version, and that the package index is reachable"),
])
def test_a_release_the_index_lacks_is_named_with_its_neighbours_and_nothing_is_written(
        demo, monkeypatch, capsys, said, message):
    _, root = demo
    before = _snapshot(root)
    monkeypatch.setattr("reader.fetch.subprocess.run",
                        lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, "", said))
    assert main(["-C", str(root), "pin", "jax", "--release", "jax==0.11.3"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(f"reader: error: {message}") and "Traceback" not in err
    assert _snapshot(root) == before
