"""Lowering libcst expressions, arguments, strings and patterns to the running interpreter's `ast`.

`ExpressionLowering` holds the positions and one method per libcst node type (`_<TypeName>`;
patterns `_p<TypeName>`); `lower.py` adds the statements. String text inside f- and t-strings is
kept as written (escapes undecoded); nothing reads it but `ast.unparse` of a signature.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange

_BINOPS: dict[type, type[ast.operator]] = {
    cst.Add: ast.Add, cst.Subtract: ast.Sub, cst.Multiply: ast.Mult, cst.Divide: ast.Div,
    cst.FloorDivide: ast.FloorDiv, cst.Modulo: ast.Mod, cst.Power: ast.Pow,
    cst.MatrixMultiply: ast.MatMult, cst.LeftShift: ast.LShift, cst.RightShift: ast.RShift,
    cst.BitOr: ast.BitOr, cst.BitAnd: ast.BitAnd, cst.BitXor: ast.BitXor,
}
_UNARY: dict[type, type[ast.unaryop]] = {
    cst.Not: ast.Not, cst.Minus: ast.USub, cst.Plus: ast.UAdd, cst.BitInvert: ast.Invert,
}
_CMP: dict[type, type[ast.cmpop]] = {
    cst.Equal: ast.Eq, cst.NotEqual: ast.NotEq, cst.LessThan: ast.Lt, cst.LessThanEqual: ast.LtE,
    cst.GreaterThan: ast.Gt, cst.GreaterThanEqual: ast.GtE, cst.Is: ast.Is, cst.IsNot: ast.IsNot,
    cst.In: ast.In, cst.NotIn: ast.NotIn,
}
_CONSTANTS = {"True": True, "False": False, "None": None}
LOAD, STORE, DEL = ast.Load(), ast.Store(), ast.Del()


class ExpressionLowering:
    """Lowers expressions (`expr`), parameters and arguments, patterns (`pattern`), with `ast`'s
    positions: 1-based lines, 0-based columns in UTF-8 bytes of `lines`."""

    def __init__(self, positions: Any, lines: list[str]):
        self.positions = positions
        self.lines = lines

    # positions ------------------------------------------------------------------------
    def _col(self, line: int, col: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return col if text.isascii() else len(text[:col].encode("utf-8"))

    def start(self, source: cst.CSTNode) -> tuple[int, int]:
        r: CodeRange = self.positions[source]
        return r.start.line, self._col(r.start.line, r.start.column)

    def end(self, source: cst.CSTNode) -> tuple[int, int]:
        r: CodeRange = self.positions[source]
        return r.end.line, self._col(r.end.line, r.end.column)

    def at(self, source: cst.CSTNode, node: Any, last: cst.CSTNode | None = None) -> Any:
        """`node` with the lines and byte columns of `source` (through `last`, when given)."""
        node.lineno, node.col_offset = self.start(source)
        node.end_lineno, node.end_col_offset = self.end(last or source)
        return node

    # parameters and arguments -----------------------------------------------------------
    def arg(self, p: cst.Param) -> ast.arg:
        ann = self.opt(p.annotation.annotation if p.annotation else None)
        return self.at(p.name, ast.arg(p.name.value, ann), p.annotation or p.name)

    def params(self, p: cst.Parameters) -> ast.arguments:
        positional = [*p.posonly_params, *p.params]
        vararg = self.arg(p.star_arg) if isinstance(p.star_arg, cst.Param) else None
        kwarg = self.arg(p.star_kwarg) if p.star_kwarg else None
        return ast.arguments(
            posonlyargs=[self.arg(a) for a in p.posonly_params],
            args=[self.arg(a) for a in p.params], vararg=vararg,
            kwonlyargs=[self.arg(a) for a in p.kwonly_params],
            kw_defaults=[self.opt(a.default) for a in p.kwonly_params], kwarg=kwarg,
            defaults=[self.expr(a.default) for a in positional if a.default is not None])

    def args(self, args: Sequence[cst.Arg]) -> tuple[list[ast.expr], list[ast.keyword]]:
        positional: list[ast.expr] = []
        keywords: list[ast.keyword] = []
        for a in args:
            if a.keyword is not None:
                keywords.append(self.at(a, ast.keyword(a.keyword.value, self.expr(a.value))))
            elif a.star == "**":
                keywords.append(self.at(a, ast.keyword(None, self.expr(a.value))))
            elif a.star == "*":
                positional.append(self.at(a, ast.Starred(self.expr(a.value), LOAD)))
            else:
                positional.append(self.expr(a.value))
        return positional, keywords

    def type_params(self, tp: cst.TypeParameters | None) -> list[Any]:
        out = []
        for t in tp.params if tp else ():
            p = t.param
            extra = {}
            if t.default is not None and "default_value" in ast.TypeVar._fields:
                extra["default_value"] = self.expr(t.default)
            node: ast.TypeVar | ast.TypeVarTuple | ast.ParamSpec
            if isinstance(p, cst.TypeVar):
                node = ast.TypeVar(p.name.value, self.opt(p.bound), **extra)
            elif isinstance(p, cst.TypeVarTuple):
                node = ast.TypeVarTuple(p.name.value, **extra)
            else:
                node = ast.ParamSpec(p.name.value, **extra)
            self.at(p, node, p.name)
            last = extra.get("default_value") or getattr(node, "bound", None)
            if last is not None:
                node.end_lineno, node.end_col_offset = last.end_lineno, last.end_col_offset
            out.append(node)
        return out

    # expressions ----------------------------------------------------------------------
    def opt(self, node: cst.BaseExpression | None) -> Any:
        return self.expr(node) if node is not None else None

    def expr(self, node: cst.CSTNode, ctx: ast.expr_context = LOAD) -> Any:
        lowered = getattr(self, f"_{type(node).__name__}")(node, ctx)
        return lowered if hasattr(lowered, "lineno") else self.at(node, lowered)

    def _Name(self, n: cst.Name, ctx: ast.expr_context) -> ast.expr:
        if n.value in _CONSTANTS and isinstance(ctx, ast.Load):
            return ast.Constant(_CONSTANTS[n.value])
        return ast.Name(n.value, ctx)

    def _Attribute(self, n: cst.Attribute, ctx: ast.expr_context) -> ast.expr:
        return ast.Attribute(self.expr(n.value), n.attr.value, ctx)

    def _Subscript(self, n: cst.Subscript, ctx: ast.expr_context) -> ast.expr:
        parts = [self.slice(e) for e in n.slice]
        one = len(parts) == 1 and n.slice[0].comma == cst.MaybeSentinel.DEFAULT
        index = parts[0] if one else self.at(n, ast.Tuple(parts, LOAD))
        if not one:  # the tuple spans the brackets' contents, a trailing comma included
            last = n.slice[-1]
            self.at(n.slice[0], index, last.comma if isinstance(last.comma, cst.Comma) else last)
        return ast.Subscript(self.expr(n.value), index, ctx)

    def slice(self, e: cst.SubscriptElement) -> Any:
        s = e.slice
        if isinstance(s, cst.Slice):
            return self.at(s, ast.Slice(self.opt(s.lower), self.opt(s.upper), self.opt(s.step)))
        assert isinstance(s, cst.Index)
        value = self.expr(s.value)
        return self.at(s, ast.Starred(value, LOAD)) if s.star else value

    def _Call(self, n: cst.Call, ctx: ast.expr_context) -> ast.expr:
        positional, keywords = self.args(n.args)
        if len(n.args) == 1 and isinstance(n.args[0].value, cst.GeneratorExp) and \
                not n.args[0].value.lpar:  # `f(x for x in y)`: `ast` spans the call's parentheses
            line, col = self.end(n.func)
            col += self.lines[line - 1].encode("utf-8")[col:].index(b"(")
            positional[0].lineno, positional[0].col_offset = line, col
            positional[0].end_lineno, positional[0].end_col_offset = self.end(n)
        return ast.Call(self.expr(n.func), positional, keywords)

    def _BinaryOperation(self, n: cst.BinaryOperation, ctx: ast.expr_context) -> ast.expr:
        return ast.BinOp(self.expr(n.left), _BINOPS[type(n.operator)](), self.expr(n.right))

    def _UnaryOperation(self, n: cst.UnaryOperation, ctx: ast.expr_context) -> ast.expr:
        return ast.UnaryOp(_UNARY[type(n.operator)](), self.expr(n.expression))

    def _BooleanOperation(self, n: cst.BooleanOperation, ctx: ast.expr_context) -> ast.expr:
        op = ast.And if isinstance(n.operator, cst.And) else ast.Or
        left = self.expr(n.left)
        same = (isinstance(n.left, cst.BooleanOperation) and not n.left.lpar
                and isinstance(n.left.operator, type(n.operator)))
        values = [*left.values] if same else [left]
        return ast.BoolOp(op(), [*values, self.expr(n.right)])

    def _Comparison(self, n: cst.Comparison, ctx: ast.expr_context) -> ast.expr:
        return ast.Compare(self.expr(n.left), [_CMP[type(c.operator)]() for c in n.comparisons],
                           [self.expr(c.comparator) for c in n.comparisons])

    def _IfExp(self, n: cst.IfExp, ctx: ast.expr_context) -> ast.expr:
        return ast.IfExp(self.expr(n.test), self.expr(n.body), self.expr(n.orelse))

    def _Lambda(self, n: cst.Lambda, ctx: ast.expr_context) -> ast.expr:
        return ast.Lambda(self.params(n.params), self.expr(n.body))

    def elements(self, elements: Sequence[cst.BaseElement], ctx: ast.expr_context) -> list[Any]:
        return [self.at(e, ast.Starred(self.expr(e.value, ctx), ctx))
                if isinstance(e, cst.StarredElement) else self.expr(e.value, ctx)
                for e in elements]

    def _Tuple(self, n: cst.Tuple, ctx: ast.expr_context) -> ast.expr:
        node = ast.Tuple(self.elements(n.elements, ctx), ctx)
        # `ast` places a parenthesized tuple at its (innermost) parentheses: `expr` would not.
        return self.at(n.lpar[-1], node, n.rpar[0]) if n.lpar else node

    def _List(self, n: cst.List, ctx: ast.expr_context) -> ast.expr:
        return ast.List(self.elements(n.elements, ctx), ctx)

    def _Set(self, n: cst.Set, ctx: ast.expr_context) -> ast.expr:
        return ast.Set(self.elements(n.elements, ctx))

    def _StarredElement(self, n: cst.StarredElement, ctx: ast.expr_context) -> ast.expr:
        return ast.Starred(self.expr(n.value, ctx), ctx)

    def _Dict(self, n: cst.Dict, ctx: ast.expr_context) -> ast.expr:
        keys = [self.expr(e.key) if isinstance(e, cst.DictElement) else None for e in n.elements]
        return ast.Dict(keys, [self.expr(e.value) for e in n.elements])

    def comprehension(self, f: cst.CompFor | None) -> list[ast.comprehension]:
        out = []
        while f is not None:
            out.append(ast.comprehension(self.expr(f.target, STORE), self.expr(f.iter),
                                         [self.expr(i.test) for i in f.ifs],
                                         int(f.asynchronous is not None)))
            f = f.inner_for_in
        return out

    def _ListComp(self, n: cst.ListComp, ctx: ast.expr_context) -> ast.expr:
        return ast.ListComp(self.expr(n.elt), self.comprehension(n.for_in))

    def _SetComp(self, n: cst.SetComp, ctx: ast.expr_context) -> ast.expr:
        return ast.SetComp(self.expr(n.elt), self.comprehension(n.for_in))

    def _GeneratorExp(self, n: cst.GeneratorExp, ctx: ast.expr_context) -> ast.expr:
        node = ast.GeneratorExp(self.expr(n.elt), self.comprehension(n.for_in))
        return self.at(n.lpar[-1], node, n.rpar[0]) if n.lpar else node

    def _DictComp(self, n: cst.DictComp, ctx: ast.expr_context) -> ast.expr:
        return ast.DictComp(self.expr(n.key), self.expr(n.value), self.comprehension(n.for_in))

    def _StarredDictComp(self, n: Any, ctx: ast.expr_context) -> ast.expr:
        # PEP 798 `{**d for d in ds}`: a comprehension reading the same names.
        elt = self.at(n.element, ast.Starred(self.expr(n.element.value), LOAD))
        return ast.ListComp(elt, self.comprehension(n.for_in))

    def _Await(self, n: cst.Await, ctx: ast.expr_context) -> ast.expr:
        return ast.Await(self.expr(n.expression))

    def _Yield(self, n: cst.Yield, ctx: ast.expr_context) -> ast.expr:
        if isinstance(n.value, cst.From):
            return ast.YieldFrom(self.expr(n.value.item))
        return ast.Yield(self.opt(n.value))

    def _NamedExpr(self, n: cst.NamedExpr, ctx: ast.expr_context) -> ast.expr:
        return ast.NamedExpr(self.expr(n.target, STORE), self.expr(n.value))

    def _Ellipsis(self, n: cst.Ellipsis, ctx: ast.expr_context) -> ast.expr:
        return ast.Constant(...)

    def _number(self, n: cst.Integer | cst.Float | cst.Imaginary, ctx: ast.expr_context) -> ast.expr:
        return ast.Constant(n.evaluated_value)

    _Integer = _Float = _Imaginary = _number

    def _SimpleString(self, n: cst.SimpleString, ctx: ast.expr_context) -> ast.expr:
        return ast.Constant(n.evaluated_value)

    def _ConcatenatedString(self, n: cst.ConcatenatedString, ctx: ast.expr_context) -> ast.expr:
        parts = [self.expr(p) for p in _strings(n)]
        if all(isinstance(p, ast.Constant) for p in parts):
            return ast.Constant(type(parts[0].value)().join(p.value for p in parts))
        values: list[ast.expr] = []
        for p in parts:
            for v in p.values if isinstance(p, ast.JoinedStr) else [p]:
                _append(values, v)
        return ast.JoinedStr(values)

    def _FormattedString(self, n: Any, ctx: ast.expr_context) -> ast.expr:
        values: list[ast.expr] = []
        for part in n.parts:
            if isinstance(part, (cst.FormattedStringText, cst.TemplatedStringText)):
                text = _text(part.value.replace("{{", "{").replace("}}", "}"), n.start, n.end)
                _append(values, self.at(part, ast.Constant(text)))
                continue
            spec = part.format_spec
            fmt = (self.at(spec[0], self._FormattedString(_Parts(spec, n), ctx), spec[-1])
                   if spec else None)
            conversion = ord(part.conversion) if part.conversion else -1
            if part.equal is not None:  # `{x=}`: the text `x=` first, then repr unless a spec
                _append(values, self._debug_text(part))
                conversion = ord("r") if conversion < 0 and spec is None else conversion
            value = ast.FormattedValue(self.expr(part.expression), conversion, fmt)
            values.append(self.at(part, value))
        return ast.JoinedStr(values)

    def _debug_text(self, part: Any) -> ast.Constant:
        code = cst.Module([]).code_for_node
        text = (part.whitespace_before_expression.value + code(part.expression)
                + part.whitespace_after_expression.value + code(part.equal))
        node = self.at(part.expression, ast.Constant(text), part.equal)
        node.col_offset -= len(part.whitespace_before_expression.value.encode("utf-8"))
        if "\n" not in text:
            node.end_col_offset = node.col_offset + len(text.encode("utf-8"))
        return node

    _TemplatedString = _FormattedString  # PEP 750: an f-string reads the same names

    # patterns -------------------------------------------------------------------------
    def pattern(self, node: cst.CSTNode) -> Any:
        lowered = getattr(self, f"_p{type(node).__name__}")(node)
        return lowered if hasattr(lowered, "lineno") else self.at(node, lowered)

    def _pMatchValue(self, n: cst.MatchValue) -> ast.pattern:
        return ast.MatchValue(self.expr(n.value))

    def _pMatchSingleton(self, n: cst.MatchSingleton) -> ast.pattern:
        return ast.MatchSingleton(_CONSTANTS[n.value.value])

    def _sequence(self, elements: Sequence[Any]) -> list[ast.pattern]:
        return [self.pattern(e) if isinstance(e, cst.MatchStar) else self.pattern(e.value)
                for e in elements]

    def _pMatchList(self, n: cst.MatchList) -> ast.pattern:
        node = ast.MatchSequence(self._sequence(n.patterns))
        return self.at(n.lbracket, node, n.rbracket) if n.lbracket and n.rbracket else node

    def _pMatchTuple(self, n: cst.MatchTuple) -> ast.pattern:
        node = ast.MatchSequence(self._sequence(n.patterns))
        return self.at(n.lpar[-1], node, n.rpar[0]) if n.lpar else node

    def _pMatchStar(self, n: cst.MatchStar) -> ast.pattern:
        node = ast.MatchStar(n.name.value if n.name else None)
        return self.at(n, node, n.name) if n.name else node

    def _pMatchMapping(self, n: cst.MatchMapping) -> ast.pattern:
        return ast.MatchMapping([self.expr(e.key) for e in n.elements],
                                [self.pattern(e.pattern) for e in n.elements],
                                n.rest.value if n.rest else None)

    def _pMatchClass(self, n: cst.MatchClass) -> ast.pattern:
        return ast.MatchClass(self.expr(n.cls), self._sequence(n.patterns),
                              [k.key.value for k in n.kwds],
                              [self.pattern(k.pattern) for k in n.kwds])

    def _pMatchAs(self, n: cst.MatchAs) -> ast.pattern:
        return ast.MatchAs(self.pattern(n.pattern) if n.pattern else None,
                           n.name.value if n.name else None)

    def _pMatchOr(self, n: cst.MatchOr) -> ast.pattern:
        return ast.MatchOr([self.pattern(p.pattern) for p in n.patterns])


def _append(values: list[ast.expr], v: ast.expr) -> None:
    """Add `v` to an f-string's values, merging adjacent text as `ast` does."""
    last = values[-1] if values else None
    if isinstance(v, ast.Constant) and isinstance(last, ast.Constant):
        merged = ast.Constant(str(last.value) + str(v.value))  # f-string text: str only
        merged.lineno, merged.col_offset = last.lineno, last.col_offset
        merged.end_lineno, merged.end_col_offset = v.end_lineno, v.end_col_offset
        values[-1] = merged
    elif not (isinstance(v, ast.Constant) and v.value == ""):
        values.append(v)


class _Parts:
    """A format spec's parts, shaped like the f-string that holds them."""

    def __init__(self, parts: Sequence[Any], outer: Any):
        self.parts, self.start, self.end = parts, outer.start, outer.end


def _text(raw: str, start: str, end: str) -> str:
    """The value of the text `raw` of an f-string opened by `start` (`rf"`) and closed by `end`."""
    prefix = start[: len(start) - len(end)].lower().replace("f", "").replace("t", "")
    if "r" in prefix or "\\" not in raw:
        return raw
    try:
        value = ast.literal_eval(f"{prefix}{end}{raw}{end}")
    except (SyntaxError, ValueError):
        return raw
    return value if isinstance(value, str) else raw


def _strings(n: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The pieces of an implicitly concatenated string, left to right."""
    if isinstance(n, cst.ConcatenatedString):
        return [*_strings(n.left), *_strings(n.right)]
    return [n]
