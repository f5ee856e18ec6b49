"""The methods `dataclasses` makes for each class, compiled once and kept.

CPython 3.12 compiles every generated method (`__init__`, `__repr__`, `__eq__`, a frozen class's
`__setattr__`...) from its source text when a module defining a dataclass is imported: about 1,240
functions in a warm build, 2,040 in a cold one. A text's code is the same on every run of the same
interpreter, so the text is the key: the codes are kept in one file per bytecode version, read back
at the next start, and only a text not seen before is compiled. Measured here: the imports of a
build 0.47 -> 0.25 s, a warm build 1.16 -> 1.06 s, a warm `reader check` 0.38 -> 0.34 s. Other
Pythons (3.13 makes a class's methods in one go) are left as they are.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType
from typing import Any

from reader.atomic import atomic_write

_KEPT: dict[str, CodeType] = {}
"""Source text -> its code, for this process (read from the file, then grown)."""
_NEW: list[str] = []
"""The texts compiled in this process that the file lacked."""
_USED: set[str] = set()
"""The texts this process made methods from."""
MOST = 4_000
"""Texts the file keeps at most (about 1 KB each; a cold build uses 2,044, a warm one 1,228, each
read back in 7 ms a thousand): past that, it keeps this process's alone."""
_STDLIB = getattr(dataclasses, "_create_fn", None)


def applies() -> bool:
    """Whether this interpreter makes dataclass methods the way `_create_fn` below mirrors."""
    return sys.version_info[:2] == (3, 12) and _STDLIB is not None


def kept_file(folder: Path) -> Path:
    """The file in `folder` holding this bytecode version's codes."""
    return folder / f"{sys.implementation.cache_tag}-{importlib.util.MAGIC_NUMBER.hex()}.marshal"


def install(folder: Path) -> Callable[[], None]:
    """Have `dataclasses` reuse the codes kept in `folder` from now on (once per process); the
    returned call adds the texts compiled meanwhile to the file (nothing when none was)."""
    if not applies():
        return lambda: None
    if dataclasses._create_fn is not _create_fn:  # type: ignore[attr-defined]
        try:
            kept = marshal.loads(kept_file(folder).read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            kept = {}  # none yet, or unreadable: compiled again, and written whole at the end
        if isinstance(kept, dict):
            _KEPT.update(kept)
        dataclasses._create_fn = _create_fn  # type: ignore[attr-defined]
    return lambda: _keep(folder)


def _keep(folder: Path) -> None:
    if not _NEW:
        return
    kept = _KEPT if len(_KEPT) <= MOST else {txt: _KEPT[txt] for txt in _USED}
    try:
        atomic_write(kept_file(folder), marshal.dumps(kept), durable=False)
    except OSError:
        return  # a read-only cache: compiled again next time
    _NEW.clear()


def _create_fn(name: str, args: list[str], body: list[str], *, globals: dict[str, Any] | None = None,
               locals: dict[str, Any] | None = None, return_type: Any = dataclasses.MISSING) -> Any:
    """`dataclasses._create_fn` of CPython 3.12, the text's code taken from `_KEPT` when there."""
    if locals is None:
        locals = {}
    return_annotation = ""
    if return_type is not dataclasses.MISSING:
        locals["__dataclass_return_type__"] = return_type
        return_annotation = "->__dataclass_return_type__"
    txt = f" def {name}({','.join(args)}){return_annotation}:\n" + "\n".join(f"  {b}" for b in body)
    txt = f"def __create_fn__({', '.join(locals.keys())}):\n{txt}\n return {name}"
    _USED.add(txt)
    code = _KEPT.get(txt)
    if code is None:
        # as exec(txt) compiles it there: no __future__ flag of this module's
        code = _KEPT[txt] = compile(txt, "<string>", "exec", dont_inherit=True)
        _NEW.append(txt)
    ns: dict[str, Any] = {}
    exec(code, globals, ns)
    return ns["__create_fn__"](**locals)
