"""Facts about each TPU chip, read with libcst from the pinned `jax/_src/tpu_info.py`: the
`TpuInfo` that `_get_tpu_info_impl` builds per chip version (its numbers per TensorCore), the
chip's physical TensorCores, and the operand formats `TpuInfo.is_matmul_supported` accepts.

Nothing here is typed: every value is the pinned expression evaluated (`int(7.16e11 //
tensor_cores_per_chip)` with the chip's own core count), and keeps the line it is read at.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import libcst as cst

from reader.corpus import Corpus
from reader.extract.fact import Fact
from reader.extract.sm90_source import Source, walk

TPU_INFO_PATH = "jax/_src/tpu_info.py"
_IMPL = "_get_tpu_info_impl"
_CORES = "num_physical_tensor_cores_per_chip"
_CORES_NAME = "tensor_cores_per_chip"
_PARAMETERS = ("chip_version", "num_cores")
"""Keywords that pass `_get_tpu_info_impl`'s arguments through: not properties of a chip."""

Number = int | float
_OPS: dict[type[cst.BaseBinaryOp], Callable[[Number, Number], Number]] = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv, cst.Divide: operator.truediv}


@dataclass(frozen=True)
class Field:
    """One keyword of a chip's `TpuInfo(...)` (`sparse_core.num_lanes` for a nested one)."""

    name: str
    value: int
    line: int


class OperandFormats(NamedTuple):
    """The formats a matmul accepts for its left operand with those for its right."""

    lhs: tuple[str, ...]
    rhs: tuple[str, ...]


@dataclass(frozen=True)
class Chip:
    """One chip version as `tpu_info.py` describes it."""

    version: str
    """The member's value, `v5e` or `7x`: the name's component in `tpu.chip.<version>.*`."""
    member: str
    cores: int
    """Physical TensorCores per chip (`ChipVersion.num_physical_tensor_cores_per_chip`)."""
    line: int
    """The `case` of `_get_tpu_info_impl` that builds its `TpuInfo`."""
    fields: tuple[Field, ...]
    matmul: tuple[OperandFormats, ...]
    """The operand formats `is_matmul_supported` accepts, in source order."""
    matmul_line: int

    def field(self, name: str) -> int:
        return next(f.value for f in self.fields if f.name == name)


class _Reader(Source):
    """The pinned file parsed once, with errors located in it."""

    def __init__(self, text: str):
        super().__init__(text, TPU_INFO_PATH, "reader/extract/tpu_facts.py")

    def method(self, cls: cst.ClassDef, name: str) -> cst.FunctionDef:
        found = next((n for n in cls.body.body if isinstance(n, cst.FunctionDef)
                      and n.name.value == name), None)
        if found is None:
            raise self.fail(f"{cls.name.value}.{name}", cls)
        return found

    def match(self, fn: cst.FunctionDef) -> cst.Match:
        found = next((n for n in walk(fn) if isinstance(n, cst.Match)), None)
        if found is None:
            raise self.fail(f"the match statement of {fn.name.value}", fn)
        return found

    def number(self, node: cst.BaseExpression, env: Mapping[str, Number]) -> Number:
        if isinstance(node, (cst.Integer, cst.Float)):
            return node.evaluated_value
        if isinstance(node, cst.Name) and node.value in env:
            return env[node.value]
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in _OPS:
            return _OPS[type(node.operator)](self.number(node.left, env), self.number(node.right, env))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                and node.func.value == "int" and len(node.args) == 1:
            return int(self.number(node.args[0].value, env))
        raise self.fail("a number", node)

    def integer(self, node: cst.BaseExpression, env: Mapping[str, Number]) -> int:
        value = self.number(node, env)
        if not isinstance(value, int):
            raise self.fail("an integer", node)
        return value


def _members(case: cst.MatchCase) -> list[str]:
    """`case ChipVersion.A | ChipVersion.B:` -> ["A", "B"]; `case _:` -> []."""
    pattern = case.pattern
    patterns = [p.pattern for p in pattern.patterns] if isinstance(pattern, cst.MatchOr) else [pattern]
    return [p.value.attr.value for p in patterns
            if isinstance(p, cst.MatchValue) and isinstance(p.value, cst.Attribute)]


def _returned(case: cst.MatchCase) -> cst.BaseExpression | None:
    return next((n.value for n in walk(case) if isinstance(n, cst.Return) and n.value), None)


