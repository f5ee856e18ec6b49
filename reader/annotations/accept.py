"""Editing an annotation file's text, keeping every other byte (comments, key order, quoting,
blank lines) as it was: `reader accept`'s stamp and mark removal, `reader diff --apply`'s new
anchors, re-read marks, `reads` and source links. Each edit is re-read and checked to change
exactly what it meant to."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from reader.errors import InputError, Location
from reader.inputs import read_yaml

DELETE = object()
"""A `NoteEdit` value that removes the key."""

NoteEdit = Mapping[str, Any]
"""Keys of one note to set (to a str, int, float, list of ints or a mapping of those) or to
remove (`DELETE`), in the order new keys are written."""

ANCHOR_ORDER = ("id", "path", "symbol", "lines", "quote")
"""Where a missing anchor key goes: after the last of the keys before it that the note has."""


@dataclass(frozen=True)
class Stamp:
    """What `reader accept` records for one note."""

    fingerprint: str
    line: int

    def edit(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint, "line": self.line}


def stamp_notes(text: str, stamps: Mapping[int, Stamp], display: str = "") -> str:
    """`text` with the notes at the given indices of `notes` stamped."""
    return edit_notes(text, {index: stamp.edit() for index, stamp in stamps.items()}, display)


def edit_notes(text: str, edits: Mapping[int, NoteEdit], display: str = "") -> str:
    """`text` with the notes at the given indices of `notes` edited; raises InputError if the
    layout makes that unsafe (the result is re-read and compared before it is returned)."""
    return edit_items(text, "notes", edits, display)


def edit_items(text: str, key: str, edits: Mapping[int, NoteEdit], display: str = "",
               append: Sequence[NoteEdit] = ()) -> str:
    """`text` with the items at the given indices of the top-level list `key` (`notes`, `reads`)
    edited and `append`ed items added after its last one; InputError if that is unsafe."""
    root = YAML(typ="rt").compose(text)
    items = _value(root, key) if isinstance(root, MappingNode) else None
    if not isinstance(items, SequenceNode) or (append and (items.flow_style or not items.value)):
        raise InputError(f"the file has no `{key}` list written one item a line",
                         Location(display, 1))
    spans: list[tuple[int, int, str]] = []
    for index, edit in edits.items():
        spans += _item_edits(items.value[index], edit, text, display)
    if append:
        at = _end_of_line(text, _content_end(items))
        dash = " " * items.start_mark.column
        lines = "".join(f"{dash}- " + _entries(item, items.start_mark.column + 2)[
            items.start_mark.column + 2:] for item in append)
        spans.append((at, at, lines if at == 0 or text[at - 1] == "\n" else "\n" + lines))
    out = text
    for start, end, new in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        out = out[:start] + new + out[end:]
    _verify(text, out, key, edits, append, display)
    return out


def _value(mapping: MappingNode, key: str) -> Node | None:
    for k, v in mapping.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return v
    return None


def _item_edits(node: Node, edit: NoteEdit, text: str, display: str) -> list[tuple[int, int, str]]:
    where = Location(display, node.start_mark.line + 1)
    if not isinstance(node, MappingNode):
        raise InputError("cannot edit an item that is not a mapping", where, "write it as one")
    present = {k.value: (k, v) for k, v in node.value if isinstance(k, ScalarNode)}
    if node.flow_style and any(k not in present or v is DELETE or isinstance(v, Mapping)
                               for k, v in edit.items()):
        raise InputError("cannot edit a note written in flow style ({...})", where,
                         "write the note as a block mapping, one key per line")
    indent = node.value[0][0].start_mark.column
    out: list[tuple[int, int, str]] = []
    inserts: dict[int, list[str]] = {}
    for key, value in edit.items():
        if key in present:
            k, v = present[key]
            if value is DELETE:
                out.append(_removal(node, k, v, text, where))
            else:
                out.append(_replacement(k, v, value, indent, text, where))
        elif value is not DELETE:
            at = _insertion_point(node, key, present, text)
            inserts.setdefault(at, []).append(_entry(key, value, indent))
    for at, entries in inserts.items():
        lines = "".join(entries)
        out.append((at, at, lines if at == 0 or text[at - 1] == "\n" else "\n" + lines))
    return out


def _replacement(k: ScalarNode, v: Node, value: Any, indent: int, text: str,
                 where: Location) -> tuple[int, int, str]:
    """Replace what follows `key:` up to the value's last character (a comment after it stays)."""
    colon = text.find(":", k.end_mark.index)
    if colon < 0 or (isinstance(v, (MappingNode, SequenceNode)) and v.flow_style
                     and not isinstance(value, list)):
        raise InputError(f"cannot rewrite `{k.value}` of this note", where,
                         f"write `{k.value}:` in block style")
    end = _content_end(v)
    while end > colon + 1 and text[end - 1] in " \t\r\n":
        end -= 1
    dash = v.start_mark.column if isinstance(v, SequenceNode) and not v.flow_style else None
    return colon + 1, end, _render(value, indent, dash).rstrip("\n")


def _removal(node: MappingNode, k: ScalarNode, v: Node, text: str,
             where: Location) -> tuple[int, int, str]:
    if node.value[0][0] is k:
        raise InputError(f"cannot remove `{k.value}`: it opens the note's item", where,
                         f"move `{k.value}:` below `id:`, then run the command again")
    start = text.rfind("\n", 0, k.start_mark.index) + 1
    return start, _end_of_line(text, _content_end(v)), ""


