"""`reader pin` and `reader diff` on real neighbouring releases: jax 0.10.1 -> 0.10.2 and tokamax
0.0.11 -> 0.0.12, their files from the release archives on the package index (downloaded once per
session), git unreachable on purpose, locks checked against the upstream listings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from reader.cache import Cache
from reader.cli import main
from reader.errors import FetchError
from reader.fetch import ArchiveSource, InstalledSource, fetch_pin, pip_download_sdist
from reader.lockfile import lock_from_listing
from reader.pinning import move_pin
from reader.pins import Pin, dump_lock, load_lock, load_pins
from tests.conftest import FIXTURES, git

pytestmark = pytest.mark.slow

RELEASES = ("jax==0.10.1", "jax==0.10.2", "tokamax==0.0.11", "tokamax==0.0.12")
JAX_PATHS = ("jax/_src/pallas", "jax/experimental/pallas")
NOT_IN_JAX_SDIST = {"jax/_src/pallas/pallas_test_util.py", "jax/_src/pallas/pipelining/__init__.py",
                    "jax/_src/pallas/pipelining/internal.py",
                    "jax/_src/pallas/pipelining/pipeline_test_util.py",
                    "jax/_src/pallas/pipelining/schedule_api.py",
                    "jax/_src/pallas/pipelining/schedulers.py"}

ANNOTATION = """\
title: Real move
slug: real
phase: 1
kind: article
order: 1
summary: TensorCore lowers {{fact:rules.tpu.tc.count}} primitives.
reads:
  - path: jax/_src/pallas/core.py
  - path: jax/_src/pallas/primitives.py
  - path: jax/_src/pallas/utils.py
notes:
  - id: real-moved
    symbol: Buffered
    body: Two lines higher in 0.10.2, unchanged.
  - id: real-changed
    symbol: debug_checks_enabled
    body: Reads a flag that moved to jax's config in 0.10.2.
  - id: real-orphaned
    symbol: _ENABLE_DEBUG_CHECKS
    body: Gone in 0.10.2.
  - id: real-quote
    path: jax/_src/pallas/primitives.py
    quote: "def run_scoped("
    body: The file changed, this line did not move.
  - id: real-unchanged
    path: jax/_src/pallas/utils.py
    symbol: next_power_of_2
    body: Same blob in both releases.
"""

TOKAMAX_ANNOTATION = """\
title: Real tokamax move
slug: real
phase: 6
kind: article
order: 1
reads:
  - path: tokamax/_src/ops/ragged_dot/base.py
  - path: tokamax/_src/ops/ragged_dot/arg_specs.py
notes:
  - id: tk-changed
    symbol: GroupSizes.__jax_array__
    body: Gains a return annotation in 0.0.12.
  - id: tk-orphaned
    path: tokamax/_src/ops/ragged_dot/arg_specs.py
    symbol: generate_group_sizes
    body: Gone in 0.0.12.
"""



def _render(text: str) -> str:
    """HTML as a CommonMark renderer with tables (GitHub's flavour) makes of a PR comment."""
    return MarkdownIt("commonmark").enable("table").render(text)


@pytest.fixture(scope="session")
def sdists(tmp_path_factory) -> dict[str, Path]:
    """The four source archives, downloaded once per test session."""
    out = {}
    for release in RELEASES:
        folder = tmp_path_factory.mktemp(release.replace("==", "-"))
        try:
            out[release] = pip_download_sdist(release, folder)
        except FetchError as e:
            pytest.skip(f"the package index is unreachable here: {e.message}")
    return out


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("reader-cache")


@pytest.fixture
def offline(session_cache, tmp_path, monkeypatch) -> Cache:
    """The session's cache, with git sources pointed at a folder that is no repository."""
    monkeypatch.setenv("READER_CACHE", str(session_cache))
    for name in ("JAX", "TOKAMAX"):
        monkeypatch.setenv(f"READER_MIRROR_{name}", str(tmp_path / "no-git-here"))
    return Cache(session_cache)


def _pin(name: str, version: str) -> Pin:
    listing = FIXTURES / "upstream" / f"{name}-{version}.tsv"
    commit = listing.read_text().split("commit: ")[1].split()[0]
    repo = {"jax": "https://github.com/jax-ml/jax", "tokamax": "https://github.com/openxla/tokamax"}
    return Pin(name, repo[name], commit, JAX_PATHS if name == "jax" else ("tokamax",),
               f"{name}=={version}")


def _project(root: Path, cache: Cache, sdists: dict[str, Path], jax: str, tokamax: str,
             annotation: str = ANNOTATION) -> Path:
    """A git project pinning both upstreams, locked from their listings, files in the cache."""
    pins = {"jax": _pin("jax", jax), "tokamax": _pin("tokamax", tokamax)}
    locks = {n: lock_from_listing(p, FIXTURES / "upstream" / f"{n}-{p.dist_version}.tsv")
             for n, p in pins.items()}
    for name, pin in pins.items():
        archive = ArchiveSource(lambda release, _dest: sdists[release])
        fetch_pin(pin, locks[name], cache, [InstalledSource(), archive])
    root.mkdir()
    (root / "pins.toml").write_text("# Real releases.\n" + "".join(
        f'\n[pins.{n}]\nrepo = "{p.repo}"\ncommit = "{p.commit}"\nrelease = "{p.release}"\n'
        f"paths = {json.dumps(list(p.paths))}\n" for n, p in pins.items()))
    (root / "pins.lock").write_text(dump_lock(locks))
    (root / "annotations").mkdir()
    (root / "annotations" / "real.yaml").write_text(annotation)
    assert main(["-C", str(root), "accept", "--all"]) == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "pins")
    return root


