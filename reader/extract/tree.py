"""A pinned file as the libcst extractors read it: its tree, the lines of its nodes, its code as
written, and the few readings of nodes they share (statements, dotted names, arguments).

libcst's `PositionProvider` records a full `CodeRange` for every node and costs ten times the
code generation it rides on (the eight files structures.py reads: 3.4 s against 0.3 s);
`Lines` rides the same code generation (libcst's own `CodegenState`, which its position
providers extend) and keeps two integers for each node libcst positions: statements,
expressions, parameters, arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TypeGuard

import libcst as cst
from libcst._nodes.internal import CodegenState

from reader.errors import Location
from reader.extract.fact import ExtractError
from reader.extract.index import Index
from reader.extract.parse import located, parse_module


@dataclass(frozen=True)
class Tree:
    """One parsed file: its libcst module, the lines of its nodes, its path in the pin."""

    path: str
    module: cst.Module
    lines: Lines

    @classmethod
    def parse(cls, text: str, path: str, name: str = "") -> Tree:
        """`name` is what a ParseError calls the file (`located(pin, path)`); `path` by default."""
        module = parse_module(text, name or path)
        return cls(path, module, Lines(module))

    def text(self, node: cst.CSTNode) -> str:
        """The node's code as written (its parentheses, quotes, line breaks and comments)."""
        return self.module.code_for_node(node)

    def line(self, node: cst.CSTNode) -> int:
        return self.lines.line(node)

    def at(self, node: cst.CSTNode | None = None) -> Location:
        return Location(self.path, self.line(node) if node is not None else None)

    def fail(self, what: str, node: cst.CSTNode | None = None, hint: str = "") -> ExtractError:
        """The error for pinned code of a shape the extractor does not read, located there."""
        return ExtractError(what, self.at(node), hint or "the pinned code changed shape; teach "
                            "the extractor (reader/extract/) its new shape")


class Sources:
    """The pinned modules as trees, each parsed once (`read`: module -> text)."""

    def __init__(self, index: Index, read: Callable[[str], str]):
        self.index = index
        self._read = read
        self._trees: dict[str, Tree] = {}

    def tree(self, module: str) -> Tree:
        if module not in self._trees:
            pin, path = self.index.files[module]
            self._trees[module] = Tree.parse(self._read(module), path, located(pin, path))
        return self._trees[module]


# reading nodes ---------------------------------------------------------------------------------
def statements(body: Sequence[cst.BaseStatement] | cst.BaseSuite) -> list[cst.CSTNode]:
    """A block's statements as `ast` lists them: `a = 1; b = 2` on one line gives two."""
    out: list[cst.CSTNode] = []
    for stmt in body.body if isinstance(body, cst.BaseSuite) else body:
        out += stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt]
    return out


def is_def(node: cst.CSTNode) -> TypeGuard[cst.FunctionDef]:
    """A `def` (not an `async def`)."""
    return isinstance(node, cst.FunctionDef) and node.asynchronous is None


def dotted(e: cst.CSTNode) -> str:
    """`a.b.c` for a name or an attribute chain, else ""."""
    if isinstance(e, cst.Name):
        return e.value
    if isinstance(e, cst.Attribute):
        head = dotted(e.value)
        return f"{head}.{e.attr.value}" if head else ""
    return ""


def last(name: str) -> str:
    """The last component of a dotted name."""
    return name.rsplit(".", 1)[-1]


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword and a.keyword.value == name), None)


def string(tree: Tree, e: cst.BaseExpression) -> str:
    """The value of a string literal; an ExtractError for anything else."""
    value = e.evaluated_value if isinstance(e, (cst.SimpleString, cst.ConcatenatedString)) else None
    if not isinstance(value, str):
        raise tree.fail(f"expected a string literal, found `{tree.text(e)}`", e)
    return value


# lines -----------------------------------------------------------------------------------------
_SIMPLE = (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.BaseSmallStatement)


class Lines:
    """Start and end lines (1-based) of the nodes of one module. A statement starts at its
    keyword (`def`, `class`: after any decorators) and ends on its last line of code, not on
    the comments or blank lines after it: `ast`'s `lineno` and `end_lineno`."""

    def __init__(self, module: cst.Module):
        state = _Counter(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        module._codegen(state)
        self._spans = state.spans

    def line(self, node: cst.CSTNode) -> int:
        return self._spans[node][0]

    def end(self, node: cst.CSTNode) -> int:
        return self._spans[node][1]


@dataclass
class _Counter(CodegenState):
    """Code generation that counts lines instead of keeping the text."""

    line: int = 1
    last_code: int = 1
    """The last line of the simple statement written last: where a compound statement ends."""
    spans: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)

    def add_indent_tokens(self) -> None:
        pass

    def add_token(self, value: str) -> None:
        n = value.count("\n")
        if "\r" in value:
            n += value.count("\r") - value.count("\r\n")
        self.line += n

    def pop_trailing_newline(self) -> None:
        pass

    def record_syntactic_position(  # type: ignore[override]  # a plain context: cheaper
            self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
            end_node: cst.CSTNode | None = None) -> _Span:
        return _Span(self, node, start_node)


class _Span:
    """The context libcst writes one positioned node in."""

    __slots__ = ("state", "node", "start_node", "start")

    def __init__(self, state: _Counter, node: cst.CSTNode, start_node: cst.CSTNode | None):
        self.state, self.node, self.start_node, self.start = state, node, start_node, 0

    def __enter__(self) -> None:
        self.start = self.state.line

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        state, node = self.state, self.node
        start = state.spans[self.start_node][0] if self.start_node in state.spans else self.start
        if isinstance(node, cst.BaseCompoundStatement):
            end = state.last_code
        else:
            end = state.line
            if isinstance(node, _SIMPLE):
                state.last_code = end
        state.spans[node] = (start, end)
