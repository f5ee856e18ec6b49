"""A lab's runs on a chip as the site shows them: the committed records `kernels/runs/<chip>/<lab>.json`
that `benchmarks/chip.py` writes (kernels/_record.py), read, validated and checked for staleness.

A record holds the lab's source as it ran (its sha256 checked on reading). It is stale when the
lab's code differs from that source's: their syntax trees compared without docstrings and without
the site's build-time hooks (`lowerings`, `artifacts`: no chip run calls them), so an edit of the
prose, the comments or what the page lowers keeps the measurement."""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reader.cache import Cache
from reader.errors import InputError, Location
from reader.providers import Blob, Provider, as_json, how, provide

SCHEMA = 1
RUNS = "kernels/runs"
REMEASURE = "python3 benchmarks/chip.py --only {lab}"


@dataclass(frozen=True)
class RecordCheck:
    name: str
    dtype: str
    error: float
    tolerance: float
    passed: bool


@dataclass(frozen=True)
class RecordTiming:
    name: str
    median_ms: float
    min_ms: float
    max_ms: float
    runs: int
    tflops: float
    peer: bool


@dataclass(frozen=True)
class RecordRatio:
    name: str
    value: float
    target: float | None
    at_least: bool
    meets: bool | None
    note: str


@dataclass(frozen=True)
class RecordRefusal:
    form: str
    stage: str
    message: str


@dataclass(frozen=True)
class LabRecord:
    """One lab's run on one chip, as committed."""

    path: str
    """Relative to the project root: `kernels/runs/tpu-v5-lite/tiled_matmul.json`."""
    lab: str
    device_kind: str
    versions: tuple[tuple[str, str], ...]
    date: str
    source_sha256: str
    command: str
    passed: bool
    checks: tuple[RecordCheck, ...]
    timings: tuple[RecordTiming, ...]
    ratios: tuple[RecordRatio, ...]
    refusals: tuple[RecordRefusal, ...]
    notes: tuple[str, ...]
    source: str
    """The lab's file as it ran (`source_sha256` is its hash)."""

    def stale(self, lab_bytes: bytes) -> bool:
        """Whether the lab's code changed since this run (docstrings and comments aside)."""
        if hashlib.sha256(lab_bytes).hexdigest() == self.source_sha256:
            return False
        try:
            return measured_code(lab_bytes.decode("utf-8")) != measured_code(self.source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            return True

    @property
    def remeasure(self) -> str:
        return REMEASURE.format(lab=self.lab)


SITE_HOOKS = frozenset({"lowerings", "artifacts"})
"""A lab's functions that only the site's build calls (reader/labs/child.py), never `chip()`."""


def measured_code(text: str) -> str:
    """A module's syntax tree without its docstrings and its site hooks: what a chip run depends on."""
    tree = ast.parse(text)
    tree.body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name in SITE_HOOKS)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def records_of(root: Path, lab: str) -> tuple[LabRecord, ...]:
    """Every committed record of `lab`, one per chip, in chip order."""
    return tuple(read_record(root, path) for path in sorted((root / RUNS).glob(f"*/{lab}.json")))


def all_records(root: Path) -> Iterator[LabRecord]:
    for path in sorted((root / RUNS).glob("*/*.json")):
        yield read_record(root, path)


def read_record(root: Path, path: Path) -> LabRecord:
    """A record file parsed and checked; `InputError` at its line when it is not one."""
    rel = path.relative_to(root).as_posix()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"not JSON: {e.msg}", Location(rel, e.lineno),
                         "a record is written by benchmarks/chip.py; measure the lab again") from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", Location(rel, 1), "a record is JSON written by benchmarks/chip.py") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise InputError(f"not a lab record of schema {SCHEMA}", Location(rel, 1),
                         "measure the lab again with benchmarks/chip.py")
    if data.get("lab") != path.stem:
        raise InputError(f"records lab {data.get('lab')!r} but is named {path.name}", Location(rel, 1),
                         f"move it to {path.parent.as_posix()}/{data.get('lab')}.json, or measure again")
    try:
        return _record(rel, data)
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(f"malformed lab record ({type(e).__name__}: {e})", Location(rel, _line_of(path, e)),
                         "measure the lab again with benchmarks/chip.py") from None


