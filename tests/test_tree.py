"""Tree: libcst trees and their lines, which agree with `ast`'s on snippets and pinned files."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from reader.corpus import Corpus, Project
from reader.extract.parse import ParseError
from reader.extract.tree import Tree, statements

ROOT = Path(__file__).resolve().parents[1]

SNIPPET = textwrap.dedent('''\
    """A module."""
    import os; import sys

    @decorate(
        1)
    class A(
            Base):
        x: int = (1 +
                  2)

        def f(self, a,
              *rest, b=3):
            s = """a
    b"""
            return s
        # a comment after the class's last statement


    if os:
        def g(): return 1
    else:
        pass
    ''')


def _ast_lines(tree: ast.AST) -> list[tuple[str, int, int]]:
    out = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((n.name, n.lineno, n.end_lineno or 0))
        elif isinstance(n, ast.arg):
            out.append((n.arg, n.lineno, n.end_lineno or 0))
        elif isinstance(n, ast.stmt):
            out.append((type(n).__name__, n.lineno, n.end_lineno or 0))
    return sorted(out)


class _Lines(cst.CSTVisitor):
    def __init__(self, tree: Tree):
        self.tree, self.out = tree, []

    def on_visit(self, node: cst.CSTNode) -> bool:
        name = {cst.AnnAssign: "AnnAssign", cst.Expr: "Expr", cst.Import: "Import",
                cst.Assign: "Assign", cst.Return: "Return", cst.Pass: "Pass", cst.If: "If",
                cst.ImportFrom: "ImportFrom", cst.Raise: "Raise", cst.Assert: "Assert",
                cst.AugAssign: "AugAssign", cst.For: "For", cst.While: "While",
                cst.With: "With", cst.Try: "Try", cst.Del: "Delete", cst.Global: "Global",
                cst.Nonlocal: "Nonlocal", cst.Break: "Break", cst.Continue: "Continue",
                cst.TypeAlias: "TypeAlias", cst.Match: "Match"}.get(type(node))
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            name = node.name.value
        elif isinstance(node, cst.Param):
            name, node = node.name.value, node.name
        if name:
            self.out.append((name, self.tree.line(node), self.tree.lines.end(node)))
        return True

    def lines(self) -> list[tuple[str, int, int]]:
        self.tree.module.visit(self)
        return sorted(self.out)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_lines_agree_with_ast(newline):
    text = SNIPPET.replace("\n", newline)
    tree = Tree.parse(text, "m.py")
    assert _Lines(tree).lines() == _ast_lines(ast.parse(text))
    a = next(n for n in statements(tree.module.body) if isinstance(n, cst.ClassDef))
    assert (tree.line(a), tree.lines.end(a)) == (6, 15)  # `class`, after the decorator
    assert tree.text(a.decorators[0].decorator) == f"decorate({newline}    1)"  # as written


def test_lines_agree_with_ast_on_pinned_files():
    corpus = Corpus.open(Project.load(ROOT))
    for path in ("jax/_src/pallas/mosaic/pipeline.py", "jax/_src/pallas/core.py"):
        text = corpus.read_text("jax", path)
        assert _Lines(Tree.parse(text, path)).lines() == _ast_lines(ast.parse(text)), path


def test_a_file_libcst_cannot_read_is_a_parse_error():
    with pytest.raises(ParseError) as e:
        Tree.parse("x = 1\ndef f(:\n", "m.py", "jax:m.py")
    assert str(e.value.location) == "jax:m.py:2"
