"""The trees the rule evaluator reads (`skeleton`: bodies blanked) and the sm90 reader's positions
(`Positions`), against what they stand in for: the full tree's lines, libcst's PositionProvider."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from reader.corpus import Corpus, Project
from reader.extract.evaluate import assignment_at
from reader.extract.index import index_from_sources
from reader.extract.tree import Positions, Tree, assignments, skeleton, skeleton_kept

ROOT = Path(__file__).resolve().parents[1]

MODULE = textwrap.dedent('''\
    """Doc."""
    import functools

    @functools.partial(
        register, "a")
    def f(x,
          y=1):
        """Body."""
        s = """a
    b"""
        return s

    class A:
        @property
        def g(self): return 1
        z: int = 2

    def h(): return 3

    if True:
        def k():
            pass
    try:
        class B(A):
            x = 1
    except ImportError:
        B = None
    T = {f: 1, "k": (2,
                     3)}
    ''')


def _module_level(tree: Tree) -> list[tuple[str, int, str]]:
    """Each module-level statement's kind and line, with its code as written when it is simple,
    and each def's name, parameters and decorators."""
    out = []
    for stmt in tree.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            params = tree.text(stmt.params) if isinstance(stmt, cst.FunctionDef) else ""
            out.append((type(stmt).__name__, tree.line(stmt), f"{stmt.name.value}({params})"))
            out += [("decorator", tree.line(d), tree.text(d.decorator)) for d in stmt.decorators]
        elif isinstance(stmt, cst.SimpleStatementLine):
            out += [(type(s).__name__, tree.line(s), tree.text(s)) for s in stmt.body]
        else:
            out.append((type(stmt).__name__, tree.line(stmt), ""))
    return out


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_skeleton_keeps_lines_headers_and_module_level_code(newline):
    text = MODULE.replace("\n", newline)
    blank = skeleton(text)
    assert blank.count("\n") == text.count("\n")
    assert "return s" not in blank and '"""Body."""' not in blank and "x = 1" not in blank
    assert "def h(): return 3" in blank  # a body on the header's line stays
    full, short = Tree.parse(text, "m.py"), Tree.parse(text, "m.py", bodies=False)
    assert _module_level(short) == _module_level(full)
    f = next(s for s in short.module.body if isinstance(s, cst.FunctionDef))
    assert [p.name.value for p in f.params.params] == ["x", "y"]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_skeleton_is_parsed_without_the_lines_it_blanked_and_its_nodes_keep_their_lines(newline):
    text = MODULE.replace("\n", newline)
    kept = skeleton_kept(text)
    assert kept.numbers is not None
    assert set(range(1, text.count("\n") + 2)) - set(kept.numbers) == {9, 10, 11, 15, 16}  # bodies
    assert kept.text.split("\n") == [skeleton(text).split("\n")[n - 1] for n in kept.numbers]
    short = Tree.parse(text, "m.py", bodies=False)
    assert short.lines._numbers == kept.numbers  # parsed from the kept lines
    assert _module_level(short) == _module_level(Tree.parse(text, "m.py"))
    blank = Tree.parse(skeleton(text), "m.py")  # the skeleton with its blank lines
    assert [short.lines.end(s) for s in short.module.body] == [blank.lines.end(s) for s in blank.module.body]


def test_skeletons_of_the_pinned_files_parse_with_every_line_in_place():
    corpus = Corpus.open(Project.load(ROOT))
    for path in ("jax/_src/pallas/mosaic/lowering.py", "jax/_src/pallas/core.py"):
        text = corpus.read_text("jax", path)
        blank = skeleton(text)
        assert len(blank) < len(text) / 2, path
        full = _module_level(Tree.parse(text, path))
        assert _module_level(Tree.parse(blank, path)) == full
        assert _module_level(Tree.parse(text, path, bodies=False)) == full  # without the blanked lines


FLAT = textwrap.dedent('''\
    """Doc."""
    import functools

    load_p = Primitive("load")
    def f(x):
        return x
    T = {f: 1, "k": (2,
                     3)}
    a = b = functools.partial(
        f, 1)
    ''')


def _spans(text: str) -> list[tuple[int, int]]:
    """The module-level variables' first and last lines, as the index gives them."""
    summary = index_from_sources({"m.py": text}).summaries["m"]
    return [(s.span.start, s.span.end) for s in summary.symbols
            if s.kind == "variable" and "." not in s.qualname]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_an_assignments_tree_holds_each_variable_as_the_whole_tree_does(newline):
    text = FLAT.replace("\n", newline)
    only = assignments(text, _spans(text))
    assert only is not None and only.numbers == (4, 7, 8, 9, 10)  # those lines alone, no blank ones
    assert only.text.split("\n") == [text.split("\n")[n - 1] for n in only.numbers]
    assert "import" not in only.text and "return" not in only.text
    full, short = Tree.parse(text, "m.py"), Tree.parse(only, "m.py")
    for line, name in [(4, "load_p"), (7, "T"), (9, "a"), (9, "b")]:
        whole, alone = assignment_at(full, line, name), assignment_at(short, line, name)
        assert whole is not None and alone is not None, name
        assert (short.line(alone), short.text(alone.value)) == (full.line(whole), full.text(whole.value))
        assert short.lines.end(alone) == full.lines.end(whole)


def test_an_assignment_inside_an_if_or_a_try_leaves_the_module_to_its_skeleton():
    text = MODULE  # `B = None` under `except ImportError:`
    assert assignments(text, _spans(text)) is None
    assert assignments("x = 1\ry = 2\n", [(1, 1)]) is None  # a lone CR: lines counted otherwise


def test_text_that_ast_refuses_is_its_own_skeleton():
    assert skeleton("def f(:\n  pass\n") == "def f(:\n  pass\n"


_POSITIONED = (cst.BaseExpression, cst.BaseStatement, cst.BaseSmallStatement, cst.Param, cst.Arg)
"""The nodes libcst writes inside a syntactic position (whitespace and punctuation it does not)."""


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_positions_agree_with_libcst(newline):
    module = cst.parse_module(MODULE.replace("\n", newline) + "if x:\n\tz = [a.b(c)\n\t     for c in d]\n")
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    expected = {n: (r.start.line, r.start.column)
                for n, r in wrapper.resolve(PositionProvider).items()}
    ours = Positions(module)
    shown = {n: start for n, start in expected.items() if isinstance(n, _POSITIONED)}
    assert {n: ours.start(n) for n in shown} == shown
    assert all(ours.line(n) == start[0] for n, start in shown.items())


def test_positions_of_the_sm90_kernel_agree_with_libcst():
    corpus = Corpus.open(Project.load(ROOT))
    text = corpus.read_text("tokamax", "tokamax/_src/ops/attention/pallas_mosaic_gpu_kernel_sm90.py")
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ours = Positions(module)
    assert all(ours.start(n) == (r.start.line, r.start.column) for n, r in expected.items()
               if isinstance(n, _POSITIONED))
    assert ast.parse(text)  # the kernel is Python this interpreter reads
