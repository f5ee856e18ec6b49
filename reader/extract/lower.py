"""Lowering a libcst tree to the running interpreter's `ast`, lines and columns kept.

The scanners (symbols, names, signatures) read `ast`; a file whose syntax the interpreter's own
parser refuses is parsed by libcst and lowered here, so one scanner serves both routes and gives
the same summary (tests/test_parse.py compares them on real pinned files). Syntax this `ast`
has no node for becomes the nearest node that reads and binds the same names: a t-string
(PEP 750) an f-string, a lazy import (PEP 810) an import. This module lowers the statements;
`lower_expr` the expressions, arguments, strings and patterns.

At the current pins `ast` on Python 3.12 parses all 740 pinned files, so this route does not run
on the corpus. It is kept because the pins are not reader's to choose: a pin move to a jax or
tokamax written for a newer Python (t-strings, `except A, B:`) must still be scanned, indexed and
built on the oldest Python reader supports, not fail (tests/test_new_syntax.py builds such a
project end to end; tests/test_parse.py checks both routes agree on every pinned file).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from reader.extract.lower_expr import DEL, STORE, ExpressionLowering

_LINES = re.compile(r"\r\n|\r|\n")
_AUGOPS: dict[type, type[ast.operator]] = {
    cst.AddAssign: ast.Add, cst.SubtractAssign: ast.Sub, cst.MultiplyAssign: ast.Mult,
    cst.DivideAssign: ast.Div, cst.FloorDivideAssign: ast.FloorDiv, cst.ModuloAssign: ast.Mod,
    cst.PowerAssign: ast.Pow, cst.MatrixMultiplyAssign: ast.MatMult,
    cst.LeftShiftAssign: ast.LShift, cst.RightShiftAssign: ast.RShift,
    cst.BitOrAssign: ast.BitOr, cst.BitAndAssign: ast.BitAnd, cst.BitXorAssign: ast.BitXor,
}


def lower(module: cst.Module, text: str) -> ast.Module:
    """`module` (parsed from `text`) as an `ast.Module` with `ast`'s positions: 1-based lines,
    0-based columns in UTF-8 bytes."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lowering = _Lower(positions, _LINES.split(text))
    return ast.Module(body=lowering.body(module.body), type_ignores=[])


