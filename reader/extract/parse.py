"""Parsing Python source: libcst is the parser of record, `ast` a fast path where it agrees.

Every extractor parses through this module, so a pinned file written in syntax newer than the
running interpreter (PEP 695 generics, PEP 701 f-strings, Python 3.14 t-strings and
`except A, B:`) is read by libcst instead of crashing, and a file no parser reads is one located
`ParseError` (`pin:path:line: ...`, exit 2), never a traceback.

    parse_module(text, path)   -> libcst.Module      (the parser of record)
    parse_ast(text, path)      -> ast.Module         (`ast.parse`, else libcst lowered to `ast`)
    fast_ast(text)             -> ast.Module | None  (`ast.parse` alone; None when it refuses)
    lowered_ast(text, path)    -> ast.Module         (the libcst route alone)
    located(pin, path)         -> "pin:path", the name a pinned file has in errors
    Parses()                   -> trees shared by readers in turn (the rule history's releases)
    children(node)             -> list[ast.AST]      (`ast.iter_child_nodes` less the leaves)
"""

from __future__ import annotations

import ast
import gc
import re
import warnings
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from reader.errors import Location, ReaderError

if TYPE_CHECKING:  # libcst loads on the first parse that needs it: `ast` reads most files
    import libcst

_AT = re.compile(r"error at (\d+):(\d+): ")


class ParseError(ReaderError):
    """A file that no parser reads, located at the line (1-based) and column (0-based, in
    characters) where parsing stopped."""

    exit_code = 2

    def __init__(self, message: str, location: Location | None, col: int = 0, hint: str = ""):
        super().__init__(message, location, hint or _HINT)
        self.col = col

    def __reduce__(self) -> tuple[type[ParseError], tuple[str, Location | None, int, str]]:
        # Raised in the index's worker processes: pickled with its fields, not just its text.
        return (type(self), (self.message, self.location, self.col, self.hint))

    @property
    def line(self) -> int:
        return (self.location.line if self.location else None) or 1

    def at(self, where: str) -> ParseError:
        """The same error naming the file `where` (a caller that knows `pin:path`)."""
        return ParseError(self.message, Location(where, self.line), self.col, self.hint)

    @property
    def reason(self) -> str:
        """The message without the location: what a note on the file reports as its reason."""
        return f"line {self.line}: {self.message}"


_HINT = "the file is not Python that libcst reads; pin a commit where it parses"


def located(pin: str, path: str) -> str:
    """How a pinned file is named in a ParseError: `pin:path`."""
    return f"{pin}:{path}"


class Parses:
    """Trees parsed by readers that run one after the other in a process and parse much of the
    same code (the rule history's releases: 15 of their 73 parses are of code the release
    before parsed, often the same lines at other places of a changed file), by what was parsed;
    each reader's `turn()` lets go of the trees the reader before it did not read, so that two
    readers' trees are held at most."""

    def __init__(self) -> None:
        self._now: dict[Hashable, Any] = {}
        self._before: dict[Hashable, Any] = {}

    def turn(self) -> None:
        """A new reader starts: the trees the last one read stay, the others go."""
        self._before, self._now = self._now, {}

    def get(self, key: Hashable, parse: Callable[[], Any]) -> Any:
        """The tree parsed for `key` (the path and the code parsed), parsed now
        (`parse`) when no reader of this one's turn or the last parsed it."""
        found = self._now.get(key)
        if found is None:
            found = self._now[key] = self._before[key] if key in self._before else parse()
        return found


def parse_module(text: str, path: str) -> libcst.Module:
    """The libcst tree of `text`; `path` names the file in the ParseError raised when libcst
    cannot read it (use `located(pin, path)` for a pinned file)."""
    import libcst

    try:
        with no_gc():
            return libcst.parse_module(text)
    except libcst.ParserSyntaxError as e:
        raise _error(e, text, path) from None
    except (ValueError, RecursionError, MemoryError) as e:
        raise ParseError(f"no parser can read this file: {e}", Location(path, 1)) from None


@contextmanager
def no_gc() -> Iterator[None]:
    """The cyclic collector paused: building a tree makes a million objects and no cycles, and
    each collection it would start rescans every tree alive (a quarter of a parse's time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def fast_ast(text: str) -> ast.Module | None:
    """`ast.parse(text)` by the running interpreter's grammar, or None when that grammar refuses
    it (newer syntax, or no Python at all: `parse_module` then says which)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `"\d"`: valid, if deprecated
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def parse_ast(text: str, path: str) -> ast.Module:
    """An `ast` tree of `text`: `ast.parse` when the running interpreter accepts it, else the
    libcst tree lowered to this interpreter's `ast` (see `reader.extract.lower`), with the same
    lines and columns; a ParseError (located by `path`) when libcst cannot read it either."""
    tree = fast_ast(text)
    if tree is not None:
        return tree
    return lowered_ast(text, path)


def lowered_ast(text: str, path: str) -> ast.Module:
    """The libcst route of `parse_ast` alone (tests compare it with the fast path)."""
    from reader.extract.lower import lower

    return lower(parse_module(text, path), text)


_LEAVES = frozenset({ast.Constant, *ast.operator.__subclasses__(), *ast.unaryop.__subclasses__(),
                     *ast.cmpop.__subclasses__(), *ast.boolop.__subclasses__()})
_SCALARS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "asname", "module", "level", "kind",
                      "conversion", "is_async", "simple", "tag", "type_comment", "rest", "kwd_attrs"})
"""Fields that hold no node, or only leaves (a context, an operator)."""
_FIELDS: dict[type, tuple[str, ...]] = {}


def children(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` as a list, in its order, less the leaves that hold no name
    (constants, operators, contexts): the scans' walks visit each node of a tree, and this costs
    them about a third of what the generator does."""
    cls = node.__class__
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(f for f in cls._fields if f not in _SCALARS)
    out: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if value.__class__ is list:
            out += [item for item in value if isinstance(item, ast.AST) and item.__class__ not in _LEAVES]
        elif isinstance(value, ast.AST) and value.__class__ not in _LEAVES:
            out.append(value)
    return out


def _error(e: libcst.ParserSyntaxError, text: str, path: str) -> ParseError:
    """libcst's error as a ParseError, clamped to the file's lines. libcst names the farthest
    place its parser reached (often past the fault); CPython's own parser names the fault itself,
    so its place and words are taken when they come no later than libcst's."""
    first = str(e.message).splitlines()[0] if e.message else "syntax error"
    m = _AT.search(first)
    line, col = (int(m[1]), int(m[2])) if m else (e.raw_line, e.raw_column)
    what = first[m.end():] if m else first.removeprefix("tokenizer error: ")
    python = _python_error(text)
    if python is not None and python.lineno and python.lineno <= line:
        line, col, what = python.lineno, max((python.offset or 1) - 1, 0), python.msg
    last = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    line = min(max(line, 1), last)
    return ParseError(f"no parser can read this file: {what}", Location(path, line), col)


def _python_error(text: str) -> SyntaxError | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            ast.parse(text)
    except SyntaxError as e:
        return e
    except (ValueError, RecursionError, MemoryError):
        return None
    return None
