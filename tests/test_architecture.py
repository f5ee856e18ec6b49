"""ARCHITECTURE.md's module table names every module under reader/ (a top-level module in a row
of its own, a package's module in its package's row), and the import layers hold."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def module_table(text: str) -> dict[str, str]:
    """Each row of the `| module | owns |` table: every path its first cell names -> the row."""
    start = text.index("| module | owns |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        first, _, rest = line[1:].partition("|")
        for path in re.findall(r"`([^`]+)`", first):
            rows[path] = rest
    return rows


def missing(root: Path, rows: dict[str, str]) -> list[str]:
    """The modules under `root`/reader that the table does not name."""
    out = []
    for path in sorted((root / "reader").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        package = path.parent.relative_to(root).as_posix() + "/"
        if package == "reader/":
            named = rel in rows or path.name == "__init__.py"
        else:
            row = rows.get(package)
            named = row is not None and (path.name == "__init__.py" or f"`{path.name}`" in row)
        if not named:
            out.append(rel)
    return out


def test_every_module_under_reader_is_in_the_module_table():
    rows = module_table((ROOT / "ARCHITECTURE.md").read_text())
    assert missing(ROOT, rows) == []


def test_a_module_missing_from_the_table_is_named(tmp_path: Path):
    (tmp_path / "reader" / "render").mkdir(parents=True)
    for rel in ("reader/cache.py", "reader/new.py", "reader/render/pages.py", "reader/render/new.py"):
        (tmp_path / rel).write_text("")
    rows = module_table("| module | owns |\n|---|---|\n| `reader/cache.py` | x |\n"
                        "| `reader/render/` | pages (`pages.py`) |\n\nafter\n| `reader/new.py` | x |\n")
    assert missing(tmp_path, rows) == ["reader/new.py", "reader/render/new.py"]


def test_the_import_layers_hold():
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]


def layered(pyproject: str, contract: str = "layers") -> set[str]:
    """The modules an import-linter contract names: a `layers` contract's layers, a `forbidden`
    one's sources."""
    import tomllib

    contracts = tomllib.loads(pyproject)["tool"]["importlinter"]["contracts"]
    found = next(c for c in contracts if c["id"] == contract)
    layers = found.get("layers", found.get("source_modules", []))
    return {name.strip() for layer in layers for name in re.split(r"[|:]", layer)}


def top_level(root: Path) -> set[str]:
    """`reader`'s modules and packages (`reader.cache`, `reader.render`), its entry point aside."""
    return {f"reader.{p.stem if p.is_file() else p.name}" for p in (root / "reader").iterdir()
            if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
            or (p.is_dir() and (p / "__init__.py").is_file())}


def test_the_layers_contract_places_every_module_and_package():
    """A package the contract does not name is checked by no layer: it could import anything."""
    assert top_level(ROOT) - layered((ROOT / "pyproject.toml").read_text()) == set()


def test_every_module_but_gitio_is_kept_from_gitpython():
    assert top_level(ROOT) - layered((ROOT / "pyproject.toml").read_text(), "git") == {"reader.gitio"}


def render_modules(root: Path) -> set[str]:
    """The modules under reader/render/ (`reader.render.code.view`), its packages' `__init__` aside."""
    return {".".join(p.relative_to(root).with_suffix("").parts) for p in (root / "reader" / "render").rglob("*.py")
            if p.name != "__init__.py"}


def test_the_recipe_contract_places_every_module_under_render():
    """A module is placed by its own name or by its package's (`reader.render.ir`)."""
    named = layered((ROOT / "pyproject.toml").read_text(), "recipe")
    assert {m for m in render_modules(ROOT) if not any(m == n or m.startswith(f"{n}.") for n in named)} == set()


