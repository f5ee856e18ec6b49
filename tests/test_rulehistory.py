"""Rule history: each release of a pin's history read from its (synthetic) archive by the pins'
extractors; a primitive that gains, loses and regains a rule; unreadable releases located."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from reader.cli import main
from reader.corpus import Corpus, Project
from reader.errors import FetchError, PinError
from reader.extract import build_index
from reader.extract.providers import load_rules
from reader.extract.rulehistory import start_history
from reader.pins import load_pins
from reader.releases import Archives
from reader.workers import Workers
from tests.conftest import make_upstream, write_project

TPU_CORE = """\
import enum

class CoreType(enum.Enum):
    TC = "tc"
    SC_VECTOR_SUBCORE = "sc_vector_subcore"
"""

TPU_LOWERING = """\
from jax import lax
from jax._src.pallas.mosaic import core as tpu_core

lowering_rules = {kernel_type: {} for kernel_type in tpu_core.CoreType}

def register_lowering_rule(prim, *, kernel_types=(tpu_core.CoreType.TC,)):
    def decorator(rule):
        for kernel_type in kernel_types:
            lowering_rules[kernel_type][prim] = rule
        return rule
    return decorator

@register_lowering_rule(lax.add_p)
def _add(ctx):
    pass
"""

COS_ON_TPU = """
@register_lowering_rule(lax.cos_p, kernel_types=[*tpu_core.CoreType])
def _cos(ctx):
    pass
"""

TRITON_LOWERING = """\
from jax import lax

triton_lowering_rules = {}

def register_lowering(primitive):
    def wrapper(fn):
        triton_lowering_rules[primitive] = fn
        return fn
    return wrapper

@register_lowering(lax.add_p)
def _add(ctx):
    pass
"""

ERF_INV_ON_TRITON = """
@register_lowering(lax.erf_inv_p)
def _erf_inv(ctx):
    pass
"""

UNREADABLE = """
triton_lowering_rules.update(_rules_from_elsewhere())
"""


def tree(tpu_extra: str = "", triton_extra: str = "") -> dict[str, str]:
    return {
        "jax/_src/pallas/__init__.py": "",
        "jax/_src/pallas/mosaic/__init__.py": "",
        "jax/_src/pallas/mosaic/core.py": TPU_CORE,
        "jax/_src/pallas/mosaic/lowering.py": TPU_LOWERING + tpu_extra,
        "jax/_src/pallas/triton/__init__.py": "",
        "jax/_src/pallas/triton/lowering.py": TRITON_LOWERING + triton_extra,
    }


RELEASES = {  # release -> its tree: erf_inv on Triton in 1.0, gone in 2.0, back at the pins (3.0)
    "jax==1.0": tree(triton_extra=ERF_INV_ON_TRITON),
    "jax==1.5": tree(triton_extra=ERF_INV_ON_TRITON + UNREADABLE),
    "jax==2.0": tree(tpu_extra=COS_ON_TPU),
}
PINNED = tree(tpu_extra=COS_ON_TPU, triton_extra=ERF_INV_ON_TRITON)
HISTORY = ["jax==0.5", "jax==1.0", "jax==1.5", "jax==2.0"]
"""0.5 is not on the (fake) index: a release whose archive cannot be had."""


def _sdist(path: Path, version: str, files: dict[str, str], commit: str) -> Path:
    top = f"jax-{version}"
    files = {**files, "PKG-INFO": "Name: jax\n",
             "jax/version.py": f'_version = "{version}"\n_git_hash: str = "{commit}"\n'}
    with tarfile.open(path, "w:gz") as tar:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


class FakeIndex:
    """`pip download` of a release's source archive, from the fixture's trees; counts the calls."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, spec: str, dest: Path) -> Path:
        self.asked.append(spec)
        version = spec.partition("==")[2]
        if spec not in RELEASES:
            raise FetchError(f"pip download failed: no matching distribution for {spec}")
        commit = f"{list(RELEASES).index(spec) + 1:040x}"
        return _sdist(dest / f"jax-{version}.tar.gz", version, RELEASES[spec], commit)


