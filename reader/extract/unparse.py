"""An expression's source text on one line, printed the way `ast.unparse` prints it.

A rule's text in the tables (`functools.partial(_reduce, 'max')`) reads the same whatever the
pinned source's layout: no comments or line breaks, no trailing comma, strings in `repr`'s quotes.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst


def one_line(code: str) -> str:
    """An expression's source text on one line as `ast.unparse` prints it: no comments or line
    breaks, no trailing comma, strings in `repr`'s quotes."""
    printed = cst.parse_expression(code).visit(_OneLine())
    assert isinstance(printed, cst.BaseExpression), "_OneLine removes no node"
    return cst.Module([]).code_for_node(printed)


class _OneLine(cst.CSTTransformer):
    """Rewrites an expression the way `ast.unparse` prints it (parentheses stay as written)."""

    def leave_ParenthesizedWhitespace(
            self, original_node: cst.ParenthesizedWhitespace,
            updated_node: cst.ParenthesizedWhitespace) -> cst.BaseParenthesizableWhitespace:
        return cst.SimpleWhitespace("")

    def leave_Comma(self, original_node: cst.Comma, updated_node: cst.Comma) -> cst.Comma:
        if isinstance(original_node.whitespace_after, cst.ParenthesizedWhitespace):
            return updated_node.with_changes(whitespace_after=cst.SimpleWhitespace(" "))
        return updated_node

    def leave_SimpleString(self, original_node: cst.SimpleString,
                           updated_node: cst.SimpleString) -> cst.BaseExpression:
        return updated_node.with_changes(value=repr(original_node.evaluated_value))

    def leave_ConcatenatedString(self, original_node: cst.ConcatenatedString,
                                 updated_node: cst.ConcatenatedString) -> cst.BaseExpression:
        value = original_node.evaluated_value
        if value is None:  # an f-string among the parts
            return updated_node
        return cst.SimpleString(repr(value), lpar=updated_node.lpar, rpar=updated_node.rpar)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        return updated_node.with_changes(args=_untrailed(updated_node.args))

    def leave_List(self, original_node: cst.List, updated_node: cst.List) -> cst.BaseExpression:
        return updated_node.with_changes(elements=_untrailed(updated_node.elements))

    def leave_Set(self, original_node: cst.Set, updated_node: cst.Set) -> cst.BaseExpression:
        return updated_node.with_changes(elements=_untrailed(updated_node.elements))

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.BaseExpression:
        return updated_node.with_changes(elements=_untrailed(updated_node.elements))

    def leave_Tuple(self, original_node: cst.Tuple, updated_node: cst.Tuple) -> cst.BaseExpression:
        if len(updated_node.elements) < 2:  # `(x,)` keeps the comma that makes it a tuple
            return updated_node
        return updated_node.with_changes(elements=_untrailed(updated_node.elements))


def _untrailed[T: (cst.Arg, cst.BaseElement, cst.BaseDictElement)](items: Sequence[T]) -> list[T]:
    """The items without a comma after the last one."""
    out = list(items)
    if out:
        out[-1] = out[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return out
