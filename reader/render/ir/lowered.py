"""Lowered IR with each op's source location and emitting primitive (`lowered.json`, written by
the labs' artifact run), the lowering rule behind each op, and each module's coverage.

The format is one JSON object: `{"version": 1, "jax": ..., "modules": [module...]}`, a module
`{"id", "title", "backend", "kernel", "text", "ops": [op...], "error"?, "rule_key"?}` and an op
`{"line", "op", "primitive", "loc": {"file", "pin", "line", "col", "end_line", "end_col"} | null}`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from reader.errors import BuildError, Location
from reader.extract.ruletable import RuleEntry, RuleTable
from reader.ir import OpCount
from reader.render.common.model import PageLink
from reader.render.common.urls import RULES, line_id, slugify, source_page

LOWERED = "lowered.json"
"""The artifact a lab writes its lowered modules to."""
BACKENDS = {"jaxpr": "jaxpr", "mosaic_tpu": "Mosaic TPU", "mosaic_gpu": "Mosaic GPU", "triton": "Triton"}
"""The backends a module may be lowered for, with their names on the page, in tab order."""
DEFAULT_KEYS = {"mosaic_tpu": ("tpu", "TC"), "mosaic_gpu": ("mosaic_gpu", "Lane/Warpgroup"),
                "triton": ("triton", "")}
"""A backend's rule table (reader/extract/rules.py's backend and key) when a module names none."""
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class IrFormatError(BuildError):
    """A `lowered.json` that does not follow the format (a bug in what wrote it)."""


class FileKey(NamedTuple):
    """A file an op's location names: its pin ('' for a project file, a lab's) and its path."""

    pin: str
    path: str


@dataclass(frozen=True)
class IrLoc:
    """Where in a kernel's file an op comes from (columns as jax records them: 0-based, end
    exclusive). `pin` is None for a project file (a lab), else the pin of a pinned file."""

    file: str
    pin: str | None
    line: int
    col: int
    end_line: int
    end_col: int

    @property
    def key(self) -> FileKey:
        return FileKey(self.pin or "", self.file)


@dataclass(frozen=True)
class IrOp:
    line: int
    """1-based line of the module's text where the op is printed."""
    op: str
    primitive: str | None
    loc: IrLoc | None


@dataclass(frozen=True)
class IrModule:
    id: str
    title: str
    backend: str
    kernel: str
    text: str
    ops: tuple[IrOp, ...]
    error: str = ""
    """Why the backend refused the kernel ('' when it lowered)."""
    rule_key: str = ""


@dataclass(frozen=True)
class Lowered:
    jax: str
    modules: tuple[IrModule, ...]


def parse_lowered(data: bytes, where: Location) -> Lowered:
    """A `lowered.json`'s modules; `IrFormatError` at `where` when it breaks the format."""
    try:
        doc = json.loads(data)
        if doc.get("version") != 1:
            raise ValueError(f"version {doc.get('version')!r}, expected 1")
        modules = tuple(_module(m) for m in doc["modules"])
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise IrFormatError(f"{LOWERED} does not follow the format: {e}", where,
                            "see reader/render/ir/lowered.py for the format") from None
    ids = Counter(m.id for m in modules)
    if dup := [i for i, n in ids.items() if n > 1]:
        raise IrFormatError(f"{LOWERED}: module id {dup[0]!r} used twice", where)
    return Lowered(str(doc.get("jax", "")), modules)


def _module(m: dict[str, Any]) -> IrModule:
    if not isinstance(m["id"], str) or not _ID.match(m["id"]):
        raise ValueError(f"module id {m['id']!r} is not a slug")
    if m["backend"] not in BACKENDS:
        raise ValueError(f"module {m['id']}: unknown backend {m['backend']!r}")
    text = str(m["text"])
    count = len(text.splitlines())
    ops = tuple(_op(o) for o in m["ops"])
    if bad := [o for o in ops if not 1 <= o.line <= count]:
        raise ValueError(f"module {m['id']}: op {bad[0].op} on line {bad[0].line} of {count}")
    return IrModule(m["id"], str(m["title"]), m["backend"], str(m["kernel"]), text, ops,
                    str(m.get("error") or ""), str(m.get("rule_key") or ""))


def _op(o: dict[str, Any]) -> IrOp:
    loc = o.get("loc")
    return IrOp(int(o["line"]), str(o["op"]), o.get("primitive") or None, None if loc is None else IrLoc(
        str(loc["file"]), loc.get("pin") or None, int(loc["line"]), int(loc.get("col") or 0),
        int(loc.get("end_line") or loc["line"]), int(loc.get("end_col") or 0)))


