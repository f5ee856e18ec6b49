"""The fact record, and what stands in for facts an extractor cannot compute at the pins.

An extractor that no longer understands the pinned code raises `ExtractError` at that code;
`facts.all_facts` turns it into an `Unknown` naming the facts it costs, so that `reader check`
and `reader diff` report it as a finding for a person instead of stopping.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property

from reader.errors import Location, ReaderError


@dataclass(frozen=True)
class Fact:
    """One named value for `{{fact:NAME}}`, and where in the pinned source it comes from."""

    name: str
    value: int | str | list[str]
    about: str
    path: str = ""
    """The pinned file the value is read from; empty for hardware limits and corpus totals."""
    line: int = 0
    """Its line in `path`, 0 when the value belongs to the whole file (or to no file)."""


class ExtractError(ReaderError):
    """An extractor met pinned code of a shape it does not understand; located at that code."""

    exit_code = 1


@dataclass(frozen=True)
class Unknown:
    """Facts that cannot be computed at these pins: which (`NAMES` patterns), where, and why."""

    names: tuple[str, ...]
    """The patterns of the names it costs (`tokamax.sm90.**`), as `facts.NAMES` writes them."""
    where: Location
    """The pinned code the extractor could not read."""
    reason: str
    hint: str = ""

    def covers(self, name: str) -> bool:
        return any(name_pattern(p).fullmatch(name) for p in self.names)

    @property
    def what(self) -> str:
        """`facts a.**, b.*`: the names it costs, for a message."""
        return "facts " + ", ".join(self.names)

    def __str__(self) -> str:
        return f"{self.where}: {self.what} cannot be computed: {self.reason}"


@dataclass(frozen=True)
class Facts:
    """Every fact computed at a set of pins, and the `Unknown`s for those that could not be."""

    facts: tuple[Fact, ...]
    unknown: tuple[Unknown, ...] = ()

    def __iter__(self) -> Iterator[Fact]:
        return iter(self.facts)

    @cached_property
    def values(self) -> dict[str, object]:
        """name -> value, what `{{fact:NAME}}` shows."""
        return {f.name: f.value for f in self.facts}

    def unknown_for(self, name: str) -> Unknown | None:
        """The `Unknown` that costs the fact `name`, if it is not computed because of one."""
        if name in self.values:
            return None
        return next((u for u in self.unknown if u.covers(name)), None)


@cache
def name_pattern(p: str) -> re.Pattern[str]:
    """`{a|b}` one of the alternatives, `*` one dotted component, `**` the rest of the name."""
    out = re.escape(p).replace(r"\*\*", ".+").replace(r"\*", "[^.]+")
    out = re.sub(r"\\\{(.*?)\\\}", lambda m: "(?:" + m.group(1).replace(r"\|", "|") + ")", out)
    return re.compile(out)
