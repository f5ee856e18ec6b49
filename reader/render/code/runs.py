"""Token runs, the compact form of a line's highlighting that the code view and the cards carry:
for each run its class's code and its length in UTF-16 units ("a4b12ba3"). The format is defined
once, in reader/assets/runs.js (the site's decoder, docs/assets/runs.js links to it); this module
reads its alphabet from there and writes what that script reads."""

import re
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import NamedTuple

from reader.errors import BuildError, Location

_SCRIPT = "assets/runs.js"
_RUN = re.compile(r"([a-zA-Z]+)(\d+)")


def _letters() -> str:
    text = resources.files("reader").joinpath(_SCRIPT).read_text(encoding="utf-8")
    m = re.search(r'^  var LETTERS = "([a-zA-Z]+)";$', text, re.M)
    if m is None:
        raise BuildError("no `var LETTERS = \"...\";` line", Location(f"reader/{_SCRIPT}"),
                         "restore the alphabet's line: reader/render/code/runs.py reads it")
    return m.group(1)


LETTERS = _letters()
"""A class code's digits, from runs.js."""
_BASE = len(LETTERS)


def class_code(index: int) -> str:
    """A class's code: its index in bijective base 52 over LETTERS (0 -> a, 52 -> aa)."""
    code = LETTERS[index % _BASE]
    while index >= _BASE:
        index = index // _BASE - 1
        code = LETTERS[index % _BASE] + code
    return code


class IndexedRun(NamedTuple):
    """A run of a line's highlighting: its class's index (in the view's or card's table of
    classes) and its length in UTF-16 units."""

    class_index: int
    units: int


def encode(pieces: Iterable[IndexedRun]) -> str:
    """A line's runs as their text."""
    return "".join(f"{class_code(index)}{units}" for index, units in pieces)


_LENGTHS: dict[str | int, str] = {n: str(n) for n in range(512)}
"""A run's length -> its digits: what most lengths are; `ClassCodes.encode` adds the others."""


class ClassCodes:
    """A table of classes (a view's or a card's), each numbered in the order it first comes
    and coded (`class_code`), and lines' runs written with their codes."""

    def __init__(self, first: Iterable[str] = ()) -> None:
        self.codes: dict[str | int, str] = {}
        """class -> its code, in the table's order (a length is never a key: `encode` maps it to itself)."""
        self._text: dict[str | int, str] = dict(_LENGTHS)
        """What `encode` writes for each class (its code) and each length (its digits) seen."""
        self.add(first)

    def classes(self) -> list[str]:
        """The table: the classes in order."""
        return [str(c) for c in self.codes]

    def add(self, classes: Iterable[str | int]) -> None:
        """`classes` not in the table yet appended to it, in order."""
        codes = self.codes
        for cls in classes:
            if cls not in codes:
                codes[cls] = self._text[cls] = class_code(len(codes))

    def encode(self, runs: Sequence[str | int]) -> str:
        """A line's runs, flat (class, UTF-16 units, class, units, ...), as their text (`encode`);
        a class not in the table yet is added."""
        try:
            return "".join(map(self._text.__getitem__, runs))
        except KeyError:  # a class first met (added in the line's order) or a long run
            self.add(runs[::2])
            self._text.update((units, str(units)) for units in runs[1::2])
            return "".join(map(self._text.__getitem__, runs))


def decode(spec: str) -> list[IndexedRun]:
    """A line's runs from their text; runs.js's `decode`."""
    out = []
    for m in _RUN.finditer(spec):
        n = 0
        for digit in m.group(1)[:-1]:
            n = (n + LETTERS.index(digit) + 1) * _BASE
        out.append(IndexedRun(n + LETTERS.index(m.group(1)[-1]), int(m.group(2))))
    return out