@dataclass(frozen=True)
class Emitter:
    """The rule that emitted an op: its name and where it is defined on the site."""

    name: str
    target: PageLink
    path: str = ""
    """The pinned file holding the rule ('' for a jaxpr equation: it links the rules page)."""
    line: int = 0


class Rules:
    """The extracted rule tables, looked up by backend and primitive name."""

    def __init__(self, tables: Sequence[RuleTable]):
        self.tables = tuple(tables)
        self.by_name: dict[tuple[str, str], dict[str, list[RuleEntry]]] = {}
        self.rows: dict[str, dict[str, tuple[str, int]]] = {}
        """name -> primitive key -> (its row's slug on the rules page, how many tables have it)."""
        for t in tables:
            for e in t.entries:
                keys = self.rows.setdefault(e.primitive.name, {})
                slug, count = keys.get(e.primitive.key, (slugify(e.primitive.dotted), 0))
                keys[e.primitive.key] = (slug, count + 1)
            names: dict[str, list[RuleEntry]] = {}
            for e in t.entries:
                names.setdefault(e.primitive.name, []).append(e)
            self.by_name[(t.backend, t.key)] = names

    def emitter(self, module: IrModule, primitive: str | None) -> Emitter | None:
        """The rule behind an op of `module` whose jaxpr primitive is `primitive`: None when the
        table has no rule of that name, or several different ones (the name is ambiguous)."""
        if primitive is None:
            return None
        if module.backend == "jaxpr":
            return self._row(primitive)
        backend, key = DEFAULT_KEYS[module.backend]
        found = self.by_name.get((backend, module.rule_key or key), {}).get(primitive, [])
        rules = {(e.rule.path, e.rule.line, e.rule.qualname or e.rule.text) for e in found}
        if len(rules) != 1:
            return None
        path, line, name = rules.pop()
        if not path or not line:
            return None
        return Emitter(name, PageLink(source_page(path), line_id(line), f"{name}, {path}:{line}"),
                       path, line)

    def _row(self, primitive: str) -> Emitter | None:
        """A jaxpr equation's primitive: its row of the rules page (its rule in every backend).
        Of two primitives sharing a name (`swap`: the state one, the SparseCore one), the one
        in more tables; None on a tie."""
        ranked = sorted(self.rows.get(primitive, {}).values(), key=lambda sc: -sc[1])
        if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
            return None
        slug = ranked[0][0]
        return Emitter(primitive, PageLink(RULES, f"p-{slug}", f"{primitive}: its rule in every backend"))


@dataclass(frozen=True)
class Coverage:
    """How much of a module the view links: ops with a location, ops linked to a kernel line
    shown and to a rule, and the ops lacking either, by name."""

    module: str
    ops: int
    located: int
    linked: int
    no_location: tuple[OpCount, ...]
    no_rule: tuple[OpCount, ...]
    not_shown: tuple[OpCount, ...] = ()
    """Located ops whose file the view cannot show (neither the lab's nor a pinned file)."""

    def line(self) -> str:
        """One line: `17/26 ops located, 17/26 linked to a kernel line and a rule; ...`."""
        out = f"{self.located}/{self.ops} ops located, {self.linked}/{self.ops} linked to a kernel line and a rule"
        for label, names in (("no location", self.no_location), ("no rule", self.no_rule),
                             ("file not shown", self.not_shown)):
            if names:
                out += f"; {label}: " + ", ".join(f"{n} x{c}" if c > 1 else n for n, c in names)
        return out


def coverage(module: IrModule, rules: Rules, shown: Iterable[FileKey]) -> Coverage:
    """`module`'s coverage, where `shown` are the files the view can show."""
    files = set(shown)
    no_loc: Counter[str] = Counter()
    no_rule: Counter[str] = Counter()
    not_shown: Counter[str] = Counter()
    linked = 0
    for op in module.ops:
        ruled = rules.emitter(module, op.primitive) is not None
        if not ruled:
            no_rule[f"{op.op} ({op.primitive})" if op.primitive and op.primitive != op.op else op.op] += 1
        if op.loc is None:
            no_loc[op.op] += 1
        elif op.loc.key not in files:
            not_shown[f"{op.op} ({op.loc.file})"] += 1
        elif ruled:
            linked += 1
    located = sum(1 for op in module.ops if op.loc is not None)
    return Coverage(module.id, len(module.ops), located, linked, _sorted(no_loc), _sorted(no_rule),
                    _sorted(not_shown))


def _sorted(c: Counter[str]) -> tuple[OpCount, ...]:
    return tuple(OpCount(*kv) for kv in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))