def _move(root: Path, sdists: dict[str, Path], name: str, version: str) -> None:
    pin = _pin(name, version)
    move = move_pin(root, name, pin.commit, pin.release, Cache(),
                    download=lambda release, dest: Path(shutil.copy(sdists[release], dest)))
    assert move.via == f"archive {pin.release}" and not move.fetched.mismatches


def _changes(capsys, root: Path) -> list[dict]:
    capsys.readouterr()
    assert main(["-C", str(root), "diff", "--format", "json"]) == 1
    return json.loads(capsys.readouterr().out)["changes"]


def test_jax_0_10_1_to_0_10_2(offline, sdists, tmp_path, capsys):
    root = _project(tmp_path / "project", offline, sdists, "0.10.1", "0.0.12")
    _move(root, sdists, "jax", "0.10.2")
    # Without git, the lock holds the blobs the archive carries: the listing's, less six files.
    pins = load_pins(root / "pins.toml")
    lock = load_lock(root / "pins.lock", pins)["jax"]
    listing = lock_from_listing(pins["jax"], FIXTURES / "upstream" / "jax-0.10.2.tsv")
    assert set(listing.files) - set(lock.files) == NOT_IN_JAX_SDIST
    assert lock.files == {p: s for p, s in listing.files.items() if p not in NOT_IN_JAX_SDIST}

    changes = _changes(capsys, root)
    pin = next(c for c in changes if c["section"] == "pins")
    assert (pin["pin"], pin["old_label"], pin["new_label"]) == ("jax", "jax==0.10.1", "jax==0.10.2")
    assert pin["compare_url"] == ("https://github.com/jax-ml/jax/compare/619764c15117fbefc4ba13ab94"
                                  "1871cb514c23f6...990e6a0b84138346e6a38785412f36356e0e5dc3")
    notes = {c["note"]: c["status"] for c in changes if c["section"] == "notes"}
    assert notes == {"real-moved": "moved", "real-changed": "changed", "real-orphaned": "orphaned",
                     "real-quote": "unchanged", "real-unchanged": "unchanged"}
    moved = next(c for c in changes if c.get("note") == "real-moved")
    assert (moved["old"]["start"], moved["new"]["start"]) == (214, 212)
    files = {c["path"]: c["status"] for c in changes if c["section"] == "files"}
    assert files == dict.fromkeys(NOT_IN_JAX_SDIST, "unknown")
    symbols = {(c["path"], c["qualname"]): c for c in changes if c["section"] == "symbols"}
    core = "jax/_src/pallas/core.py"
    assert symbols[core, "_ENABLE_DEBUG_CHECKS"]["status"] == "removed"
    assert symbols[core, "poison_buffers_enabled"]["status"] == "added"
    sig = symbols[core, "BlockSpec.to_block_mapping"]
    assert "allow_captured_consts" in sig["new_signature"] and "allow_captured" not in sig["old_signature"]
    rules = {(c["backend"], c["key"], c["primitive"], c["status"]) for c in changes
             if c["section"] == "rules"}
    assert ("tpu", "TC", "jax._src.pallas.mosaic.pipeline.emit_pipeline_p", "added") in rules
    assert ("tpu", "SC_SCALAR_SUBCORE", "jax._src.pallas.primitives.jaxpr_call_p", "removed") in rules
    facts = {c["name"]: c for c in changes if c["section"] == "facts" and c["status"] != "unknown"}
    # reader's sm90 extractor reads the pinned tokamax 0.0.17 kernel; at 0.0.12 it says it cannot.
    unknown = [c for c in changes if c["section"] == "facts" and c["status"] == "unknown"]
    assert {c["what"].split(",")[0] for c in unknown} == {"facts tokamax.sm90.**"}
    assert all(c["where"]["path"].endswith("pallas_mosaic_gpu_kernel_sm90.py") for c in unknown)
    tc = facts["rules.tpu.tc.count"]
    assert (tc["old"], tc["new"]) == ("129", "131")
    assert tc["cited_by"] == [{"path": "annotations/real.yaml", "line": 6}]

    assert main(["-C", str(root), "diff"]) == 1
    text = capsys.readouterr().out
    assert ("https://github.com/jax-ml/jax/compare/619764c15117fbefc4ba13ab941871cb514c23f6"
            "...990e6a0b84138346e6a38785412f36356e0e5dc3") in text
    assert "fact rules.tpu.tc.count: 129 -> 131 (cited by annotations/real.yaml:6)" in text
    assert main(["-C", str(root), "diff", "--format", "markdown"]) == 1
    md = capsys.readouterr().out
    assert len(md) <= 65_536  # GitHub's limit for a comment
    html = _render(md)
    for heading in ("Pins", "Notes", "Files and symbols", "Lowering rule tables", "Facts"):
        assert f"<h3>{heading}</h3>" in html
    assert "|---|" not in html and "```" not in html
    assert html.count("<details>") == html.count("</details>") > 0
    for note in ("real-changed", "real-orphaned"):
        assert f"<td><code>{note}</code></td>" in html


