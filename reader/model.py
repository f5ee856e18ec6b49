"""The source model shared by every stage: spans, symbols and references in pinned files."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True, order=True)
class Span:
    """Lines `start`..`end` of a file, 1-based and inclusive."""

    start: int
    end: int

    def __contains__(self, line: object) -> bool:
        return isinstance(line, int) and self.start <= line <= self.end

    def __len__(self) -> int:
        return self.end - self.start + 1


@dataclass(frozen=True)
class Symbol:
    """A definition in a file: a class, function, method or module-level name."""

    qualname: str
    """Dotted path within the module: `BlockSpec`, `BlockSpec.to_block_mapping`."""
    kind: str
    """One of `class`, `function`, `method`, `variable`."""
    span: Span
    """From the first decorator (or the `def`/`class`/assignment line) to the last line."""
    line: int
    """The line of the `def`, `class` or assignment target itself."""

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Head:
    """What the pages show of a definition besides its symbol: where its header (decorators,
    signature) ends, where its body resumes after the docstring and the docstring's first line
    (its hover card); its short signature and whether the outline lists it."""

    end: int
    """The last line of the header: the line before the body's first statement (the `def`
    line itself for a one-line body); for an assignment, its last line."""
    body: int = 0
    """The line of the body's first statement after the docstring; 0 when there is none."""
    doc: str = ""
    """The docstring's first line (an assignment's: the string literal right after it)."""
    signature: str = ""
    """`(ctx, x, *, axis)` for a function, `(Base)` for a class, `= value` for a name."""
    listed: bool = True
    """Whether the outline lists it: not a dunder, a class attribute or an alias (`map = safe_map`)."""


class QualName(NamedTuple):
    """A definition's dotted module and its qualified name inside it ('' for the module itself)."""

    module: str
    qualname: str


@dataclass(frozen=True)
class Reference:
    """One identifier occurrence that resolves to a definition in the corpus."""

    line: int
    col: int
    """0-based column of the identifier's first character (in characters of the line)."""
    length: int
    target_module: str
    """Dotted module of the definition, e.g. `jax._src.pallas.core`."""
    target_qualname: str
    """Qualified name inside that module; empty for a reference to the module itself."""

    @property
    def target(self) -> QualName:
        return QualName(self.target_module, self.target_qualname)


@dataclass(frozen=True)
class SourceFile:
    """One pinned file: where it comes from and its text."""

    pin: str
    path: str
    blob: str
    text: str

    @property
    def module(self) -> str:
        return module_of(self.path)

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


def module_of(path: str) -> str:
    """`jax/_src/pallas/core.py` -> `jax._src.pallas.core`; a package's `__init__.py` -> the package."""
    mod = path.removesuffix(".py").replace("/", ".")
    return mod.removesuffix(".__init__")


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer and `ast` number them: split on `\n`, `\r\n` and a lone `\r`
    only (unlike `str.splitlines`, which also splits on form feeds and other separators)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_count(text: str) -> int:
    """`len(split_lines(text))`, without making the lines."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)
