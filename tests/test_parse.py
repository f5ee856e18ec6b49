"""Parsing: libcst reads what the interpreter's `ast` refuses, lowered to the same `ast` and scan."""

from __future__ import annotations

import ast
import pickle
import sys
from pathlib import Path

import pytest

from reader.corpus import Corpus, Project
from reader.errors import Location
from reader.extract.parse import ParseError, fast_ast, located, lowered_ast, parse_ast, parse_module
from reader.extract.scan import summarize
from reader.extract.symbols import symbols_of
from reader.model import module_of
from reader.move.code import signatures_of

ROOT = Path(__file__).resolve().parents[1]

NEWER = {
    "t-string": 'def greet(x):\n    return t"hello {x!r:>{width}}"\n',
    "except A, B": "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n",
    "except* A, B": "try:\n    pass\nexcept* ValueError, TypeError:\n    pass\n",
    "type parameter default": "def f[T = int](x: T) -> T:\n    return x\n",
}
"""Python 3.13 and 3.14 syntax: refused by a 3.12 `ast`."""

SNIPPETS = {
    "pep695": "type Pair[T] = tuple[T, T]\n\nclass Box[T: (int, str), *Ts, **P]:\n"
              "    def get[S](self, s: S) -> T | S:\n        return self.x\n",
    "pep701": 'names = ["a"]\nmsg = f"{", ".join(names)} {f"{names[0]!r:>{width}}"} {x=}"\n',
    "imports": "import a.b.c as d, e\nfrom . import f\nfrom ..g.h import (i as j, k)\n"
               "from m import *\n",
    "scopes": "import os\nX = 1\nclass C(Base, metaclass=Meta, **kw):\n    y = X\n    z = y\n"
              "    def m(self, a: int = X, /, b=2, *c, d, e=os.sep, **f) -> C:\n"
              "        global X\n        X = self.y.z\n        return [X + i for i in a if i]\n"
              "    @staticmethod\n    async def s(q):\n        async with q as (r, *s):\n"
              "            await r\n        async for t in q:\n            yield t\n",
    "expressions": "x = (lambda a, *b, c=1: a)(1, *[2], **{'c': 3}) if not y else -z ** 2\n"
                   "s = {1, 2}; d = {k: v for k, v in x.items() if (w := k)}\n"
                   "g = sum(i for i in range(3))\nv = a[1:2, ::3, ...][b,]\n"
                   "w = 'a' 'b' f'{c}' r'\\d'\nu = a < b <= c is not d not in e\n"
                   "del x, y[0], z.a\nassert x, 'no'\nraise E from F\n",
    "match": "match p:\n    case [1, *rest] if rest:\n        pass\n"
             "    case {'k': v, **others}:\n        pass\n"
             "    case Point(x=0, y=yy) | Point(yy, _):\n        pass\n"
             "    case (None | True) as lit:\n        pass\n    case _:\n        pass\n",
    "guards": "try:\n    import numpy as np\nexcept (ImportError, OSError) as err:\n    np = None\n"
              "else:\n    pass\nfinally:\n    pass\nif np:\n    def f(): pass\n"
              "elif X:\n    def f(): return 1\nelse:\n    f = None\n"
              "while x:\n    break\nelse:\n    continue_ = 1\nwith a as b, c:\n    nonlocal_ = 2\n",
    "unicode": "ñame = 'é'\ndef ü(x): return ñame.upper().é\n",
}
"""Code every supported interpreter's `ast` reads: both routes must agree on it."""

REAL = [
    ("jax", "jax/_src/pallas/core.py"),
    ("jax", "jax/_src/pallas/pallas_call.py"),
    ("jax", "jax/_src/pallas/mosaic/pipeline.py"),
    ("jax", "jax/_src/pallas/mosaic_gpu/lowering.py"),
    ("tokamax", "tokamax/_src/ops/experimental/fused_moe/kernel.py"),
]


def _shape(tree: ast.Module) -> str:
    """The tree's dump without the empty text some `ast` versions leave in f-string specs."""
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            node.values = [v for v in node.values if not (isinstance(v, ast.Constant) and v.value == "")]
    return ast.dump(tree)


def _same_scan(text: str, module: str) -> None:
    fast, slow = fast_ast(text), lowered_ast(text, module)
    assert fast is not None
    assert _shape(slow) == _shape(fast)
    assert summarize(text, module, tree=slow) == summarize(text, module, tree=fast)
    assert symbols_of(text, slow) == symbols_of(text, fast)
    assert signatures_of(slow) == signatures_of(fast)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_both_routes_agree_on_snippets(name):
    _same_scan(SNIPPETS[name], "pkg.mod")


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.open(Project.load(ROOT))


@pytest.mark.parametrize("pin,path", REAL)
def test_both_routes_agree_on_pinned_files(corpus, pin, path):
    _same_scan(corpus.read_text(pin, path), module_of(path))


@pytest.mark.parametrize("name", sorted(NEWER))
def test_libcst_reads_syntax_the_interpreter_refuses(name):
    text = NEWER[name]
    refused = sys.version_info < ((3, 14) if "except" in name or "t-" in name else (3, 13))
    assert (fast_ast(text) is None) == refused
    assert parse_module(text, "x.py").code == text
    tree = parse_ast(text, "x.py")
    assert [s.qualname for s in symbols_of(text, tree)] == (["f"] if "default" in name
                                                            else ["greet"] if "t-" in name else [])


def test_names_in_newer_syntax_are_scanned():
    text = ("from m import Err1, Err2, width\n"
            "def greet(x):\n    return t'hello {x!r:>{width}}'\n"
            "try:\n    greet(1)\nexcept Err1, Err2:\n    pass\n")
    fs = summarize(text, "pkg.new")
    read = {(c.parts[0].name, c.parts[0].line, c.parts[0].col) for c in fs.chains}
    assert {("width", 3, 26), ("greet", 5, 4), ("Err1", 6, 7), ("Err2", 6, 13)} <= read
    assert ("x", 3, 20) not in read  # a local: never a global chain
    assert fs.bindings["Err1"][0].kind == "from"


def test_unreadable_file_is_one_located_error():
    text = "x = 1\ndef f(:\n    pass\n"
    with pytest.raises(ParseError) as e:
        parse_ast(text, located("jax", "pkg/bad.py"))
    err = e.value
    assert err.location == Location("jax:pkg/bad.py", 2)
    assert str(err).startswith("jax:pkg/bad.py:2: no parser can read this file: invalid syntax")
    assert "\n" not in str(err)
    assert err.reason.startswith("line 2: no parser can read this file")
    assert err.exit_code == 2
    again = pickle.loads(pickle.dumps(err))  # raised in the index's worker processes
    assert (again.location, again.col, str(again)) == (err.location, err.col, str(err))


def test_error_location_stays_inside_the_file():
    with pytest.raises(ParseError) as e:
        parse_module("x = (\n", "a.py")
    assert e.value.location == Location("a.py", 1)
    with pytest.raises(ParseError) as e:
        parse_module("x = 1\n\0\n", "a.py")
    assert e.value.location is not None and e.value.location.path == "a.py"


def test_a_type_statement_is_a_symbol_that_references_resolve_to():
    from reader.extract.symbols import symbols_of

    text = "class Blocked: ...\n\n\ntype BlockDim = Blocked | int | None\n\n\nclass C:\n    type T = int\n"
    found = {(s.qualname, s.kind, s.span.start) for s in symbols_of(text)}
    assert {("BlockDim", "variable", 4), ("C.T", "variable", 8)} <= found
