"""A pinned file as the libcst extractors read it: its tree, the lines of its nodes, its code as
written, and the few readings of nodes they share (statements, dotted names, arguments).

libcst's `PositionProvider` records a full `CodeRange` for every node and costs ten times the
code generation it rides on (the eight files structures.py reads: 3.4 s against 0.3 s);
`Lines` rides the same code generation (libcst's own `CodegenState`, which its position
providers extend) and keeps two integers for each node libcst positions: statements,
expressions, parameters, arguments.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, NamedTuple, TypeGuard, TypeVar

import libcst as cst
from libcst._nodes.internal import CodegenState

from reader.errors import Location
from reader.extract.fact import ExtractError
from reader.extract.index import Index
from reader.extract.parse import fast_ast, located, no_gc, parse_module
from reader.model import QualName


@dataclass(frozen=True)
class Tree:
    """One parsed file: its libcst module, the lines of its nodes, its path in the pin."""

    path: str
    module: cst.Module
    lines: Lines
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What a reader of the tree computed once for all its lookups (`evaluate.assignment_at`'s table)."""

    @classmethod
    def parse(cls, text: str | Kept, path: str, name: str = "", bodies: bool = True) -> Tree:
        """`name` is what a ParseError calls the file (`located(pin, path)`); `path` by default.
        Without `bodies`, the tree of `skeleton(text)`: for a reader of module-level code. A
        `Kept` (some lines of the file) is parsed alone, its nodes' lines those of the file."""
        kept = text if isinstance(text, Kept) else Kept(text) if bodies else skeleton_kept(text)
        module = parse_module(kept.text, name or path)
        return cls(path, module, Lines(module, kept.numbers))

    def numbered(self, numbers: Sequence[int] | None) -> Tree:
        """The tree of the same lines kept at other places of the file (`Kept.numbers`): the
        same module, its nodes' lines numbered `numbers`."""
        if numbers == self.lines.numbers:
            return self
        return Tree(self.path, self.module, self.lines.numbered(numbers))

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

    def referring(self, target: QualName) -> set[str]:
        """The modules with a reference to `target` (a definition). The references (every chain of a module
        resolved) are computed only for the modules whose text holds a name `target` can be read
        through (`Resolver.names_for`): no other module can refer to it."""
        names = self.index.names_for(target[1].rpartition(".")[2])
        return {m for m, (pin, path) in self.index.files.items()
                if any(n in self._read(m) for n in names)
                and any(r.target == target for r in self.index.references(pin, path))}


class Kept(NamedTuple):
    """Some of a file's lines, to be parsed on their own: their text, and each line's number in
    the file (None: every line, in place). libcst makes a node of each blank line and spends as
    long on the blank lines of a mostly blanked file as on its code."""

    text: str
    numbers: tuple[int, ...] | None = None


def skeleton(text: str) -> str:
    """`text` with the body of every function and class it defines at module level (or inside
    a module-level `if`, `for`, `while`, `with` or `try`) replaced by `pass` and blank lines:
    every other line, each line's number, and every def's header and decorators as they were.
    libcst parses the bodies of the lowering modules for most of its time; the evaluator never
    enters them. The text itself when `ast` cannot read it, or a line ends in a lone `\r`."""
    lines, _ = _skeleton(text)
    return "\n".join(lines) if lines is not None else text


def skeleton_kept(text: str) -> Kept:
    """`skeleton(text)` without the lines it blanked: the same tree, its lines numbered as the file's."""
    lines, blanked = _skeleton(text)
    return _kept(lines, blanked, 0) if lines is not None else Kept(text)


def _kept(lines: list[str], keep: bytearray, which: int) -> Kept:
    """The lines whose `keep` byte is `which`, with their numbers."""
    numbers = tuple(n for n, k in enumerate(keep, 1) if k == which)
    return Kept("\n".join([lines[n - 1] for n in numbers]), numbers)


def _skeleton(text: str) -> tuple[list[str] | None, bytearray]:
    """`skeleton`'s lines (None: the text is its own skeleton) and which of them it blanked (1)."""
    tree = fast_ast(text)
    if tree is None or "\r" in text.replace("\r\n", ""):
        return None, bytearray()
    lines = text.split("\n")
    blanked = bytearray(len(lines))
    for node in _definitions(tree.body):
        first, end = node.body[0], node.end_lineno or node.body[-1].lineno
        start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))])
        indent = lines[start - 1][:first.col_offset]
        if indent.strip():
            continue  # the body starts on the header's line: `def f(): return 1`
        tail = "\r" if lines[start - 1].endswith("\r") else ""
        lines[start - 1] = f"{indent}pass{tail}"
        for i in range(start, end):
            lines[i] = "\r" if lines[i].endswith("\r") else ""
        blanked[start:end] = b"\1" * (end - start)
    return lines, blanked


