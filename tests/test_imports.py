"""The package's import graph runs downhill: no module of `reader` imports itself back, directly
or through others. Every import counts: one inside a function (it runs late, but the module
still depends on what it imports) and one under `TYPE_CHECKING` (a type names the module it
comes from)."""

from __future__ import annotations

import ast
from pathlib import Path

import reader

PACKAGE = Path(reader.__file__).parent


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import of a module: its body's, its functions' and its classes'."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of `known` that `source` (the text of `module`) imports anywhere: for
    `from a import b`, `a.b` when it is a module, else `a`."""
    found = set()
    for node in _imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
            continue
        base = node.module or ""
        if node.level:
            package = module if is_package else module.rpartition(".")[0]
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*parts, *([node.module] if node.module else [])])
        for a in node.names:
            found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base)
    return found & known


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    known = set(files)
    return {m: imports_of(p.read_text(encoding="utf-8"), m, p.name == "__init__.py", known) - {m}
            for m, p in files.items()}


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as the modules along it (the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return [*path[path.index(n):], n]
            if n not in state and (found := visit(n)) is not None:
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)) is not None:
            return found
    return None


def test_the_package_has_no_import_cycle():
    assert cycle_in(import_graph(PACKAGE)) is None


def test_a_cycle_through_a_type_checking_or_function_import_is_found(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from pkg.sub.b import f\n")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n"
        "def f():\n    from pkg.sub import c\n")
    (pkg / "sub" / "c.py").write_text("import pkg.sub.a\n")
    graph = import_graph(pkg)
    assert graph["pkg.sub.a"] == {"pkg.sub.b"} and graph["pkg.sub.c"] == {"pkg.sub.a"}
    assert graph["pkg.sub.b"] == {"pkg.sub.a", "pkg.sub.c"}  # the function's import is an edge
    assert cycle_in(graph) == ["pkg.sub.a", "pkg.sub.b", "pkg.sub.a"]
    # Without the TYPE_CHECKING import, the function's import still closes a cycle.
    assert cycle_in({**graph, "pkg.sub.b": {"pkg.sub.c"}}) == ["pkg.sub.a", "pkg.sub.b", "pkg.sub.c", "pkg.sub.a"]
    assert cycle_in({m: deps - {"pkg.sub.a"} for m, deps in graph.items()}) is None
