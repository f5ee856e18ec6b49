"""Reading the user's own files (pins, lock, outline, annotations): bounded, UTF-8, inside the project."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from reader.errors import InputError, Location

MAX_NESTING = 64
"""The deepest `[`/`{` nesting a YAML file may have (the real ones reach 3): YAML's scanner takes
quadratic time in it, so a few kilobytes of brackets would hang a parse."""
_BRACKET_RE = re.compile(r"[\[\]{}]")

MAX_INPUT_BYTES = 4 * 1024 * 1024
"""The largest pins.toml, pins.lock, track.yaml or annotation file reader reads (4 MiB); the real
ones are under 100 KiB. A larger file is refused from its size, before any of it is read."""


def read_input(path: Path, display: str | None = None, root: Path | None = None,
               limit: int = MAX_INPUT_BYTES, error: type[InputError] = InputError) -> str:
    """The text of a project file; every way it can be unreadable is an `error` at `display`.

    With `root`, the file (after following symbolic links) must lie inside `root`.
    """
    name = display or shown(path)
    try:
        return _read(path, name, root, limit)
    except InputError as e:
        if error is InputError or isinstance(e, error):
            raise
        raise error(e.message, e.location, e.hint) from None


def _read(path: Path, name: str, root: Path | None, limit: int) -> str:
    if root is not None:
        _inside(path, root, name)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError("file not found", Location(name), "run reader from the project root "
                         "(or pass -C DIR)") from None
    except OSError as e:
        raise InputError(f"cannot read the file: {e.strerror}", Location(name),
                         "check the path and its permissions") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("not a regular file", Location(name, 1),
                         "replace it by a file (a folder, device or pipe cannot be read)")
    if info.st_size > limit:
        raise InputError(f"the file is {_size(info.st_size)}, over the {_size(limit)} reader "
                         "accepts", Location(name, 1), "split it or remove what does not belong")
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise InputError(f"cannot read the file: {e.strerror}", Location(name, 1),
                         "check its permissions") from None
    if len(data) > limit:
        raise InputError(f"the file is over the {_size(limit)} reader accepts", Location(name, 1),
                         "split it or remove what does not belong")
    return decode_utf8(data, name)


def shown(path: Path) -> str:
    """How messages name a file: relative to the working directory when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (ValueError, OSError):
        return str(path)


def decode_utf8(data: bytes, name: str) -> str:
    """`data` as UTF-8; a bad byte is an InputError at its line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"not UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})",
                         Location(name, line), "save the file as UTF-8") from None


def read_yaml(text: str) -> Any:
    """Round-trip YAML: mappings and lists remember the line of each key and item."""
    from ruamel.yaml import YAML  # imported on a first parse only: cached results need none

    return YAML(typ="rt").load(text)


def parse_yaml(text: str, name: str) -> Any:
    """`read_yaml(text)` for a file a person wrote; every problem is an InputError at its line.

    Refused before or after parsing: brackets nested deeper than MAX_NESTING, and anchors and
    aliases (a few lines of them can stand for billions of nodes).
    """
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    deep = _too_deep(text)
    if deep is not None:
        raise InputError(f"brackets nested more than {MAX_NESTING} deep", Location(name, deep),
                         "fix the YAML syntax")
    try:
        data = read_yaml(text)
    except MarkedYAMLError as e:
        line = e.problem_mark.line + 1 if e.problem_mark is not None else 1
        what = ": ".join(str(x) for x in (e.context, e.problem) if x)
        raise InputError(f"malformed YAML: {what}", Location(name, line),
                         "fix the YAML syntax") from None
    except YAMLError as e:
        raise InputError(f"malformed YAML: {e}", Location(name, 1), "fix the YAML syntax") from None
    except RecursionError:
        raise InputError("malformed YAML: nested too deeply", Location(name, 1),
                         "fix the YAML syntax") from None
    if _has_alias(data):
        raise InputError("YAML anchors and aliases (`&name`, `*name`) are not allowed here",
                         Location(name, _alias_line(text)), "write the value out where it is used")
    return data


def _too_deep(text: str) -> int | None:
    """The line where `[`/`{` nest deeper than MAX_NESTING, or None.

    YAML's scanner takes quadratic time in the depth of flow collections: a few kilobytes of
    brackets would hang the check, so such a file is refused before it is parsed.
    """
    depth = 0
    for m in _BRACKET_RE.finditer(text):
        depth = depth + 1 if m.group() in "[{" else max(0, depth - 1)
        if depth > MAX_NESTING:
            return text.count("\n", 0, m.start()) + 1
    return None


def _has_alias(data: Any) -> bool:
    """Whether a mapping or list is reached twice (a YAML alias)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    seen: set[int] = set()
    todo = [data]
    while todo:
        node = todo.pop()
        if isinstance(node, (CommentedMap, CommentedSeq)):
            if id(node) in seen:
                return True
            seen.add(id(node))
            todo += list(node.values()) if isinstance(node, CommentedMap) else list(node)
    return False


def _alias_line(text: str) -> int:
    """The line of the first `*alias` in `text`."""
    from ruamel.yaml import YAML
    from ruamel.yaml.events import AliasEvent

    for event in YAML(typ="rt").parse(text):
        if isinstance(event, AliasEvent):
            return event.start_mark.line + 1
    return 1


def _inside(path: Path, root: Path, name: str) -> None:
    real, top = path.resolve(), root.resolve()
    if real != top and top not in real.parents:
        what = "a symbolic link to" if path.is_symlink() else "resolves to"
        raise InputError(f"{what} {real}, outside the project", Location(name, 1),
                         "copy the file into the project instead of linking to it")


def _size(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"