@pytest.fixture
def project(tmp_path, cache, monkeypatch) -> Path:
    upstream = make_upstream(tmp_path / "upstream", [PINNED])
    root = write_project(tmp_path / "project", "jax", upstream.url, upstream.commits[0], PINNED,
                         paths=("jax/_src/pallas",), release="jax==3.0")
    with (root / "pins.toml").open("a") as f:
        f.write(f"history = {json.dumps(HISTORY)}\n")
    return root


@pytest.fixture
def index(monkeypatch) -> FakeIndex:
    fake = FakeIndex()
    monkeypatch.setattr("reader.fetch.pip_download_sdist", fake)
    return fake


def _archives(corpus: Corpus) -> Archives:
    return Archives(corpus.project.root, corpus.cache)


def _history(root: Path):
    corpus = Corpus.open(Project.load(root))
    return start_history(corpus, Workers(1), _archives(corpus))(load_rules(corpus, build_index(corpus)))


def test_a_primitive_gained_lost_and_regained_across_releases(project, index):
    history = _history(project)
    assert [r.spec for r in history.releases] == [*HISTORY, "jax==3.0"]
    assert history.read == ("1.0", "2.0", "3.0")
    prims = {p.primitive.key: p for p in history.primitives}
    erf_inv = prims["<external>.erf_inv_p"].lowered("triton", "")
    assert erf_inv is not None and erf_inv.releases == ("1.0", "3.0")
    assert history.since(erf_inv) == "3.0"  # its current rule dates from the pins, not from 1.0
    cos = prims["<external>.cos_p"]
    assert [(t.backend, t.key, t.releases) for t in cos.tables] == [
        ("tpu", "TC", ("2.0", "3.0")), ("tpu", "SC_VECTOR_SUBCORE", ("2.0", "3.0"))]
    assert history.since(prims["<external>.add_p"].lowered("tpu", "TC")) == "1.0"
    changes = {(c.backend, c.key): (c.gained, c.lost) for c in history.changes()}
    assert changes == {
        ("tpu", "TC"): (("<external>.cos_p",), ()),
        ("tpu", "SC_VECTOR_SUBCORE"): (("<external>.cos_p",), ()),
        ("triton", ""): (("<external>.erf_inv_p",), ("<external>.erf_inv_p",)),
    }


def test_unreadable_releases_are_reported_by_release_and_file(project, index):
    history = _history(project)
    failures = {r.spec: r for r in history.failures}
    assert set(failures) == {"jax==0.5", "jax==1.5"}
    assert "no matching distribution" in failures["jax==0.5"].failure
    bad = failures["jax==1.5"]
    line = RELEASES["jax==1.5"]["jax/_src/pallas/triton/lowering.py"].splitlines().index(
        UNREADABLE.strip()) + 1
    assert bad.where == f"jax/_src/pallas/triton/lowering.py:{line}"
    assert "cannot read this update" in bad.failure and bad.commit == f"{2:040x}"


def test_archives_are_downloaded_once_then_read_from_the_cache(project, index):
    first = _history(project)
    assert sorted(index.asked) == sorted(HISTORY)
    index.asked.clear()
    assert _history(project) == first
    assert index.asked == ["jax==0.5"]  # only the release that was never had is asked again


def test_a_history_read_whole_is_kept(project, index, monkeypatch):
    text = (project / "pins.toml").read_text().replace(json.dumps(HISTORY), '["jax==1.0", "jax==2.0"]')
    (project / "pins.toml").write_text(text)
    first = _history(project)
    assert not first.failures and sorted(index.asked) == ["jax==1.0", "jax==2.0"]

    def unread(*args):
        raise AssertionError("a kept history reads no release")

    monkeypatch.setattr("reader.extract.rulehistory._read_release", unread)
    assert _history(project) == first