def _versions(r: _Reader) -> dict[str, str]:
    """ChipVersion member -> its value (`TPU_V5E` -> `v5e`), in class order."""
    out = {}
    for stmt in r.cls("ChipVersion").body.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name) \
                and isinstance(small.value, cst.SimpleString):
            out[small.targets[0].target.value] = str(small.value.evaluated_value)
    if not out:
        raise r.fail("the members of ChipVersion")
    return out


def _cores(r: _Reader) -> dict[str, int]:
    """ChipVersion member -> `num_physical_tensor_cores_per_chip`."""
    out = {}
    for case in r.match(r.method(r.cls("ChipVersion"), _CORES)).cases:
        value = _returned(case)
        for m in _members(case):
            if value is None:
                raise r.fail(f"the core count of {m}", case)
            out[m] = r.integer(value, {})
    return out


def _kwargs(r: _Reader, call: cst.Call, env: Mapping[str, Number], prefix: str = "") -> Iterator[Field]:
    for arg in call.args:
        if arg.keyword is None:
            raise r.fail("a keyword argument", arg)
        name = prefix + arg.keyword.value
        if isinstance(arg.value, cst.Call) and isinstance(arg.value.func, cst.Name) \
                and arg.value.func.value != "int":
            yield from _kwargs(r, arg.value, env, name + ".")
        elif name not in _PARAMETERS:
            yield Field(name, r.integer(arg.value, env), r.line(arg))


def _infos(r: _Reader, cores: Mapping[str, int]) -> dict[str, tuple[int, tuple[Field, ...]]]:
    """ChipVersion member -> (line of its case, the evaluated keywords of its `TpuInfo(...)`)."""
    fn = r.function(_IMPL)
    common: dict[str, Number] = {}
    for stmt in fn.body.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name) \
                and isinstance(small.value, (cst.Integer, cst.Float)):
            common[small.targets[0].target.value] = small.value.evaluated_value
    out = {}
    for case in r.match(fn).cases:
        call = _returned(case)
        members = _members(case)
        if members and not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
                            and call.func.value == "TpuInfo"):
            raise r.fail(f"the TpuInfo of {members[0]}", case)
        for m in members:
            if m not in cores:
                raise r.fail(f"the core count of {m}", case)
            env = {**common, _CORES_NAME: cores[m]}
            assert isinstance(call, cst.Call)
            out[m] = (r.line(case), tuple(_kwargs(r, call, env)))
    return out


def _dtype_names(fn: cst.FunctionDef) -> dict[str, str]:
    """The local aliases of `is_matmul_supported`: `BF16 = dtypes.bfloat16` -> `bfloat16`."""
    out = {}
    for n in walk(fn):
        if isinstance(n, cst.Assign) and isinstance(n.targets[0].target, cst.Name) \
                and isinstance(n.value, cst.Attribute):
            out[n.targets[0].target.value] = n.value.attr.value
    return out


def _formats(r: _Reader, node: cst.BaseExpression, names: Mapping[str, str]) -> tuple[str, ...]:
    elements = node.elements if isinstance(node, cst.Tuple) else [cst.Element(node)]
    out = []
    for e in elements:
        if not (isinstance(e.value, cst.Name) and e.value.value in names):
            raise r.fail("a dtype", e.value)
        out.append(names[e.value.value])
    return tuple(out)


def _pairs(r: _Reader, node: cst.BaseExpression,
           names: Mapping[str, str]) -> list[OperandFormats]:
    """`a or b` -> pairs of both; `lhs in X and rhs in Y` -> [(X, Y)]; `lhs == rhs == X`."""
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
        return _pairs(r, node.left, names) + _pairs(r, node.right, names)
    sides: dict[str, tuple[str, ...]] = {}
    tests = [node.left, node.right] if isinstance(node, cst.BooleanOperation) \
        and isinstance(node.operator, cst.And) else [node]
    for t in tests:
        if not isinstance(t, cst.Comparison) or not isinstance(t.left, cst.Name):
            raise r.fail("an operand test", t)
        if len(t.comparisons) == 1 and isinstance(t.comparisons[0].operator, cst.In):
            sides[t.left.value] = _formats(r, t.comparisons[0].comparator, names)
        elif len(t.comparisons) == 2 and all(isinstance(c.operator, cst.Equal) for c in t.comparisons):
            other = t.comparisons[0].comparator
            both = _formats(r, t.comparisons[1].comparator, names)
            sides[t.left.value] = both
            sides[other.value if isinstance(other, cst.Name) else ""] = both
        else:
            raise r.fail("an operand test", t)
    if set(sides) != {"lhs_dtype", "rhs_dtype"}:
        raise r.fail("a test of both operands", node)
    return [OperandFormats(sides["lhs_dtype"], sides["rhs_dtype"])]