def assignments(text: str, spans: Iterable[tuple[int, int]]) -> Kept | None:
    """The lines of `spans` (first and last line of each module-level assignment, as the index's
    variable symbols give them) and their numbers: a tree for looking up what module-level
    variables hold, at a fraction of `skeleton`'s parse. None when a span starts indented (an
    assignment inside an `if` or a `try`, whose header would be lost) or a line ends in a lone
    `\r`: the caller reads `skeleton(text)` then."""
    if "\r" in text.replace("\r\n", ""):
        return None
    lines = text.split("\n")
    keep = bytearray(len(lines))
    for start, end in spans:
        if lines[start - 1][:1] in (" ", "\t", "\f"):
            return None
        keep[start - 1:end] = b"\1" * (end - start + 1)
    return _kept(lines, keep, 1)


def _definitions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef
                                                   | ast.ClassDef]:
    """The defs and classes the module's top-level code runs (their bodies not entered)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            yield from _definitions(node.body)
            yield from _definitions(getattr(node, "orelse", []))
        elif isinstance(node, (ast.Try, ast.TryStar)):
            for part in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                yield from _definitions(part)


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

    def __init__(self, module: cst.Module, numbers: Sequence[int] | None = None):
        """`numbers`: each line's number in the file, when the module holds some of its lines (`Kept`)."""
        state = self._count(module, _Counter)
        self._spans = state.spans
        self._numbers = numbers

    @staticmethod
    def _count(module: cst.Module, kind: type[_C]) -> _C:
        state = kind(default_indent=module.default_indent, default_newline=module.default_newline)
        with no_gc():  # a dict entry per node, no cycles: the collector would only rescan them
            module._codegen(state)
        return state

    @property
    def numbers(self) -> Sequence[int] | None:
        return self._numbers

    def numbered(self, numbers: Sequence[int] | None) -> Lines:
        """These lines, numbered `numbers` (the nodes' spans shared)."""
        other = copy.copy(self)
        other._numbers = numbers
        return other

    def line(self, node: cst.CSTNode) -> int:
        return self._number(self._spans[node][0])

    def end(self, node: cst.CSTNode) -> int:
        return self._number(self._spans[node][1])

    def _number(self, line: int) -> int:
        numbers = self._numbers
        return line if numbers is None else numbers[line - 1]


class Position(NamedTuple):
    """Where a node starts: its line (1-based) and column (0-based, in characters)."""

    line: int
    column: int


class Positions(Lines):
    """`Lines`, and where each node starts: (line, column), the column 0-based in characters,
    as the index's references count them (libcst's `PositionProvider` gives the same for the
    cost of a `CodeRange` per node)."""

    def __init__(self, module: cst.Module):
        state = self._count(module, _Columns)
        self._spans, self._starts, self._numbers = state.spans, state.starts, None

    def start(self, node: cst.CSTNode) -> Position:
        return Position(*self._starts[node])


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


_C = TypeVar("_C", bound=_Counter)


@dataclass
class _Columns(_Counter):
    """`_Counter` that also keeps the column: indentation counts, as libcst writes it."""

    column: int = 0
    starts: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)

    def add_indent_tokens(self) -> None:
        self.column += sum(len(t) for t in self.indent_tokens)

    def add_token(self, value: str) -> None:
        super().add_token(value)
        cut = max(value.rfind("\n"), value.rfind("\r"))
        self.column = len(value) - cut - 1 if cut >= 0 else self.column + len(value)

    def record_syntactic_position(  # type: ignore[override]
            self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None,
            end_node: cst.CSTNode | None = None) -> _Span:
        return _ColumnSpan(self, node, start_node)


class _ColumnSpan(_Span):
    __slots__ = ("column",)

    def __enter__(self) -> None:
        super().__enter__()
        self.column = self.state.column  # type: ignore[attr-defined]

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        super().__exit__(kind, error, tb)
        starts = self.state.starts  # type: ignore[attr-defined]
        starts[self.node] = starts.get(self.start_node) or (self.start, self.column)