def test_a_release_an_older_edition_pins_is_read_from_that_edition(project, index, tmp_path):
    """The edition's files, not the archive's: here they differ (erf_inv kept on Triton), so the
    history shows which was read; the archive is not asked for."""
    files = tree(tpu_extra=COS_ON_TPU, triton_extra=ERF_INV_ON_TRITON)
    upstream = make_upstream(tmp_path / "edition-upstream", [files])
    root = write_project(tmp_path / "edition", "jax", upstream.url, upstream.commits[0], files,
                         paths=("jax/_src/pallas",), release="jax==2.0")
    edition, corpus = Corpus.open(Project.load(root)), Corpus.open(Project.load(project))
    history = start_history(corpus, Workers(1), _archives(corpus), editions=[edition])(
        load_rules(corpus, build_index(corpus)))
    assert sorted(index.asked) == ["jax==0.5", "jax==1.0", "jax==1.5"]
    assert [r.spec for r in history.releases] == [*HISTORY, "jax==3.0"]
    two = next(r for r in history.releases if r.spec == "jax==2.0")
    assert two.read and two.commit == upstream.commits[0]
    erf_inv = {p.primitive.key: p for p in history.primitives}["<external>.erf_inv_p"]
    assert erf_inv.lowered("triton", "").releases == ("1.0", "2.0", "3.0")
    assert start_history(corpus, Workers(1), _archives(corpus))(load_rules(corpus, build_index(corpus))) != history