class _Lower(ExpressionLowering):
    """The statements: one method per libcst statement type (`_<TypeName>`)."""

    def body(self, statements: Sequence[cst.CSTNode]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in statements:
            if isinstance(s, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                out += [self.stmt(small) for small in s.body]
            else:
                out.append(self.stmt(s))
        return out

    def block(self, block: cst.BaseSuite | cst.Else | cst.Finally | None) -> list[ast.stmt]:
        if block is None:
            return []
        if isinstance(block, (cst.Else, cst.Finally)):
            return self.block(block.body)
        return self.body(block.body)

    def stmt(self, node: cst.CSTNode) -> ast.stmt:
        return self.at(node, getattr(self, f"_{type(node).__name__}")(node))

    def _Expr(self, n: cst.Expr) -> ast.stmt:
        return ast.Expr(self.expr(n.value))

    def _Assign(self, n: cst.Assign) -> ast.stmt:
        return ast.Assign([self.expr(t.target, STORE) for t in n.targets], self.expr(n.value))

    def _AnnAssign(self, n: cst.AnnAssign) -> ast.stmt:
        simple = int(isinstance(n.target, cst.Name) and not n.target.lpar)
        return ast.AnnAssign(self.expr(n.target, STORE), self.expr(n.annotation.annotation),
                             self.opt(n.value), simple)

    def _AugAssign(self, n: cst.AugAssign) -> ast.stmt:
        return ast.AugAssign(self.expr(n.target, STORE), _AUGOPS[type(n.operator)](),
                             self.expr(n.value))

    def _Return(self, n: cst.Return) -> ast.stmt:
        return ast.Return(self.opt(n.value))

    def _Raise(self, n: cst.Raise) -> ast.stmt:
        return ast.Raise(self.opt(n.exc), self.opt(n.cause.item if n.cause else None))

    def _Assert(self, n: cst.Assert) -> ast.stmt:
        return ast.Assert(self.expr(n.test), self.opt(n.msg))

    def _Del(self, n: cst.Del) -> ast.stmt:
        t = n.target
        parts = t.elements if isinstance(t, cst.Tuple) and not t.lpar else [t]
        return ast.Delete([self.expr(p.value if isinstance(p, cst.BaseElement) else p, DEL)
                           for p in parts])

    def _Pass(self, n: cst.Pass) -> ast.stmt:
        return ast.Pass()

    def _Break(self, n: cst.Break) -> ast.stmt:
        return ast.Break()

    def _Continue(self, n: cst.Continue) -> ast.stmt:
        return ast.Continue()

    def _Global(self, n: cst.Global) -> ast.stmt:
        return ast.Global([i.name.value for i in n.names])

    def _Nonlocal(self, n: cst.Nonlocal) -> ast.stmt:
        return ast.Nonlocal([i.name.value for i in n.names])

    def _alias(self, a: cst.ImportAlias) -> ast.alias:
        asname = a.asname.name.value if a.asname and isinstance(a.asname.name, cst.Name) else None
        return self.at(a, ast.alias(_dotted(a.name), asname))

    def _Import(self, n: cst.Import) -> ast.stmt:
        return ast.Import([self._alias(a) for a in n.names])

    def _ImportFrom(self, n: cst.ImportFrom) -> ast.stmt:
        names = ([ast.alias("*")] if isinstance(n.names, cst.ImportStar)
                 else [self._alias(a) for a in n.names])
        module = _dotted(n.module) if n.module else None
        return ast.ImportFrom(module, names, len(n.relative))

    def _LazyImport(self, n: Any) -> ast.stmt:  # PEP 810 `lazy import m`: binds like an import
        return self._Import(n)

    def _LazyImportFrom(self, n: Any) -> ast.stmt:
        return self._ImportFrom(n)

    def _TypeAlias(self, n: cst.TypeAlias) -> ast.stmt:
        return ast.TypeAlias(self.expr(n.name, STORE), self.type_params(n.type_parameters),
                             self.expr(n.value))

    def _FunctionDef(self, n: cst.FunctionDef) -> ast.stmt:
        kind = ast.AsyncFunctionDef if n.asynchronous else ast.FunctionDef
        return kind(name=n.name.value, args=self.params(n.params), body=self.block(n.body),
                    decorator_list=[self.expr(d.decorator) for d in n.decorators],
                    returns=self.opt(n.returns.annotation if n.returns else None),
                    type_comment=None, type_params=self.type_params(n.type_parameters))

    def _ClassDef(self, n: cst.ClassDef) -> ast.stmt:
        bases, keywords = self.args([*n.bases, *n.keywords])
        return ast.ClassDef(name=n.name.value, bases=bases, keywords=keywords,
                            body=self.block(n.body),
                            decorator_list=[self.expr(d.decorator) for d in n.decorators],
                            type_params=self.type_params(n.type_parameters))

    def _If(self, n: cst.If) -> ast.stmt:
        orelse = [self.stmt(n.orelse)] if isinstance(n.orelse, cst.If) else self.block(n.orelse)
        return ast.If(self.expr(n.test), self.block(n.body), orelse)

    def _For(self, n: cst.For) -> ast.stmt:
        kind = ast.AsyncFor if n.asynchronous else ast.For
        return kind(target=self.expr(n.target, STORE), iter=self.expr(n.iter),
                    body=self.block(n.body), orelse=self.block(n.orelse), type_comment=None)

    def _While(self, n: cst.While) -> ast.stmt:
        return ast.While(self.expr(n.test), self.block(n.body), self.block(n.orelse))

    def _With(self, n: cst.With) -> ast.stmt:
        kind = ast.AsyncWith if n.asynchronous else ast.With
        items = [ast.withitem(self.expr(i.item),
                              self.expr(i.asname.name, STORE) if i.asname else None)
                 for i in n.items]
        return kind(items=items, body=self.block(n.body), type_comment=None)

    def _Try(self, n: cst.Try | cst.TryStar) -> ast.stmt:
        kind = ast.TryStar if isinstance(n, cst.TryStar) else ast.Try
        handlers = [self.at(h, ast.ExceptHandler(
            self.opt(h.type), _name_of(h.name.name) if h.name else None, self.block(h.body)))
            for h in n.handlers]
        return kind(body=self.block(n.body), handlers=handlers, orelse=self.block(n.orelse),
                    finalbody=self.block(n.finalbody))

    _TryStar = _Try

    def _Match(self, n: cst.Match) -> ast.stmt:
        cases = [ast.match_case(self.pattern(c.pattern), self.opt(c.guard), self.block(c.body))
                 for c in n.cases]
        return ast.Match(self.expr(n.subject), cases)

def _dotted(n: cst.BaseExpression) -> str:
    if isinstance(n, cst.Name):
        return n.value
    if isinstance(n, cst.Attribute):
        return f"{_dotted(n.value)}.{n.attr.value}"
    raise TypeError(f"not a dotted name: {type(n).__name__}")


def _name_of(n: cst.BaseExpression) -> str | None:
    return n.value if isinstance(n, cst.Name) else None
