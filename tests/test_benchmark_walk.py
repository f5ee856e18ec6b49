"""benchmarks/walk.py on a small package written here: two layers, one upward call, one re-entry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

WALK = Path(__file__).resolve().parent.parent / "benchmarks" / "walk.py"

PYPROJECT = """\
[tool.importlinter]
root_packages = ["reader"]

[[tool.importlinter.contracts]]
name = "two layers"
type = "layers"
layers = ["reader.site | reader.top", "reader.low"]

[[tool.importlinter.contracts]]
name = "not layers"
type = "forbidden"
source_modules = ["reader.low"]
forbidden_modules = ["git"]
"""

FILES = {
    "reader/__init__.py": "",
    "reader/site.py": """\
from reader.low import util
from reader.low.util import Thing


def build_site(root, options, callback):
    util.helper(root)
    _count(options)
    _note(options.root)
    thing = Thing(root.name)
    thing.run()
    callback(len(options))


def _count(options):
    return options


def _note(path):
    return path
""",
    "reader/top/__init__.py": "",
    "reader/top/api.py": """\
def serve(port):
    return port
""",
    "reader/low/__init__.py": "",
    "reader/low/util.py": """\
from dataclasses import dataclass

from reader.low.deep.inner import dig


def helper(root):
    from reader.top import api

    dig(root)
    api.serve(8000)  # up: reader.top is in the layer above reader.low


def finish(path):
    return path


@dataclass
class Thing:
    name: str

    def run(self):
        return self.name
""",
    "reader/low/deep/__init__.py": "",
    "reader/low/deep/inner.py": """\
from .. import util


def dig(path):
    util.finish(path)  # back into reader/low/, which the path left for reader/low/deep/
""",
}


def write_tree(root: Path) -> Path:
    (root / "pyproject.toml").write_text(PYPROJECT)
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def run_walk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(WALK), *args], capture_output=True, text=True,
                          timeout=120, check=False)


def section(out: str, title: str) -> list[str]:
    lines = out.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("  ")), len(lines))
    return lines[start:end]


def test_every_call(tmp_path: Path) -> None:
    done = run_walk("--tree", str(write_tree(tmp_path)), "--edges")
    assert done.returncode == 0, done.stderr
    assert section(done.stdout, "walk from reader.site:build_site, every call:") == [
        "  steps: 8 call edges; 9 functions entered",
        "  rooms entered: 4 modules in 4 folders",
        "  climbs back up: 1 to a higher layer; re-entries: 1 into a room the path had left",
        "  in the order entered: 1 moves up a layer, 3 into a room entered before",
        "  calls in the functions entered: 8 to reader, 1 outside it, 1 unresolved; "
        "0 reader functions handed on as values (not followed)",
        "  longest path: 4 functions: build_site > helper > dig > finish",
        "  climbs by module:",
        "      1  reader.low.util -> reader.top.api",
        "  re-entries by module:",
        "      1  reader.low.deep.inner -> reader.low.util",
        "  functions entered: reader.site:build_site, reader.low.util:helper, "
        "reader.low.deep.inner:dig, reader.low.util:finish, reader.top.api:serve, "
        "reader.site:_count, reader.site:_note, reader.low.util:Thing, reader.low.util:Thing.run",
    ]


def test_following_root(tmp_path: Path) -> None:
    """`root` reaches helper, dig and finish, and `_note` through `options.root`; not `_count`,
    `Thing` (given `root.name`) or `serve`."""
    done = run_walk("--tree", str(write_tree(tmp_path)), "--follow", "root", "--edges")
    assert done.returncode == 0, done.stderr
    assert section(done.stdout, "walk from reader.site:build_site, following 'root':") == [
        "  steps: 4 call edges; 5 functions entered",
        "  rooms entered: 3 modules in 3 folders",
        "  climbs back up: 0 to a higher layer; re-entries: 1 into a room the path had left",
        "  in the order entered: 1 moves up a layer, 2 into a room entered before",
        "  calls in the functions entered: 8 to reader, 1 outside it, 1 unresolved; "
        "0 reader functions handed on as values (not followed)",
        "  longest path: 4 functions: build_site > helper > dig > finish",
        "  climbs by module:",
        "  re-entries by module:",
        "      1  reader.low.deep.inner -> reader.low.util",
        "  functions entered: reader.site:build_site, reader.low.util:helper, "
        "reader.low.deep.inner:dig, reader.low.util:finish, reader.site:_note",
    ]


def test_layout(tmp_path: Path) -> None:
    done = run_walk("--tree", str(write_tree(tmp_path)), "--follow", "")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith(
        "(8 modules, 48 lines; 0 not parsed; 1 layers contracts)")
    assert section(done.stdout, "layout (reader/: modules, lines; [with its subfolders]):") == [
        "  reader/                    2      19   [8 48]",
        "    low/                     2      22   [4 27]",
        "      deep/                  2       5",
        "    top/                     2       2",
    ]
    assert "following" not in done.stdout


def test_unparsable_and_unknown_code_is_counted(tmp_path: Path) -> None:
    """A file that does not parse is named and left out; calls nothing can resolve are counted."""
    tree = write_tree(tmp_path)
    (tree / "reader/low/broken.py").write_text("def half(:\n")
    (tree / "reader/site.py").write_text(FILES["reader/site.py"] + """
