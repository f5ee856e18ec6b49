"""A file's outline: its classes (methods nested), functions and notable module-level names, each
with its line, a short signature and its docstring's first line; the source page's outline panel
and the search index's entries come from it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from reader.extract.symbols import cut
from reader.model import Head, Symbol

DOC_CHARS = 80


@dataclass(frozen=True)
class OutlineItem:
    """One definition of the outline, with those nested in it (a class's methods)."""

    qualname: str
    kind: str
    """class | function | method | variable"""
    line: int
    signature: str = ""
    """`(ctx, x, *, axis)` for a function, `(Base)` for a class, `= value` for a name."""
    doc: str = ""
    """The docstring's first line."""
    children: tuple[OutlineItem, ...] = ()

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Outline:
    items: tuple[OutlineItem, ...]
    doc: str = ""
    """The module docstring's first line."""

    def walk(self) -> list[OutlineItem]:
        """Every item, in source order (a class before its methods)."""
        out: list[OutlineItem] = []
        stack = list(reversed(self.items))
        while stack:
            item = stack.pop()
            out.append(item)
            stack.extend(reversed(item.children))
        return out


class Headed(Protocol):
    """A definition with its head, if the file parsed (`symbols.Defined`, `DefinitionView`)."""

    @property
    def symbol(self) -> Symbol: ...

    @property
    def head(self) -> Head | None: ...


def outline(definitions: Sequence[Headed], doc: str = "") -> Outline:
    """The outline of a file from its definitions (in source order) with their heads (from the
    scan: None where the file did not parse) and its docstring's first line."""
    flat: dict[str, OutlineItem] = {}
    children: dict[str, list[str]] = {}
    for d in definitions:
        s, head = d.symbol, d.head
        listed = head.listed if head is not None else s.kind != "variable"
        if s.qualname in flat or not listed:
            continue
        flat[s.qualname] = OutlineItem(
            s.qualname, s.kind, s.line, head.signature if head is not None else "",
            _shown(head.doc) if head is not None and s.kind != "variable" else "")
        children[s.qualname] = []
        parent = s.qualname.rpartition(".")[0]
        if parent:
            children.setdefault(parent, []).append(s.qualname)

    def build(name: str) -> OutlineItem:
        item = flat[name]
        kids = tuple(build(k) for k in children.get(name, ()) if k in flat)
        return OutlineItem(item.qualname, item.kind, item.line, item.signature, item.doc, kids)

    top = tuple(build(q) for q in flat if "." not in q)
    return Outline(top, _shown(doc))


KIND_MARKS = {"class": "c", "function": "f", "method": "m", "variable": "v"}
"""The outline's kind letters (`data-k` of its links; outline.css shows them)."""


def outline_data(items: Sequence[OutlineItem], depth: int = 0) -> str:
    """The outline as outline.js reads it (and builds the panel's list from, when first shown):
    a line per item, `<depth spaces><kind letter><line> <name>` (`f594 aval_to_ir_type`, a
    method ` m20 apply`), so that a page carries ~20 bytes a name and no elements for it."""
    return "".join(f"{' ' * depth}{KIND_MARKS.get(item.kind, 'v')}{item.line} {item.name}\n"
                   + outline_data(item.children, depth + 1) for item in items)


def _shown(doc_line: str) -> str:
    """A docstring's first line with its invisible characters (bidi controls) written as
    escapes, as `ast.unparse` writes them in a value, cut to DOC_CHARS."""
    return cut("".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in doc_line), DOC_CHARS)