def test_the_folders_contract_places_every_folder_under_render():
    """Each package and module right under reader/render/ is a layer of `render-folders`: a new
    folder is placed, so that its arrows are checked too."""
    here = {p.stem if p.is_file() else p.name for p in (ROOT / "reader" / "render").iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert here == layered((ROOT / "pyproject.toml").read_text(), "render-folders")


def _lint_with(tmp_path: Path, module: str, text: str, exit_code: int = 1) -> str:
    """lint-imports' report on a copy of the tree with `module` (`render/common/up.py`) added; its
    exit code must be `exit_code` (1: a contract broken)."""
    shutil.copytree(ROOT / "reader", tmp_path / "reader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "reader" / module).write_text(text)
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode == exit_code, done.stdout[-3000:]
    return done.stdout


def test_an_import_up_between_render_folders_breaks_the_contract(tmp_path: Path):
    """A module of `common/` importing the code view (an arrow up) fails lint-imports."""
    out = _lint_with(tmp_path, "render/common/up.py", "from reader.render.code import view\n")
    assert "reader.render.common.up -> reader.render.code.view" in out


def test_a_type_only_import_up_between_render_folders_breaks_the_contract(tmp_path: Path):
    """The IR view naming the kinds' `World` for its types alone is an arrow up all the same."""
    out = _lint_with(tmp_path, "render/ir/up.py", "from typing import TYPE_CHECKING\n\n"
                     "if TYPE_CHECKING:\n    from reader.render.kind import World\n")
    assert "reader.render.ir.up -> reader.render.kind" in out


@pytest.mark.parametrize("module,opens", [("editions/leak.py", "gitio"), ("extract/leak.py", "releases"),
                                          ("claims/leak.py", "fetch"), ("ir/leak.py", "gitio"),
                                          ("move/leak.py", "fetch"), ("labs/leak.py", "gitio")])
def test_a_module_doing_io_in_the_middle_breaks_the_contract(tmp_path: Path, module: str, opens: str):
    """A stage between the ends that reads git, fetches or asks the package index (inside a
    function too) fails lint-imports, the middle-io contract named."""
    out = _lint_with(tmp_path, module, f"def read():\n    from reader import {opens}\n    return {opens}\n")
    leak = "reader." + module.removesuffix(".py").replace("/", ".")
    assert "I/O at the two ends" in out and f"{leak} -> reader.{opens}" in out


@pytest.mark.parametrize("module,text,imported", [
    ("claims/leak.py", "import subprocess\n", "subprocess"),
    ("labs/leak.py", "def run(argv):\n    import subprocess\n    return subprocess.run(argv)\n", "subprocess"),
    ("move/leak.py", "from reader.children import Children\n", "reader.children"),
    ("labs/leak.py", "def run(nb):\n    from nbclient import NotebookClient\n    return NotebookClient(nb)\n", "nbclient"),
    ("extract/leak.py", "from urllib.request import urlopen\n", "urllib"),
    ("editions/leak.py", "import venv\n", "venv"),
    ("ir/leak.py", "import socket\n", "socket"),
])
def test_a_module_starting_a_process_in_the_middle_breaks_the_contract(tmp_path: Path, module: str, text: str,
                                                                        imported: str):
    """A stage between the ends that starts a process (a child, pip's venv, a notebook's kernel) or
    opens a connection itself, rather than asking what the command handed it, fails lint-imports."""
    out = _lint_with(tmp_path, module, text)
    leak = "reader." + module.removesuffix(".py").replace("/", ".")
    assert "I/O at the two ends" in out and f"{leak} -> {imported}" in out


def test_a_module_in_the_middle_that_is_handed_its_children_keeps_the_contracts(tmp_path: Path):
    """The same stage asking a `Pythons` it was handed (what claims/ does) keeps every contract."""
    _lint_with(tmp_path, "claims/handed.py", "from reader.claims.env import Pythons\n\n\n"
               "def run(pythons: Pythons, argv: list[str]) -> int:\n    return pythons.run(argv).code\n",
               exit_code=0)


def test_a_package_the_layers_leave_out_is_named(tmp_path: Path):
    (tmp_path / "reader" / "new").mkdir(parents=True)
    for rel in ("reader/__init__.py", "reader/__main__.py", "reader/cache.py", "reader/new/__init__.py"):
        (tmp_path / rel).write_text("")
    (tmp_path / "reader" / "assets").mkdir()  # package data, not a package
    pyproject = ('[[tool.importlinter.contracts]]\nid = "layers"\n'
                 'layers = ["reader.cli", "reader.cache | reader.errors"]\n')
    assert top_level(tmp_path) - layered(pyproject) == {"reader.new"}


def imported(path: Path) -> set[str]:
    """The modules `path` imports anywhere in it (inside functions and `TYPE_CHECKING` too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


@pytest.mark.parametrize("module", ["generate.py", "world.py"])
def test_the_recipe_reaches_the_page_kinds_through_the_registry_alone(module):
    """The recipe (generate.py) and the world it gathers (world.py) import no kind's package and
    nothing of the labs: what a kind adds to the build besides its pages is a function the registry
    calls (render/recipe/registry.py)."""
    from reader.render.recipe.registry import KINDS

    packages = {type(kind).__module__.rsplit(".", 1)[0] for kind in KINDS.values()}
    assert "reader.render.lab" in packages and "reader.render.source" in packages
    found = imported(ROOT / "reader" / "render" / "recipe" / module)
    assert {m for m in found for p in (*packages, "reader.labs") if m == p or m.startswith(f"{p}.")} == set()
    assert "reader.render.recipe.registry" in found
