"""`reader accept`'s edit: set notes' `fingerprint` and `line` in an annotation file's text,
keeping every other byte (comments, key order, quoting, blank lines) as it was."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from reader.errors import InputError, Location
from reader.inputs import read_yaml


@dataclass(frozen=True)
class Stamp:
    """What `reader accept` records for one note."""

    fingerprint: str
    line: int


def stamp_notes(text: str, stamps: Mapping[int, Stamp], display: str = "") -> str:
    """`text` with the notes at the given indices of `notes` stamped; raises InputError if the
    layout makes that unsafe (the result is re-read and compared before it is returned)."""
    root = YAML(typ="rt").compose(text)
    notes = _value(root, "notes") if isinstance(root, MappingNode) else None
    if not isinstance(notes, SequenceNode):
        raise InputError("the file has no `notes` list", Location(display, 1))
    edits: list[tuple[int, int, str]] = []
    for index, stamp in stamps.items():
        edits += _note_edits(notes.value[index], stamp, text, display)
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    _verify(text, out, stamps, display)
    return out


def _value(mapping: MappingNode, key: str) -> Node | None:
    for k, v in mapping.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return v
    return None


def _note_edits(node: Node, stamp: Stamp, text: str, display: str) -> list[tuple[int, int, str]]:
    where = Location(display, node.start_mark.line + 1)
    if not isinstance(node, MappingNode) or node.flow_style:
        raise InputError("cannot stamp a note written in flow style ({...})", where,
                         "write the note as a block mapping, one key per line")
    values = {"fingerprint": f'"{stamp.fingerprint}"', "line": str(stamp.line)}
    edits, missing = [], []
    for key in ("fingerprint", "line"):
        v = _value(node, key)
        if v is None:
            missing.append(key)
        elif isinstance(v, ScalarNode):
            edits.append((v.start_mark.index, v.end_mark.index, values[key]))
        else:
            raise InputError(f"`{key}` of this note is not a plain value", where,
                             f"delete the `{key}` key and run 'reader accept' again")
    if missing:
        indent = " " * node.value[0][0].start_mark.column
        at = _end_of_line(text, _content_end(node))
        lines = "".join(f"{indent}{key}: {values[key]}\n" for key in missing)
        edits.append((at, at, lines if at == 0 or text[at - 1] == "\n" else "\n" + lines))
    return edits


def _content_end(node: Node) -> int:
    """Index just past the last character that belongs to `node`'s content."""
    while isinstance(node, (MappingNode, SequenceNode)) and node.value and not node.flow_style:
        last = node.value[-1]
        node = last[1] if isinstance(node, MappingNode) else last
    return int(node.end_mark.index)


def _end_of_line(text: str, index: int) -> int:
    """Index of the start of the line after the last non-blank character before `index`."""
    i = index
    while i > 0 and text[i - 1] in " \t\r\n":
        i -= 1
    nl = text.find("\n", i)
    return len(text) if nl < 0 else nl + 1


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


def _verify(old: str, new: str, stamps: Mapping[int, Stamp], display: str) -> None:
    expect = _plain(read_yaml(old))
    for index, stamp in stamps.items():
        expect["notes"][index]["fingerprint"] = stamp.fingerprint
        expect["notes"][index]["line"] = stamp.line
    if _plain(read_yaml(new)) != expect:
        raise InputError("stamping the notes would change more than `fingerprint` and `line`",
                         Location(display, 1),
                         "add them by hand: `reader check --format json` shows the values")