def _insertion_point(node: MappingNode, key: str, present: Mapping[str, Any], text: str) -> int:
    """After the last anchor key that comes before `key`, else after the note's last value."""
    if key in ANCHOR_ORDER:
        before = [k for k in ANCHOR_ORDER[: ANCHOR_ORDER.index(key)] if k in present]
        if before:
            return _end_of_line(text, _content_end(present[before[-1]][1]))
    return _end_of_line(text, _content_end(node))


def _entry(key: str, value: Any, indent: int) -> str:
    return f"{' ' * indent}{key}:{_render(value, indent)}"


def _entries(item: NoteEdit, indent: int) -> str:
    return "".join(_entry(str(k), v, indent) for k, v in item.items())


def _render(value: Any, indent: int, dash: int | None = None) -> str:
    """` value\\n` for a scalar or a list (a block list with its dashes at column `dash`, else a
    flow list), ` |\\n  text` for a text of several lines, `\\n  key: value...` for a mapping
    (block style)."""
    if isinstance(value, Mapping):
        return "\n" + _entries(value, indent + 2)
    if isinstance(value, bool) or value is None:
        raise TypeError(f"no YAML rendering for {value!r}")
    if isinstance(value, str) and _literal_safe(value):
        lines = "".join(f"{' ' * (indent + 2)}{line}\n" if line else "\n"
                        for line in value.rstrip("\n").split("\n"))
        chomp = "" if value.endswith("\n") else "-"
        return f" |{chomp}\n{lines}"
    if isinstance(value, str):
        return f" {_scalar(value)}\n"
    if isinstance(value, float):
        return f" {round(value, 3)}\n"
    if isinstance(value, int):
        return f" {value}\n"
    items = [_scalar(x) if isinstance(x, str) else str(int(x)) for x in value]
    if dash is not None and items:
        return "\n" + "".join(f"{' ' * dash}- {x}\n" for x in items)
    return f" [{', '.join(items)}]\n"


def _scalar(value: str) -> str:
    return value if _plain_safe(value) else json.dumps(value, ensure_ascii=False)


def _literal_safe(value: str) -> bool:
    """Whether `value` (a note's Markdown, say) is written as a literal block (`|`): a text of
    several lines, or one ending with a line break, that such a block reads back as itself."""
    body = value.rstrip("\n")
    return ("\n" in value and bool(body.strip()) and value.count("\n", len(body)) <= 1
            and not body[0].isspace() and all(line == line.rstrip() for line in body.split("\n")))


_PLAIN_RE = re.compile(r"[A-Za-z_][\w./-]*")
_HEX_RE = re.compile(r"[0-9a-f]+")
_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def _plain_safe(value: str) -> bool:
    """Whether `value` reads back as the same string unquoted (names, paths; not hex digests,
    which are quoted as `reader accept` has always written them)."""
    return (bool(_PLAIN_RE.fullmatch(value)) and not _HEX_RE.fullmatch(value)
            and value.lower() not in _WORDS)


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


def _expected(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, Mapping):
        return {str(k): _expected(v) for k, v in value.items()}
    return list(value) if isinstance(value, (list, tuple)) else value


def _verify(old: str, new: str, key: str, edits: Mapping[int, NoteEdit],
            append: Sequence[NoteEdit], display: str) -> None:
    expect = _plain(read_yaml(old))
    for index, edit in edits.items():
        item = expect[key][index]
        for name, value in edit.items():
            if value is DELETE:
                item.pop(name, None)
            else:
                item[name] = _expected(value)
    expect[key] += [_expected(item) for item in append]
    if _plain(read_yaml(new)) != expect:
        keys = sorted({k for e in [*edits.values(), *append] for k in e})
        raise InputError(f"editing `{key}` would change more than {', '.join(keys)}",
                         Location(display, 1),
                         "make the edit by hand: `reader check --format json` shows the values")


def rewrite_links(text: str, targets: Mapping[str, str], display: str = "") -> str:
    """`text` with each source link `[[OLD]]` or `[[OLD|label]]` of `targets` (OLD: `path` or
    `path::Qualname`) pointing at its new target; every string value is checked to have changed
    by those links alone."""
    if not targets:
        return text
    pattern = re.compile(r"\[\[(" + "|".join(map(re.escape, sorted(targets, key=len,
                                                                       reverse=True)))
                         + r")(?=\]\]|\|)")

    def swap(s: str) -> str:
        return pattern.sub(lambda m: "[[" + targets[m.group(1)], s)

    out = swap(text)
    if _plain(read_yaml(out)) != _swapped(_plain(read_yaml(text)), swap):
        raise InputError("rewriting the source links would change more than the links",
                         Location(display, 1), "rewrite them by hand: 'reader check' names them")
    return out


def _swapped(data: Any, swap: Callable[[str], str]) -> Any:
    if isinstance(data, str):
        return swap(data)
    if isinstance(data, list):
        return [_swapped(x, swap) for x in data]
    if isinstance(data, dict):
        return {k: _swapped(v, swap) for k, v in data.items()}
    return data