def test_tokamax_0_0_11_to_0_0_12(offline, sdists, tmp_path, capsys):
    root = _project(tmp_path / "project", offline, sdists, "0.10.2", "0.0.11", TOKAMAX_ANNOTATION)
    _move(root, sdists, "tokamax", "0.0.12")
    pins = load_pins(root / "pins.toml")
    lock = load_lock(root / "pins.lock", pins)["tokamax"]
    # tokamax's archive carries every .py file of its commit: the lock equals the listing's.
    listing = lock_from_listing(pins["tokamax"], FIXTURES / "upstream" / "tokamax-0.0.12.tsv")
    assert lock.files == listing.files and len(lock.files) == 178

    capsys.readouterr()
    assert main(["-C", str(root), "diff", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    changes = report["changes"]
    assert [c["pin"] for c in changes if c["section"] == "pins"] == ["tokamax"]
    notes = {c["note"]: c for c in changes if c["section"] == "notes"}
    assert {k: c["status"] for k, c in notes.items()} == {"tk-changed": "changed",
                                                          "tk-orphaned": "orphaned"}
    assert "+  def __jax_array__(self) -> jax.Array:" in notes["tk-changed"]["diff"]
    files = {c["path"]: c["status"] for c in changes if c["section"] == "files"}
    glu = "tokamax/_src/ops/gated_linear_unit/"
    assert files == {**{f"{glu}{n}.py": "added" for n in (
        "pallas_mosaic_gpu", "pallas_mosaic_gpu_common", "pallas_mosaic_gpu_kernel_sm100",
        "pallas_mosaic_gpu_kernel_sm90", "pallas_mosaic_gpu_test")}, "tokamax/_src/version.py": "added"}
    symbols = {(c["qualname"], c["status"]) for c in changes if c["section"] == "symbols"}
    assert ("fence_async_shared_cta", "added") in symbols
    assert ("generate_group_sizes", "removed") in symbols
    assert ("GroupSizes.__jax_array__", "signature") in symbols
    assert not [c for c in changes if c["section"] == "rules"]  # tokamax registers no rules
    # The two notes, and the sm90 facts on each side (the extractor reads tokamax 0.0.17's kernel).
    unknown = [c for c in changes if c["status"] == "unknown" and c["section"] == "facts"]
    assert [c["side"] for c in unknown] == ["HEAD:pins.toml", str(root / "pins.toml")]
    assert (report["exit_code"], report["needs_person"]) == (1, 4)
