"""Pinned files in syntax newer than the interpreter running the tests, end to end.

PEP 695 generics and `type`, PEP 701 f-strings, Python 3.14 t-strings and `except A, B:` go
through `reader fetch`, the index, `check`, `diff` and `build` (libcst reads what `ast` refuses);
a pinned file no parser reads is one located line, exit 2, and the notes on it say why they
cannot be placed.
"""

from __future__ import annotations

import json
import re

import pytest

from reader.cache import blob_sha
from reader.cli import main
from reader.corpus import Corpus, Project
from reader.extract import build_index
from reader.extract.parse import fast_ast
from reader.packed import unpacked_call
from reader.workers import Workers
from tests.conftest import git
from tests.small_project import FILES, MIRROR, TOUR, Small, fetch_and_build, write_small

MODERN = '''\
"""Syntax newer than the interpreter running the tests."""
from pkg.core import BlockSpec

type Specs[T] = list[T]


class Holder[T: BlockSpec]:
    def spec(self) -> T:
        return self.value


def describe[S](spec: S, width: int = 8) -> str:
    label = f"{"spec"}: {BlockSpec!r:>{width}}"
    return t"{label} {BlockSpec}"


def guarded(x):
    try:
        return describe(x)
    except TypeError, ValueError:
        return BlockSpec
'''
"""`describe` is lines 12-14, its t-string line 14; `except TypeError, ValueError:` line 20."""

MODERN_V1 = MODERN.replace("def describe[S](spec: S,", "def describe[S: int](spec: S,")

BROKEN = "x = 1\ndef broken(:\n    return x\n"

NOTE = """\
  - id: tour-describe
    path: pkg/modern.py
    symbol: describe
    quote: 'return t"{label} {BlockSpec}"'
    body: A t-string.
"""


def _tour(path: str) -> str:
    """The small project's article, also reading `path` and with a note on it."""
    assert "  - path: pkg/core.py\n" in TOUR and "  - id: tour-blockspec\n" in TOUR
    text = TOUR.replace("  - path: pkg/core.py\n", f"  - path: pkg/core.py\n  - path: {path}\n")
    return text.replace("  - id: tour-blockspec\n", NOTE.replace("pkg/modern.py", path)
                        + "  - id: tour-blockspec\n")


def _run(small: Small, monkeypatch, *argv: str) -> int:
    monkeypatch.setenv("READER_CACHE", str(small.cache))
    monkeypatch.setenv(MIRROR, str(small.upstream))
    monkeypatch.chdir(small.root)
    return main(list(argv))


@pytest.fixture(scope="module")
def modern(tmp_path_factory) -> Small:
    """The small project with `pkg/modern.py`, fetched, accepted, checked (clean) and built."""
    assert fast_ast(MODERN) is None or pytest.skip("this interpreter's `ast` reads the syntax")
    small = write_small(tmp_path_factory.mktemp("modern"), {**FILES, "pkg/modern.py": MODERN})
    (small.root / "annotations" / "tour.yaml").write_text(_tour("pkg/modern.py"))
    return fetch_and_build(small)


def test_the_index_resolves_names_inside_newer_syntax(modern, monkeypatch):
    monkeypatch.setenv("READER_CACHE", str(modern.cache))
    monkeypatch.setenv(MIRROR, str(modern.upstream))
    index = build_index(Corpus.open(Project.load(modern.root)), workers=Workers(1))
    refs = {(r.line, r.col, r.target_module, r.target_qualname)
            for r in index.references("small", "pkg/modern.py")}
    assert {(13, 25, "pkg.core", "BlockSpec"), (14, 22, "pkg.core", "BlockSpec"),
            (19, 15, "pkg.modern", "describe"), (21, 15, "pkg.core", "BlockSpec")} <= refs
    assert [(s.qualname, s.span.start, s.span.end) for s in index.summaries["pkg.modern"].symbols
            if s.kind != "method"] == [("Specs", 4, 4), ("Holder", 7, 9), ("describe", 12, 14), ("guarded", 17, 21)]


def test_check_anchors_a_note_in_newer_syntax(modern, monkeypatch, capsys):
    capsys.readouterr()
    assert _run(modern, monkeypatch, "check", "--format", "json") == 0
    out = capsys.readouterr().out
    assert '"tour-describe"' in out and '"ok"' in out