def _dynamic(kinds, table):
    for kind in kinds:
        kind.render(table["x"])()
    getattr(kinds, "y")(*kinds)
""")
    done = run_walk("--tree", str(tree), "--start", "reader.site:_dynamic", "--follow", "")
    assert done.returncode == 0, done.stderr
    assert "1 not parsed: reader/low/broken.py" in done.stdout.splitlines()[0]
    assert ("  calls in the functions entered: 0 to reader, 2 outside it, 2 unresolved; "
            "0 reader functions handed on as values (not followed)") in done.stdout.splitlines()


@pytest.mark.parametrize(("args", "message"), [
    (("--start", "reader.site:nowhere"), "reader.site:nowhere not found under"),
    (("--follow", "cache"), "reader.site:build_site has no parameter 'cache'"),
])
def test_bad_arguments(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    done = run_walk("--tree", str(write_tree(tmp_path)), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_no_package(tmp_path: Path) -> None:
    done = run_walk("--tree", str(tmp_path))
    assert done.returncode == 2
    assert "no such package folder" in done.stderr


def test_a_protocol_dispatches_to_its_implementations(tmp_path: Path) -> None:
    """A method of a reader Protocol, on items of annotated containers, enters each class that has
    the protocol's methods (here one in the layer above: a climb the imports never show)."""
    tree = write_tree(tmp_path)
    (tree / "reader/low/kinds.py").write_text("""\
from collections.abc import Mapping, Sequence
from typing import Protocol


class Kind(Protocol):
    def make(self) -> str: ...


def each(kinds: Sequence[Kind], named: Mapping[str, Kind]):
    for kind in kinds:
        kind.make()
    for _, kind in named.items():
        kind.make()
    named["x"].make()
""")
    (tree / "reader/top/page.py").write_text("""\
class PageKind:
    def make(self) -> str:
        return "page"


class NotAKind:
    def other(self) -> str:
        return ""
""")
    done = run_walk("--tree", str(tree), "--start", "reader.low.kinds:each", "--follow", "",
                    "--edges")
    assert done.returncode == 0, done.stderr
    assert section(done.stdout, "walk from reader.low.kinds:each, every call:")[0:3] == [
        "  steps: 1 call edges; 2 functions entered",
        "  rooms entered: 2 modules in 2 folders",
        "  climbs back up: 1 to a higher layer; re-entries: 0 into a room the path had left",
    ]
    assert "      1  reader.low.kinds -> reader.top.page" in done.stdout.splitlines()


def test_handed_functions(tmp_path: Path) -> None:
    """A function handed to a pool is counted, and entered only with --handed."""
    tree = write_tree(tmp_path)
    (tree / "reader/low/pool.py").write_text("""\
def run(pool, root):
    pool.submit(_task, root)


def _task(root):
    return root
""")
    args = ("--tree", str(tree), "--start", "reader.low.pool:run", "--follow", "root")
    plain, handed = run_walk(*args), run_walk(*args, "--handed")
    assert plain.returncode == handed.returncode == 0, plain.stderr + handed.stderr
    for title in ("every call", "following 'root'"):
        steps = section(plain.stdout, f"walk from reader.low.pool:run, {title}:")
        assert steps[0] == "  steps: 0 call edges; 1 functions entered"
        assert "1 reader functions handed on as values (not followed)" in steps[4]
        steps = section(handed.stdout, f"walk from reader.low.pool:run, {title}:")
        assert steps[0] == "  steps: 1 call edges; 2 functions entered"
        assert "1 reader functions handed on as values (followed)" in steps[4]
