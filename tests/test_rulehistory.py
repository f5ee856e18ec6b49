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
from reader.extract.rulehistory import load_history
from reader.extract.ruletable import load_rules
from reader.pins import load_pins
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


def _history(root: Path):
    corpus = Corpus.open(Project.load(root))
    return load_history(corpus, load_rules(corpus, build_index(corpus)))


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