def test_build_renders_the_page_with_its_links(modern):
    page = (modern.root / "site" / "source" / "pkg" / "modern.py.html").read_text()
    assert 'id="describe"' in page
    link = '<a href="core.py.html#L6">BlockSpec</a>'  # its title in the page's paint script
    assert page.count(link) == 3  # in the f-string, the t-string and the `except A, B:` body
    paint = (unpacked_call((modern.root / "site" / "assets" / "code" / "pkg" / "modern.py.js").read_bytes()) or b"").decode()
    assert '"core.py.html#L6":"pkg.core.BlockSpec"' in paint
    assert "guarded" in page


def test_diff_reads_both_sides_in_newer_syntax(modern, monkeypatch, tmp_path, capsys):
    small = modern.copy(tmp_path)
    upstream = tmp_path / "upstream"
    git(modern.upstream, "clone", "-q", str(modern.upstream), str(upstream))
    (upstream / "pkg" / "modern.py").write_text(MODERN_V1)
    git(upstream, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qam", "v1")
    commit = git(upstream, "rev-parse", "HEAD")
    small = Small(small.root, small.cache, upstream, commit)
    files = {**FILES, "pkg/modern.py": MODERN_V1}
    pins = (small.root / "pins.toml").read_text().replace(modern.commit, commit)
    (small.root / "new.toml").write_text(pins)
    locked = "".join(f'"{p}" = "{blob_sha(t.encode())}"\n' for p, t in sorted(files.items()))
    (small.root / "new.lock").write_text(f'[small]\ncommit = "{commit}"\n\n[small.files]\n{locked}')
    capsys.readouterr()
    # exit 1: describe's signature changed around the note's unchanged line, so it is re-read
    assert _run(small, monkeypatch, "diff", "pins.toml", "new.toml", "--format", "json") == 1
    changes = json.loads(capsys.readouterr().out)["changes"]
    symbols = {(c["qualname"], c["status"]): c for c in changes if c["section"] == "symbols"}
    assert set(symbols) == {("describe", "signature"), ("describe", "body")}
    sig = symbols["describe", "signature"]
    assert (sig["old_signature"], sig["new_signature"]) == (
        "def describe[S](spec: S, width: int=8) -> str",
        "def describe[S: int](spec: S, width: int=8) -> str")
    notes = {c["note"]: (c["status"], c["needs_person"]) for c in changes if c["section"] == "notes"}
    assert notes == {"tour-describe": ("unchanged", True), "tour-blockspec": ("unchanged", False)}
    describe = next(c for c in changes if c.get("note") == "tour-describe")
    assert describe["proposal"]["reason"] == "its code is unchanged; the code around it in describe changed"


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Small:
    """A project pinning a file no parser reads, with a note on it; fetched only."""
    small = write_small(tmp_path_factory.mktemp("broken"), {**FILES, "pkg/broken.py": BROKEN})
    (small.root / "annotations" / "tour.yaml").write_text(
        _tour("pkg/broken.py").replace("symbol: describe", "symbol: broken"))
    with pytest.MonkeyPatch.context() as mp:
        assert _run(small, mp, "fetch") == 0
    return small


LINE = re.compile(r"^reader: error: small:pkg/broken\.py:2: no parser can read this file: "
                  r"invalid syntax( \(on the new side\))?; .+$")


@pytest.mark.parametrize("argv", [("build", "--jobs", "1"), ("rules",),
                                  ("diff", "pins.toml", "pins.toml")])
def test_an_unreadable_pinned_file_is_one_located_line(broken, monkeypatch, capsys, argv):
    capsys.readouterr()
    assert _run(broken, monkeypatch, *argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert [line for line in err if line.startswith("reader: error:")] == err[-1:]
    assert LINE.match(err[-1]), err
    assert "Traceback" not in "\n".join(err)


def test_notes_on_an_unreadable_file_say_why_they_cannot_be_placed(broken, monkeypatch, capsys):
    capsys.readouterr()
    assert _run(broken, monkeypatch, "check") == 2
    out = capsys.readouterr().out.splitlines()
    assert [x for x in out if x.startswith("small:pkg/broken.py")] == [
        "small:pkg/broken.py:2: no parser can read this file: invalid syntax; the file is not "
        "Python that libcst reads; pin a commit where it parses"]
    line = next(x for x in out if "tour-describe" in x)
    assert re.match(r"^annotations/tour\.yaml:\d+: note 'tour-describe': cannot be placed: "
                    r"small:pkg/broken\.py:2: no parser can read this file: invalid syntax; ", line)
