"""The values of the static evaluator (evaluate.py): what a name or an expression holds.

Each is a frozen record that compares by content, so a dict literal's keys can be looked up and
a table's keys told apart; anything the evaluator cannot know is `Opaque`, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple


class Value:
    """Base of the evaluator's values."""


class Source:
    """An expression's source text as written, made when first read: most calls' texts never
    are (made for each call, they took a tenth of the rule tables' time). It compares, hashes and
    prints as the text."""

    __slots__ = ("_make", "_text")

    def __init__(self, make: Callable[[], str]):
        self._make: Callable[[], str] | None = make
        self._text = ""

    def __str__(self) -> str:
        if self._make is not None:
            self._text, self._make = self._make(), None
        return self._text

    def __repr__(self) -> str:
        return repr(str(self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Source) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


@dataclass(frozen=True)
class Obj(Value):
    """A definition of the corpus that is its own identity: a function, class, or a variable
    whose value is not one of the shapes below (e.g. `load_p = Primitive("load")`)."""

    module: str
    qualname: str
    kind: str


@dataclass(frozen=True)
class Ext(Value):
    """Something outside the corpus, by the dotted path it was reached through."""

    dotted: str


@dataclass(frozen=True)
class Mod(Value):
    module: str


@dataclass(frozen=True)
class Member(Value):
    """`Cls.NAME` of a class (an enum member when the class is an enum)."""

    cls: Obj
    name: str


@dataclass(frozen=True)
class Seq(Value):
    items: tuple[Value, ...]


class Entry(NamedTuple):
    """A key of a dict literal and its value."""

    key: Value
    value: Value


class Keyword(NamedTuple):
    """A keyword argument: its name and value."""

    name: str
    value: Value


@dataclass(frozen=True)
class Mapping(Value):
    items: tuple[Entry, ...]


@dataclass(frozen=True)
class Func(Value):
    """A function defined where it has no symbol (in a loop body)."""

    module: str
    name: str
    line: int
    start: int


@dataclass(frozen=True)
class Lambda(Value):
    module: str
    line: int


@dataclass(frozen=True)
class Partial(Value):
    func: Value
    args: tuple[Value, ...]
    kwargs: tuple[Keyword, ...]
    text: Source
    """The call's source text, as written (so is `Result`'s)."""


@dataclass(frozen=True)
class Result(Value):
    """What a call returned, when nothing more is known about it."""

    func: Value
    text: Source
    line: int


@dataclass(frozen=True)
class BoundMethod(Value):
    owner: Value
    name: str


@dataclass(frozen=True)
class Const(Value):
    value: str


@dataclass(frozen=True)
class Opaque(Value):
    text: str


def label(value: Value) -> str:
    """A short name for a key value: an enum member's name, a tuple's names joined by `/`."""
    if isinstance(value, Member):
        return value.name
    if isinstance(value, Ext):
        return value.dotted.rsplit(".", 1)[-1]
    if isinstance(value, Seq):
        return "/".join(label(v) for v in value.items)
    if isinstance(value, Obj):
        return value.qualname
    return "?"
