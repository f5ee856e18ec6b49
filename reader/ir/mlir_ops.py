"""An MLIR module as the format's module dict: its text without locations, and each printed op
with its line, the primitive whose rule emitted it and its source location (imports jaxlib)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from jax._src.lib.mlir import ir

from reader.ir import SourceFile

Locate = Callable[[str], SourceFile | None]
"""A location's file name -> its `SourceFile` (see `reader.ir.source_file`), None to skip it."""

_TRAILING_LOC = re.compile(r"\s+loc\((?:[^()\"]|\"(?:[^\"\\]|\\.)*\"|\((?:[^()\"]|\"(?:[^\"\\]|\\.)*\")*\))*\)\s*$")
_LOC_ALIAS = re.compile(r"^#loc\d*\s*=")
_BLOCK_LABEL = re.compile(r"^\s*\^bb\d+")


class ModuleOps(NamedTuple):
    """A lowered module as the IR view shows it."""

    text: str
    """The module printed without locations."""
    ops: list[dict[str, Any]]
    """Every printed op, in text order: its line, name, primitive and source location."""


class OpOrigin(NamedTuple):
    """Where an op comes from: the primitive it lowers, the source location it traces to."""

    primitive: str | None
    loc: dict[str, Any] | None


def module_ops(module: ir.Module, locate: Locate) -> ModuleOps:
    """The module printed without locations, and every printed op in text order."""
    with module.context:
        plain = str(module.operation.get_asm(enable_debug_info=False)).splitlines()
        located = str(module.operation.get_asm(enable_debug_info=True)).splitlines()
    top = next(i for i, line in enumerate(located) if not _LOC_ALIAS.match(line))
    body = located[top: top + len(plain)]
    if len(body) != len(plain) or any(_LOC_ALIAS.match(line) for line in body):
        raise ValueError("the module prints different lines with and without locations")
    lines = _op_lines(module.operation, body)
    ops = []
    for op, line in lines:
        primitive, loc = describe(op.location, locate)
        ops.append({"line": line + 1, "op": op.name, "primitive": primitive, "loc": loc})
    ops.sort(key=lambda o: o["line"])
    return ModuleOps("\n".join(plain) + "\n", ops)


@dataclass
class _Node:
    op: Any
    children: list[_Node] = field(default_factory=list)
    last_in_block: bool = False
    end: int | None = None
    start: int | None = None


def _tree(op: Any, last: bool = False) -> _Node:
    node = _Node(op, last_in_block=last)
    regions = list(op.regions)
    if op.name == "scf.index_switch":  # region 0 is the default case, printed last
        regions = regions[1:] + regions[:1]
    for region in regions:
        for block in region.blocks:
            inner = [o.operation for o in block.operations]
            node.children += [_tree(child, k == len(inner) - 1) for k, child in enumerate(inner)]
    return node


def _post_order(node: _Node) -> Iterator[_Node]:
    for child in node.children:
        yield from _post_order(child)
    yield node


def _op_lines(root: ir.Operation, body: list[str]) -> list[tuple[Any, int]]:
    """Each printed op with its 0-based first line. An op's printed form ends with its location
    (`... loc(#loc3)`), so the lines ending in one are the ops' last lines in post-order; a
    terminator the printer elides (an `scf.yield` without operands) has none. An op with
    regions starts on the line above its first nested op (block labels skipped)."""
    ends = [i for i, line in enumerate(body) if _TRAILING_LOC.search(line)]
    order = list(_post_order(_tree(root)))
    cursor = 0
    for node in order:
        line = body[ends[cursor]] if cursor < len(ends) else ""
        if node.last_in_block and _elided(node.op, line):
            continue
        if cursor >= len(ends):
            raise ValueError(f"more ops than printed op lines (at {node.op.name})")
        node.end = ends[cursor]
        cursor += 1
    if cursor != len(ends):
        raise ValueError(f"{len(ends) - cursor} printed op lines left unmatched")
    out: list[tuple[Any, int]] = []
    for node in order:  # post-order: an op's nested ops come first
        if node.end is None:
            continue
        first = next((c for c in node.children if c.start is not None), None)
        if first is None or first.start is None:
            node.start = node.end
        else:
            header = first.start - 1
            while header > 0 and _BLOCK_LABEL.match(body[header]):
                header -= 1
            node.start = header
        out.append((node.op, node.start))
    return out


def _elided(op: Any, line: str) -> bool:
    """Whether a block's last op is a terminator the printer left out (its line is another's)."""
    short = op.name.rpartition(".")[2]
    return len(op.operands) == 0 and not op.regions and not re.search(rf"\b{re.escape(short)}\b", line)


def describe(loc: Any, locate: Locate) -> OpOrigin:
    """An op's origin from its location: the primitive is the outermost `name:` NameLoc
    (jax's `source_info_to_location` wraps each equation's ops in `"<primitive>:"`); the loc is
    the innermost frame of its traceback that `locate` maps into the project or a pin."""
    primitive = None
    here = _typed(loc)
    while isinstance(here, ir.NameLoc) and not isinstance(_typed(here.child_loc), ir.FileLineColLoc):
        if primitive is None and here.name_str.endswith(":"):
            primitive = here.name_str[:-1]
        here = _typed(here.child_loc)
    for _, frame in _frames(here):
        where = locate(frame.filename)
        if where is not None:
            return OpOrigin(primitive, _file_loc(frame, *where))
    return OpOrigin(primitive, None)


def _frames(loc: Any) -> list[tuple[str, Any]]:
    """`(function, FileLineColLoc)` innermost first. jax writes a traceback as
    `callsite(frame at callsite(frame at ...))`, and an equation traced inside a cached `jit`
    as `callsite(inner at outer)`, where the inner traceback's outer frames are those of the
    first call (stale): when they repeat the outer traceback's functions, the outer wins."""
    here = _typed(loc)
    if isinstance(here, ir.FileLineColLoc):
        return [("", here)]
    if isinstance(here, ir.NameLoc):
        child = _typed(here.child_loc)
        if isinstance(child, ir.FileLineColLoc):
            return [(here.name_str, child)]
        return _frames(child)
    if isinstance(here, ir.CallSiteLoc):
        inner, outer = _frames(here.callee), _frames(here.caller)
        n = len(outer)
        if 0 < n <= len(inner) and [f for f, _ in inner[-n:]] == [f for f, _ in outer]:
            return inner[:-n] + outer
        return inner + outer
    if isinstance(here, ir.FusedLoc):
        return [f for part in here.locations for f in _frames(part)]
    return []


def _typed(loc: Any) -> Any:
    """The location as its own class (`NameLoc`, `CallSiteLoc`, ...), whatever it came as."""
    for kind in (ir.NameLoc, ir.CallSiteLoc, ir.FusedLoc, ir.FileLineColLoc):
        if loc.typeid == kind.static_typeid:
            return loc if isinstance(loc, kind) else kind(loc)
    return loc


def _file_loc(frame: Any, path: str, pin: str | None) -> dict[str, Any]:
    """Columns as jax records them and MLIR prints them: Python's 0-based `col_offset`, the end
    exclusive (`end_col_offset`); no end when the location has none (Mosaic GPU, Triton)."""
    end_line, end_col = frame.end_line, frame.end_col
    has_end = (end_line, end_col) != (frame.start_line, frame.start_col)
    return {"file": path, "pin": pin, "line": frame.start_line, "col": frame.start_col,
            "end_line": end_line if has_end else None, "end_col": end_col if has_end else None}