def _record(rel: str, d: Mapping[str, Any]) -> LabRecord:
    return LabRecord(
        rel, str(d["lab"]), str(d["device_kind"]), tuple((str(k), str(v)) for k, v in d["versions"].items()),
        str(d["date"]), str(d["source_sha256"]), str(d["command"]), bool(d["passed"]),
        tuple(RecordCheck(str(c["name"]), str(c["dtype"]), float(c["error"]), float(c["tolerance"]),
                          bool(c["passed"])) for c in d["checks"]),
        tuple(RecordTiming(str(t["name"]), float(t["median_ms"]), float(t["min_ms"]), float(t["max_ms"]),
                           int(t["runs"]), float(t["tflops"]), bool(t["peer"])) for t in d["timings"]),
        tuple(RecordRatio(str(r["name"]), float(r["value"]), None if r["target"] is None else float(r["target"]),
                          bool(r["at_least"]), r["meets"], str(r["note"])) for r in d["ratios"]),
        tuple(RecordRefusal(str(r["form"]), str(r["stage"]), str(r["message"])) for r in d["refusals"]),
        tuple(str(n) for n in d["notes"]), _source(d))


def _source(d: Mapping[str, Any]) -> str:
    source = str(d["source"])
    if hashlib.sha256(source.encode("utf-8")).hexdigest() != d["source_sha256"]:
        raise ValueError("its source does not hash to its source_sha256")
    return source


def _line_of(path: Path, e: BaseException) -> int:
    """The line of the key a KeyError names (1 if none)."""
    key = e.args[0] if isinstance(e, KeyError) and e.args else None
    if isinstance(key, str):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if f'"{key}"' in line:
                return n
    return 1


@dataclass(frozen=True)
class StaleRecord:
    """A record measured from a lab file that has changed since."""

    record: LabRecord

    @property
    def where(self) -> Location:
        return Location(self.record.path, 1)

    @property
    def message(self) -> str:
        r = self.record
        return (f"the record of lab {r.lab!r} on {r.device_kind} ({r.date}) is stale: the code of "
                f"kernels/{r.lab}.py changed since it was measured")

    @property
    def hint(self) -> str:
        return f"measure it again on a TPU: {self.record.remeasure} (then commit the record)"


def stale_records(root: Path, cache: Cache | None = None) -> list[StaleRecord]:
    """Each record whose lab's code changed since it was measured (`LabRecord.stale`; a record of a
    lab that no longer exists counts too); with `cache`, each verdict kept as a provider (`STALE`)."""
    out = []
    for record in all_records(root):
        source = root / "kernels" / f"{record.lab}.py"
        if not source.is_file() or _stale(record, source.read_bytes(), cache):
            out.append(StaleRecord(record))
    return out


@dataclass(frozen=True)
class Staleness:
    """What a record's staleness reads: the lab's bytes and the source the record ran (by their
    digests); the record itself, to compare them."""

    lab: Blob
    ran: str
    record: LabRecord | None = how()


def _staleness(inputs: Staleness) -> bool:
    assert inputs.record is not None
    return inputs.record.stale(inputs.lab.read())


STALE: Provider[Staleness, bool] = Provider("record-stale", Staleness, _staleness, as_json(bool))
"""Whether a chip record's lab changed since it was measured (`LabRecord.stale`)."""


def _stale(record: LabRecord, lab_bytes: bytes, cache: Cache | None) -> bool:
    inputs = Staleness(Blob(hashlib.sha256(lab_bytes).hexdigest(), lambda: lab_bytes), record.source_sha256, record)
    return provide(STALE, inputs, cache)
