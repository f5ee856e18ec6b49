"""one_line: an expression's text on one line, as `ast.unparse` prints it."""

from __future__ import annotations

import ast

import pytest

from reader.extract.unparse import one_line

CASES = [
    'functools.partial(\n    _rule,  # why\n    kind="sum",\n)',
    "f(a,\n  b)",
    "(a,)",
    "[\n  1,\n  2,\n]",
    "{\n  'k': v,  # c\n  **rest,\n}",
    "g('a' 'b', impl=lambda x, y: x != y)",
    "partial(_binary_op_lowering_rule, impl=lambda x, y: x._pointwise(arith.shli, y))",
    "h(*args, key=b'\\x00', **kw)",
]


@pytest.mark.parametrize("code", CASES)
def test_one_line_prints_as_ast_unparse_does(code):
    # `ast` serves here only as the reference printer the tables' texts used to come from
    assert one_line(code) == ast.unparse(ast.parse(code, mode="eval"))


def test_one_line_keeps_the_comma_of_a_one_element_tuple_and_the_parentheses_as_written():
    assert one_line("(a,)") == "(a,)"
    assert one_line("f((a + b) * c)") == "f((a + b) * c)"