def test_cli_prints_the_history_as_a_table_and_as_json(project, index, capsys):
    assert main(["-C", str(project), "rules", "--history"]) == 1  # two releases unread
    out, err = capsys.readouterr()
    assert "reader: jax==1.5: jax/_src/pallas/triton/lowering.py:" in err
    assert "reader: jax==0.5: jax==0.5: pip download failed" in err
    lines = out.splitlines()
    assert lines[0] == ("releases: jax==0.5 (not read), jax==1.0, jax==1.5 (not read), jax==2.0, "
                        "jax==3.0")
    triton = lines.index("triton: ? 2 ? 1 2 primitives; 1 gained a rule, 1 lost one")
    assert lines[triton + 1].split() == ["0.5", "1.0", "1.5", "2.0", "3.0", "since"]
    assert lines[triton + 3].split() == ["erf_inv", "?", "+", "?", ".", "+", "3.0", "jax.lax.erf_inv_p"]

    assert main(["-C", str(project), "rules", "--history", "--json", "--backend", "tpu"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [t["backend"] for t in data["tables"]] == ["tpu", "tpu"]
    cos = next(p for p in data["primitives"] if p["key"] == "<external>.cos_p")
    assert cos["tables"][0] == {"backend": "tpu", "key": "TC", "releases": ["2.0", "3.0"],
                                "since": "2.0"}
    assert all(t["backend"] == "tpu" for p in data["primitives"] for t in p["tables"])
    main(["-C", str(project), "rules", "--history", "--json"])
    once = capsys.readouterr().out
    main(["-C", str(project), "rules", "--history", "--json"])
    assert capsys.readouterr().out == once  # deterministic


def test_without_a_history_the_cli_says_where_to_add_one(tmp_path, cache, capsys):
    upstream = make_upstream(tmp_path / "upstream", [PINNED])
    root = write_project(tmp_path / "project", "jax", upstream.url, upstream.commits[0], PINNED,
                         paths=("jax/_src/pallas",), release="jax==3.0")
    assert main(["-C", str(root), "rules", "--history"]) == 2
    assert "has no `history`" in capsys.readouterr().err


@pytest.mark.parametrize(("value", "message"), [
    ('"jax==1.0"', "must be a list of strings"),
    ('["tokamax==1.0"]', "is not 'jax==version'"),
    ('["jax==1.0", "jax==1.0"]', "names a release twice"),
])
def test_a_bad_history_is_located(tmp_path, value, message):
    root = write_project(tmp_path, "jax", "https://example.invalid/jax", "a" * 40, {},
                         paths=("jax",), release="jax==3.0")
    with (root / "pins.toml").open("a") as f:
        f.write(f"history = {value}\n")
    with pytest.raises(PinError, match=message) as e:
        load_pins(root / "pins.toml")
    lines = (root / "pins.toml").read_text().splitlines()
    assert e.value.location is not None and lines[e.value.location.line - 1].startswith("history = ")


TRACK = """title: "Rules"
summary: "The lowering rules across releases."
phases:
  - title: "Only phase"
    summary: "The TPU lowering."
    entries:
      - source: jax/_src/pallas/mosaic/lowering.py
        summary: The TPU rules.
"""


def test_the_history_read_in_parallel_builds_the_site_the_one_process_build_does(
        project, index, tmp_path, monkeypatch, forks):
    """`--jobs 1` reads the releases in the build's process, forking nothing; two workers read
    them on forked processes while the build goes on, from the archives' records the first kept
    (only the release never had is asked for again); the sites are byte for byte the same, the
    lowering-rules page with the history and the unread releases named by release and file."""
    import os
    import shutil
    import threading

    from reader.cache import KEPT
    from reader.site import build_site
    from reader.workers import Workers
    from tests.conftest import REPO_ROOT
    from tests.test_site import _files

    shutil.copy(REPO_ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "docs", project / "docs")
    (project / "track.yaml").write_text(TRACK)
    (project / "annotations").mkdir()
    (project / "kernels").mkdir()
    Corpus.open(Project.load(project))  # the pinned files fetched once, into the fixture's cache
    fetched = Path(os.environ["READER_CACHE"])
    asked = tmp_path / "asked"  # a forked worker's downloads, seen here

    def download(spec: str, dest: Path) -> Path:
        with asked.open("a") as f:
            f.write(f"{spec} {os.getpid()}\n")
        return index(spec, dest)
    monkeypatch.setattr("reader.fetch.pip_download_sdist", download)
    # Threads other tests left idle (their HTTP servers) are not the build's: its workers may fork
    # beside them here as they would in a process of its own.
    foreign = set(threading.enumerate()) - {threading.current_thread()}
    monkeypatch.setattr(Workers, "may_fork", lambda self: self.parallel and all(
        t is threading.current_thread() or t in self._pool_threads or t in foreign
        for t in threading.enumerate()))
    for jobs in (1, 2):
        forks.serial = jobs == 1
        # the second: the blobs and the releases' records the first kept, nothing derived
        cache, source = tmp_path / f"cache-{jobs}", fetched if jobs == 1 else tmp_path / "cache-1"
        for part in ("objects", "pins", *(["derived/" + KEPT] if jobs == 2 else [])):
            shutil.copytree(source / part, cache / part)
        monkeypatch.setenv("READER_CACHE", str(cache))
        asked.write_text("")
        build_site(project, tmp_path / f"site-{jobs}", jobs=jobs)
        downloads = sorted(tuple(line.split()) for line in asked.read_text().splitlines())
        here = str(os.getpid())
        if jobs == 1:
            assert downloads == [(spec, here) for spec in sorted(HISTORY)]
        else:  # on a worker, while the build went on
            assert [spec for spec, _ in downloads] == ["jax==0.5"] and downloads[0][1] != here
    assert forks, "the two-worker build forked no worker"
    assert _files(tmp_path / "site-1") == _files(tmp_path / "site-2")
    page = (tmp_path / "site-2" / "lowering-rules.html").read_text()
    assert "<code>jax==1.5</code>: <code>jax/_src/pallas/triton/lowering.py:" in page
    assert "<code>jax==0.5</code>: <code>jax==0.5</code>: pip download failed" in page
