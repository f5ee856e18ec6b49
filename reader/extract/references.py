"""References: each name read in a file that resolves to a definition in the pinned corpus, and
the where-used lists they make."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from reader.corpus import PinnedPath
from reader.extract.names import Resolver, resolve_chain
from reader.extract.scan import FileSummary
from reader.model import QualName, Reference


@dataclass(frozen=True)
class Use:
    """One place that references a definition."""

    pin: str
    path: str
    line: int
    col: int
    length: int


def references_of(resolver: Resolver, fs: FileSummary) -> list[Reference]:
    """The references of a scanned file (a pinned one or any other, e.g. a lab), sorted."""
    refs = set()
    for chain in fs.chains:
        for part, target in resolve_chain(resolver, fs, chain):
            if resolver.linkable(target):
                refs.add(Reference(part.line, part.col, len(part.name), target.module,
                                   target.qualname))
    return sorted(refs, key=lambda r: (r.line, r.col))


def uses_by_target(files: Iterable[PinnedPath],
                   references: Callable[[str, str], Sequence[Reference]]
                   ) -> dict[QualName, list[Use]]:
    """A definition -> every place among `files` that references it, in the
    files' order, then by line; `references(pin, path)` gives a file's references."""
    uses: dict[QualName, list[Use]] = {}
    for pin, path in files:
        for r in references(pin, path):
            uses.setdefault(r.target, []).append(
                Use(pin, path, r.line, r.col, r.length))
    return uses