def _matmul(r: _Reader) -> dict[str, tuple[int, list[OperandFormats]]]:
    fn = r.method(r.cls("TpuInfo"), "is_matmul_supported")
    names = _dtype_names(fn)
    out = {}
    for case in r.match(fn).cases:
        value = _returned(case)
        for m in _members(case):
            if value is None:
                raise r.fail(f"the formats of {m}", case)
            out[m] = (r.line(case), _pairs(r, value, names))
    return out


def tpu_chips(text: str) -> list[Chip]:
    """Every chip version of the pinned file, in `ChipVersion` order."""
    r = _Reader(text)
    versions, cores = _versions(r), _cores(r)
    infos, matmul = _infos(r, cores), _matmul(r)
    out = []
    for member, version in versions.items():
        if member not in infos or member not in cores:
            raise r.fail(f"the TpuInfo or core count of {member}", r.cls("ChipVersion"))
        line, fields = infos[member]
        mm_line, pairs = matmul.get(member, (0, []))
        out.append(Chip(version, member, cores[member], line, fields, tuple(pairs), mm_line))
    return out


def _matmul_text(chip: Chip) -> str:
    return "; ".join(f"{'/'.join(lhs)} × {'/'.join(rhs)}" for lhs, rhs in chip.matmul) or "none"


def _decimal(x: float) -> str:
    return f"{x:.4g}"


def chip_facts(chip: Chip) -> list[Fact]:
    """One chip's facts: every `TpuInfo` keyword as read, and readable units beside them."""
    p = f"tpu.chip.{chip.version}"
    by = {f.name: f for f in chip.fields}

    def derived(name: str, field: str, value: int | str, about: str) -> Fact:
        return Fact(f"{p}.{name}", value, about, TPU_INFO_PATH, by[field].line)

    out = [Fact(f"{p}.{f.name}", f.value, f"TpuInfo.{f.name} of {chip.version}, per TensorCore",
                TPU_INFO_PATH, f.line) for f in chip.fields]
    out += [Fact(f"{p}.cores", chip.cores, f"physical TensorCores of a {chip.version} chip",
                 TPU_INFO_PATH, chip.line),
            derived("vmem_mib", "vmem_capacity_bytes", by["vmem_capacity_bytes"].value // 2**20,
                    "VMEM per TensorCore, MiB"),
            derived("smem_kib", "smem_capacity_bytes", by["smem_capacity_bytes"].value // 2**10,
                    "SMEM per TensorCore, KiB"),
            derived("hbm_gb", "hbm_capacity_bytes", _decimal(by["hbm_capacity_bytes"].value / 1e9),
                    "HBM per TensorCore, GB"),
            derived("hbm_gbps", "mem_bw_bytes_per_second",
                    _decimal(by["mem_bw_bytes_per_second"].value / 1e9),
                    "HBM bandwidth per TensorCore, GB/s"),
            derived("bf16_tflops", "bf16_ops_per_second", _decimal(by["bf16_ops_per_second"].value / 1e12),
                    "peak bf16 rate per TensorCore, TFLOP/s"),
            Fact(f"{p}.matmul", _matmul_text(chip), "operand formats the MXU takes natively (left × right)",
                 TPU_INFO_PATH, chip.matmul_line)]
    return out


def tpu_facts(text: str) -> list[Fact]:
    """Every chip's facts, and the list of chips."""
    chips = tpu_chips(text)
    line = chips[0].line if chips else 0
    out = [Fact("tpu.chips.count", len(chips), "chip versions tpu_info.py describes", TPU_INFO_PATH, line),
           Fact("tpu.chips.names", [c.version for c in chips], "chip versions tpu_info.py describes",
                TPU_INFO_PATH, line)]
    for c in chips:
        out += chip_facts(c)
    return out


def load_tpu_facts(corpus: Corpus) -> list[Fact]:
    """The facts above, when `tpu_info.py` is pinned."""
    return tpu_facts(corpus.read_text("jax", TPU_INFO_PATH)) if corpus.has("jax", TPU_INFO_PATH) else []
