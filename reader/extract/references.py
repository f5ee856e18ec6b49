"""References: each name read in a file that resolves to a definition in the pinned corpus."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reader.extract.scan import Chain, FileSummary, Part
from reader.model import Reference, Symbol

if TYPE_CHECKING:
    from reader.extract.index import Index


@dataclass(frozen=True)
class Target:
    """What a name means: a definition in the corpus, a module, or something outside the corpus."""

    kind: str
    """`def` (a symbol of a corpus module), `module`, or `external` (outside the corpus)."""
    module: str
    """For `def`: the defining module; for `module`: the module; for `external`: the dotted path."""
    qualname: str = ""


@dataclass(frozen=True)
class Definition:
    """Where a definition lives: its pin, path and symbol (None for a whole module)."""

    pin: str
    path: str
    symbol: Symbol | None


@dataclass(frozen=True)
class Use:
    """One place that references a definition."""

    pin: str
    path: str
    line: int
    col: int
    length: int


def resolve_chain(index: Index, fs: FileSummary, chain: Chain) -> list[tuple[Part, Target]]:
    """Each part of `chain` with what it resolves to, for the parts that resolve."""
    parts = list(chain.parts)
    target: Target | None
    out: list[tuple[Part, Target]] = []
    if chain.head == "global":
        first = parts.pop(0)
        target = index.resolve_name(fs.module, first.name,
                                    first.line if chain.at_module else None, fs)
        if target is not None:
            out.append((first, target))
    elif chain.head == "member":
        parts.pop(0)  # `self` itself
        if not parts:
            return []
        first = parts.pop(0)
        target = index.member(fs.module, chain.owner, first.name)
        if target is not None:
            out.append((first, target))
    else:
        first = parts.pop(0)
        qual = f"{chain.owner}.{first.name}"
        target = Target("def", fs.module, qual) if any(
            s.qualname == qual for s in fs.symbols) else None
        if target is not None:
            out.append((first, target))
    for part in parts:
        if target is None:
            break
        target = index.resolve_attr(target, part.name)
        if target is not None:
            out.append((part, target))
    return out


def references_of(index: Index, fs: FileSummary) -> list[Reference]:
    """The references of a scanned file (a pinned one or any other, e.g. a lab), sorted."""
    refs = set()
    for chain in fs.chains:
        for part, target in resolve_chain(index, fs, chain):
            if index.linkable(target):
                refs.add(Reference(part.line, part.col, len(part.name), target.module,
                                   target.qualname))
    return sorted(refs, key=lambda r: (r.line, r.col))


def uses_by_target(index: Index) -> dict[tuple[str, str], list[Use]]:
    """(module, qualname) -> every place in the corpus that references it, by pin, path, line."""
    uses: dict[tuple[str, str], list[Use]] = {}
    for pin, path in sorted(index.files.values()):
        for r in index.references(pin, path):
            uses.setdefault((r.target_module, r.target_qualname), []).append(
                Use(pin, path, r.line, r.col, r.length))
    return uses
