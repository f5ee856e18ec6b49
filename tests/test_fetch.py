"""Fetching pinned files: each source, verification, unsafe sources, interruption, concurrency."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tarfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from reader.cache import Cache, blob_sha
from reader.cli import main
from reader.corpus import Corpus, Project
from reader.errors import FetchError
from reader.fetch import (
    ArchiveSource,
    GitSource,
    InstalledSource,
    WheelSource,
    cached_list,
    fetch_pin,
    verify_cached,
)
from tests.conftest import REPO_ROOT, git, make_upstream, write_project

V0 = {"pkg/a.py": "A = 1\n", "pkg/b.py": "def b():\n    return 2\n", "pkg/old.py": "OLD = 0\n"}
V1 = {"pkg/a.py": "A = 10\n", "pkg/b.py": "def b():\n    return 2\n", "pkg/c.py": "C = 3\n",
      "docs/readme.md": "not pinned\n"}
PINNED_V1 = {p: t for p, t in V1.items() if p.startswith("pkg/")}


@pytest.fixture
def upstream(tmp_path):
    return make_upstream(tmp_path / "upstream", [V0, V1])


def _project(tmp_path, upstream, files=PINNED_V1):
    return Project.load(write_project(tmp_path / "proj", "up", "https://github.com/x/up",
                                      upstream.commits[1], files))


def test_git_mirror_serves_the_pinned_commit_only(tmp_path, upstream, cache, monkeypatch, capsys):
    monkeypatch.setenv("READER_MIRROR_UP", str(upstream.path))
    project = _project(tmp_path, upstream)
    assert main(["-C", str(project.root), "fetch"]) == 0
    out = capsys.readouterr()
    assert f"up @ {upstream.commits[1][:12]}: 3/3 files from git {upstream.path}, verified" in out.out
    corpus = Corpus.open(project, cache)
    assert corpus.read_text("up", "pkg/a.py") == "A = 10\n"
    assert corpus.files("up") == ["pkg/a.py", "pkg/b.py", "pkg/c.py"]
    # Only the pinned commit: no parent commit, no blob of the older version, no unpinned blob.
    store = cache.root / "git" / "up.git"
    objects = git(store, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split()
    assert upstream.commits[1] in objects and upstream.commits[0] not in objects
    assert blob_sha(b"A = 1\n") not in objects and blob_sha(b"OLD = 0\n") not in objects
    assert blob_sha(b"not pinned\n") not in objects


def test_cache_hit_needs_no_source(tmp_path, upstream, cache, monkeypatch, capsys):
    monkeypatch.setenv("READER_MIRROR_UP", str(upstream.path))
    project = _project(tmp_path, upstream)
    assert main(["-C", str(project.root), "fetch"]) == 0
    monkeypatch.setenv("READER_MIRROR_UP", str(tmp_path / "gone"))
    capsys.readouterr()
    assert main(["-C", str(project.root), "fetch"]) == 0
    assert "3/3 files from cache, verified" in capsys.readouterr().out
    assert main(["-C", str(project.root), "fetch", "--status"]) == 0
    assert "3/3 files from git" in capsys.readouterr().out


def test_tampered_file_is_refused_and_named(tmp_path, upstream, cache, capsys):
    files = dict(PINNED_V1, **{"pkg/a.py": "A = 11\n"})  # the lock expects other bytes
    project = _project(tmp_path, upstream, files)
    report = fetch_pin(project.pins["up"], project.locks["up"], cache,
                       [GitSource(cache, str(upstream.path))])
    assert report.missing == ("pkg/a.py",) and not report.verified
    (m,) = report.mismatches
    assert (m.path, m.expected, m.actual) == ("pkg/a.py", blob_sha(b"A = 11\n"), blob_sha(b"A = 10\n"))
    assert str(m) == (f"pkg/a.py: blob {m.actual} from git {upstream.path} does not match the "
                      f"lock's {m.expected}; the file was not used")
    assert not Corpus.open(project, cache).has("up", "pkg/a.py")


def test_tampered_fetch_exits_nonzero(tmp_path, upstream, cache, monkeypatch, capsys):
    monkeypatch.setenv("READER_MIRROR_UP", str(upstream.path))
    project = _project(tmp_path, upstream, dict(PINNED_V1, **{"pkg/c.py": "C = 4\n"}))
    assert main(["-C", str(project.root), "fetch"]) == 1
    out = capsys.readouterr().out
    assert "reader: error: pkg/c.py: blob" in out and "1 files refused" in out


def test_corrupt_cache_object_is_refetched(tmp_path, upstream, cache, monkeypatch):
    monkeypatch.setenv("READER_MIRROR_UP", str(upstream.path))
    project = _project(tmp_path, upstream)
    fetch_pin(project.pins["up"], project.locks["up"], cache)
    sha = project.locks["up"].files["pkg/b.py"]
    (cache.root / "objects" / sha[:2] / sha[2:]).write_bytes(b"evil\n")
    assert verify_cached(project.pins["up"], project.locks["up"], cache) == [
        f"up: pkg/b.py: blob {blob_sha(b'evil\n')} from the cache's copy {cache.object_path(sha)} "
        f"does not match the lock's {sha}; the file was not used"]
    report = fetch_pin(project.pins["up"], project.locks["up"], cache)
    assert report.served == 3 and verify_cached(project.pins["up"], project.locks["up"], cache) == []


@pytest.mark.parametrize("mirror", ["ext::sh -c touch% pwned", "--upload-pack=touch pwned", "-x"])
def test_unsafe_mirror_is_refused_before_git_runs(tmp_path, upstream, cache, monkeypatch, capsys,
                                                  mirror):
    monkeypatch.setenv("READER_MIRROR_UP", mirror)
    monkeypatch.chdir(tmp_path)
    project = _project(tmp_path, upstream)
    assert main(["-C", str(project.root), "fetch"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reader: error: READER_MIRROR_UP: refusing git source") and "Traceback" not in err
    assert not (tmp_path / "pwned").exists() and not (cache.root / "git").exists()


def test_installed_distribution_serves_the_real_pin(cache):
    project = Project.load(REPO_ROOT)
    report = fetch_pin(project.pins["tokamax"], project.locks["tokamax"], cache, [InstalledSource()])
    assert report.sources == ("installed tokamax==0.0.17",)
    assert (report.served, report.expected, report.missing) == (627, 627, ())
    report = fetch_pin(project.pins["jax"], project.locks["jax"], cache, [InstalledSource()])
    assert (report.served, report.missing) == (319, ())
    corpus = Corpus.open(project, cache)
    assert "class BlockSpec" in corpus.read_text("jax", "jax/_src/pallas/core.py")


def test_installed_distribution_of_another_version_is_not_used(tmp_path, cache):
    root = write_project(tmp_path / "p", "jax", "https://github.com/jax-ml/jax", "a" * 40,
                         {"jax/_src/pallas/core.py": "x"}, ("jax/_src/pallas",), "jax==0.9.2")
    project = Project.load(root)
    with pytest.raises(FetchError, match="installed jax is 0.12.0.1, the pin needs 0.9.2"):
        fetch_pin(project.pins["jax"], project.locks["jax"], cache, [InstalledSource()])


def _sdist(dest: Path, files: dict[str, str]) -> Path:
    archive = dest / "up-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for rel, text in {**files, "../escape.py": "X = 1\n"}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"up-1.0/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return archive


def test_lock_comes_from_the_release_archive_when_git_is_unreachable(tmp_path, cache):
    """`reader lock` where git cannot be reached: the pinned release's archive, its paths and its
    context, each file locked by its blob sha."""
    from reader.lockfile import lock_pin

    root = write_project(tmp_path / "p", "up", "https://nowhere.invalid/up.git", "c" * 40,
                         {"pkg/a.py": "A = 1\n"}, ("pkg",), "up==1.0")
    (root / "pins.toml").write_text((root / "pins.toml").read_text() + 'context = ["lib/b.py"]\n')
    pin = Project.load(root).pins["up"]
    files = {"pkg/a.py": "A = 10\n", "lib/b.py": "B = 2\n", "lib/c.py": "C = 3\n"}
    lock, via = lock_pin(pin, cache, lambda: _sdist(tmp_path, files))
    assert via == "archive up==1.0" and lock.source == "archive up==1.0"
    assert lock.files == {p: blob_sha(files[p].encode()) for p in ("pkg/a.py", "lib/b.py")}
    no_release = replace(pin, release="")
    with pytest.raises(FetchError, match="names no release"):
        lock_pin(no_release, cache, lambda: _sdist(tmp_path, files))


def test_release_archive_serves_files_without_extracting(tmp_path, upstream, cache):
    root = write_project(tmp_path / "p", "up", "https://github.com/x/up", upstream.commits[1],
                         PINNED_V1, release="up==1.0")
    project = Project.load(root)
    calls = []

    def download(release: str, dest: Path) -> Path:
        calls.append(release)
        return _sdist(dest, {"pkg/a.py": "A = 10\n", "pkg/b.py": "def b():\n    return 2\n"})

    report = fetch_pin(project.pins["up"], project.locks["up"], cache, [ArchiveSource(download)])
    assert calls == ["up==1.0"]
    assert report.sources == ("source archive up==1.0",) and report.missing == ("pkg/c.py",)
    assert not (tmp_path / "escape.py").exists()


def _wheel(dest: Path, files: dict[str, str]) -> Path:
    """A wheel holding `files` at its root, as a package index serves it."""
    import zipfile

    wheel = dest / "up-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
        z.writestr("up-1.0.dist-info/METADATA", "Name: up\n")
    return wheel


def test_the_wheel_serves_what_the_source_archive_leaves_out(tmp_path, upstream, cache):
    root = write_project(tmp_path / "p", "up", "https://github.com/x/up", upstream.commits[1],
                         PINNED_V1, release="up==1.0")
    project = Project.load(root)
    archive = ArchiveSource(lambda _r, dest: _sdist(dest, {"pkg/a.py": "A = 10\n"}))
    wheel = WheelSource(lambda _r, dest: _wheel(dest, {"pkg/a.py": "A = 10\n", "pkg/c.py": "C = 3\n",
                                                       "pkg/b.py": "tampered\n"}))
    report = fetch_pin(project.pins["up"], project.locks["up"], cache, [archive, wheel])
    assert report.sources == ("source archive up==1.0", "wheel up==1.0")
    assert sorted(report.files) == ["pkg/a.py", "pkg/c.py"] and report.missing == ("pkg/b.py",)
    assert [m.path for m in report.mismatches] == ["pkg/b.py"]  # verified like every source


def test_a_missing_file_another_pin_served_since_is_read_from_the_cache(tmp_path, upstream, cache):
    """The file list of a pin whose sources lacked a file is completed by a later fetch that puts
    the same blob in the cache (another edition's pins): the result does not depend on the order."""
    root = write_project(tmp_path / "p", "up", "https://github.com/x/up", upstream.commits[1],
                         PINNED_V1, release="up==1.0")
    project = Project.load(root)
    pin, lock = project.pins["up"], project.locks["up"]
    archive = ArchiveSource(lambda _r, dest: _sdist(dest, {"pkg/a.py": "A = 10\n", "pkg/b.py": "def b():\n    return 2\n"}))
    assert fetch_pin(pin, lock, cache, [archive]).missing == ("pkg/c.py",)
    assert cached_list(pin, lock, cache).missing == ("pkg/c.py",)
    cache.put_blob(b"C = 3\n")  # what another pin's fetch serves
    listed = cached_list(pin, lock, cache)
    assert listed.missing == () and listed.complete and listed.files["pkg/c.py"] == blob_sha(b"C = 3\n")
    assert fetch_pin(pin, lock, cache, []).missing == ()


def test_every_source_failing_says_why(tmp_path, upstream, cache, capsys):
    root = write_project(tmp_path / "p", "up", str(tmp_path / "nowhere"), upstream.commits[1],
                         PINNED_V1, release="nosuchpkg-reader-test==1.0")

    def download(release: str, dest: Path) -> Path:
        raise FetchError("pip download failed: No matching distribution found for " + release)

    project = Project.load(root)
    with pytest.raises(FetchError) as e:
        fetch_pin(project.pins["up"], project.locks["up"], cache,
                  [GitSource(cache, str(tmp_path / "nowhere")), InstalledSource(),
                   ArchiveSource(download)])
    message = str(e.value)
    assert e.value.message.startswith(f"no source could serve pin 'up' at {upstream.commits[1][:7]}: git ")
    assert "git fetch failed" in message
    assert "installed distribution: nosuchpkg-reader-test is not installed" in message
    assert "source archive nosuchpkg-reader-test==1.0: pip download failed: No matching" in message


@pytest.mark.slow
def test_real_release_archive_from_the_package_index(cache):
    project = Project.load(REPO_ROOT)
    try:
        report = fetch_pin(project.pins["jax"], project.locks["jax"], cache, [ArchiveSource()])
    except FetchError as e:
        pytest.skip(f"the package index is unreachable here: {e}")
    locked = project.locks["jax"].files
    assert len(locked) > 300  # the pinned paths and their import context
    assert report.sources == ("source archive jax==0.12.0.1",)
    assert report.served == report.expected == len(locked) and not report.missing


def _fetch_process(project_root: Path, cache_root: Path, mirror: Path) -> subprocess.Popen:
    env = dict(os.environ, READER_CACHE=str(cache_root), READER_MIRROR_UP=str(mirror),
               PYTHONPATH=str(REPO_ROOT))
    return subprocess.Popen([sys.executable, "-m", "reader", "-C", str(project_root), "fetch"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _big_upstream(tmp_path: Path):
    files = {f"pkg/m{i:03}.py": f"X = {i}\n" + "# padding\n" * 2000 for i in range(150)}
    return make_upstream(tmp_path / "big", [files]), files


def _wait_for_objects(objects: Path, count: int, proc: subprocess.Popen) -> None:
    """Until `objects` holds `count` files (temporary ones included) or `proc` has ended: a kill
    timed by the fetch's progress, whatever the machine's load."""
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if objects.is_dir() and sum(1 for p in objects.rglob("*") if p.is_file()) >= count:
            return
        time.sleep(0.002)


def test_kill_9_mid_fetch_then_rerun_completes(tmp_path, cache):
    up, files = _big_upstream(tmp_path)
    root = write_project(tmp_path / "p", "up", "https://github.com/x/up", up.commits[0], files)
    interrupted = 0
    for written in (1, 50, 100):  # killed once that many objects are in the cache, not at a time
        proc = _fetch_process(root, cache.root, up.path)
        _wait_for_objects(cache.root / "objects", written, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        interrupted += not list((cache.root / "pins").glob(f"up-{up.commits[0]}-*.json"))
    assert interrupted, "no kill landed before the fetch finished"
    # No partial file under a final name: every object present hashes to its name.
    for obj in (cache.root / "objects").rglob("*"):
        if obj.is_file() and not obj.name.endswith(".tmp"):
            assert blob_sha(obj.read_bytes()) == obj.parent.name + obj.name
    done = _fetch_process(root, cache.root, up.path)
    out, _ = done.communicate(timeout=120)
    assert done.returncode == 0, out
    project = Project.load(root)
    assert verify_cached(project.pins["up"], project.locks["up"], cache) == []


def test_two_concurrent_fetches_do_not_corrupt_the_cache(tmp_path, cache):
    up, files = _big_upstream(tmp_path)
    root = write_project(tmp_path / "p", "up", "https://github.com/x/up", up.commits[0], files)
    procs = [_fetch_process(root, cache.root, up.path) for _ in range(2)]
    outs = [p.communicate(timeout=180)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sum("150/150 files" in o for o in outs) == 2
    project = Project.load(root)
    assert verify_cached(project.pins["up"], project.locks["up"], cache) == []


def test_git_mirror_holding_the_release_files_matches_the_real_lock(tmp_path, cache, monkeypatch):
    """A local repo whose files are the pinned jax release's files: git serves blobs equal to the lock."""
    real = Project.load(REPO_ROOT)
    installed = Corpus.open(real, Cache(tmp_path / "installed-cache"), names=["jax"])
    tree = {p: installed.read_text("jax", p) for p in installed.files("jax")}
    upstream = make_upstream(tmp_path / "jax-mirror", [tree])
    root = write_project(tmp_path / "p", "jax", "https://github.com/jax-ml/jax", upstream.commits[0],
                         tree, real.pins["jax"].all_paths)
    monkeypatch.setenv("READER_MIRROR_JAX", upstream.url)
    project = Project.load(root)
    report = fetch_pin(project.pins["jax"], project.locks["jax"], cache)
    assert report.sources == (f"git {upstream.url}",) and report.served == 319 == len(tree)
    assert project.locks["jax"].files == {p: real.locks["jax"].files[p] for p in tree}


def test_offline_fetch_names_every_source_tried_and_why(tmp_path):
    """No network and no mirror: one located line with what each source said, then exit 2;
    the cache holds nothing half-written and `--status` says the pin is not fetched."""
    root = write_project(tmp_path / "p", "up", "https://nowhere.invalid/up.git", "c" * 40,
                         {"pkg/a.py": "A = 1\n"}, release="nosuchpkg-reader-test==1.0")
    env = {k: v for k, v in os.environ.items() if not k.startswith("READER_MIRROR_")}
    env.update(READER_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(REPO_ROOT), PIP_NO_INDEX="1",
               PIP_FIND_LINKS=str(tmp_path), GIT_CONFIG_NOSYSTEM="1", HOME=str(tmp_path))

    def reader(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "reader", *argv], cwd=root, env=env,
                              capture_output=True, text=True, timeout=180)

    done = reader("fetch")
    assert done.returncode == 2, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("reader: error:")]
    assert line.startswith("reader: error: pins.toml:1: no source could serve pin 'up' at ccccccc: "
                           "git https://nowhere.invalid/up.git: git fetch failed: ")
    assert "; installed distribution: nosuchpkg-reader-test is not installed; " in line
    assert "; source archive nosuchpkg-reader-test==1.0: pip download failed: " in line
    assert "No matching distribution found for nosuchpkg-reader-test==1.0" in line
    assert line.endswith("; check the network, or point READER_MIRROR_UP at a local clone")
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / "cache").rglob("*.tmp")) and not (tmp_path / "cache" / "pins").exists()
    status = reader("fetch", "--status")
    assert (status.returncode, status.stdout) == (1, f"up @ {'c' * 12}: not fetched\n")


def _poison(cache: Cache, project: Project, files: dict[str, str]) -> list[str]:
    """List `files` (another version's) as the pin's files, as a wrong `reader pin` once left the
    cache: their blobs are in the cache, the list under the pin's key. Returns the paths whose
    blob differs from the lock's."""
    pin, lock = project.pins["jax"], project.locks["jax"]
    listed = {p: cache.put_blob(t.encode()) for p, t in files.items()}
    cache.write_manifest(cache.manifest_path("jax", pin.commit, lock.files),
                         {"commit": pin.commit, "files": listed, "missing": [], "sources": ["git"]})
    return sorted(p for p, s in listed.items() if lock.files[p] != s)


def test_a_poisoned_file_list_is_refused_and_check_reads_the_pinned_code(tmp_path, cache,
                                                                          monkeypatch, capsys):
    from tests.diff_project import make_demo, tree

    _, root = make_demo(tmp_path, monkeypatch)
    project = Project.load(root)
    assert main(["-C", str(root), "check"]) == 0
    # Another version's code under this pin's key: `reader fetch` names each entry and exits 1.
    poisoned = _poison(cache, project, tree(1))
    assert poisoned == ["jax/_src/pallas/core.py", "jax/_src/pallas/primitives.py",
                        "jax/_src/pallas/triton/lowering.py"]
    capsys.readouterr()
    assert main(["-C", str(root), "fetch"]) == 1
    out = capsys.readouterr().out
    where = cache.manifest_path("jax", project.pins["jax"].commit, project.locks["jax"].files)
    for path in poisoned:
        assert (f"reader: error: {path}: blob {blob_sha(tree(1)[path].encode())} from the cache's "
                f"file list {where} does not match the lock's {project.locks['jax'].files[path]}") in out
    assert "3 files refused" in out
    # It served the right files again: the next fetch and --status agree.
    assert main(["-C", str(root), "fetch"]) == 0
    assert main(["-C", str(root), "fetch", "--status"]) == 0
    assert "6/6 files from cache, verified" in capsys.readouterr().out
    # Poisoned again, `reader check` reads the pinned code, not the listed one.
    _poison(cache, project, tree(1))
    assert main(["-C", str(root), "check"]) == 0
    err = capsys.readouterr().err
    assert "jax/_src/pallas/core.py: blob" in err and "fetching it again" in err
    assert Corpus.open(project, cache).read_text("jax", "jax/_src/pallas/core.py") == \
        tree(0)["jax/_src/pallas/core.py"]


def test_a_flipped_bit_in_a_cached_blob_is_a_located_error_on_read(tmp_path, upstream, cache, monkeypatch):
    monkeypatch.setenv("READER_MIRROR_UP", str(upstream.path))
    project = _project(tmp_path, upstream)
    corpus = Corpus.open(project, cache)
    sha = project.locks["up"].files["pkg/b.py"]
    obj = cache.object_path(sha)
    data = bytearray(obj.read_bytes())
    data[3] ^= 0x04
    obj.write_bytes(bytes(data))
    # The read hashes the bytes and drops the copy; it never fetches (a build reads in its middle):
    # the error names the file and what serves it again, never the corrupt bytes.
    with pytest.raises(FetchError, match="is absent or corrupt in the cache") as e:
        corpus.read_text("up", "pkg/b.py")
    assert str(e.value.location) == "pkg/b.py" and e.value.hint == "run 'reader fetch up' to serve it again"
    assert not obj.exists()
    # Opening the pins again (what every command does first) serves it again.
    assert Corpus.open(project, cache).read_text("up", "pkg/b.py") == PINNED_V1["pkg/b.py"]
    assert blob_sha(obj.read_bytes()) == sha


@pytest.mark.parametrize("cut", [0, 10, -5])
def test_a_truncated_file_list_is_fetched_again(tmp_path, upstream, cache, monkeypatch, cut):
    monkeypatch.setenv("READER_MIRROR_UP", str(upstream.path))
    project = _project(tmp_path, upstream)
    fetch_pin(project.pins["up"], project.locks["up"], cache)
    (where,) = (cache.root / "pins").glob("up-*.json")
    where.write_bytes(where.read_bytes()[:cut])
    report = fetch_pin(project.pins["up"], project.locks["up"], cache)
    assert report.served == 3 and report.verified and report.sources == ("cache",)
    assert verify_cached(project.pins["up"], project.locks["up"], cache) == []
