"""The `rules.**` facts: what the pins' lowering rule tables hold, per backend, per core type and
across backends, each at the line its table is defined."""

from __future__ import annotations

from reader.extract.fact import Fact
from reader.extract.index import Index
from reader.extract.ruletable import BACKENDS, RuleTable

_TPU_KEYS = {"TC": "tc", "SC_SCALAR_SUBCORE": "sc_scalar", "SC_VECTOR_SUBCORE": "sc_vector"}


def _key_name(table: RuleTable) -> str:
    if table.backend == "tpu":
        return _TPU_KEYS.get(table.key, table.key.lower())
    return table.key.replace("/", "_").lower()


def _table_source(index: Index, backend: str) -> tuple[str, int]:
    """Where a backend's table is defined (`lowering_rules = ...`)."""
    b = next(b for b in BACKENDS if b.name == backend)
    sym = index.symbol(b.module, b.table)
    return (index.files[b.module][1], sym.line) if sym and b.module in index.files else ("", 0)


def rule_facts(tables: list[RuleTable], index: Index) -> list[Fact]:
    out: list[Fact] = []
    by_backend: dict[str, list[RuleTable]] = {}
    for t in tables:
        by_backend.setdefault(t.backend, []).append(t)
    names_by_backend: dict[str, set[str]] = {}
    for backend, group in by_backend.items():
        at = _table_source(index, backend)
        for t in group:
            if t.key:
                out.append(Fact(f"rules.{backend}.{_key_name(t)}.count", len(t.entries),
                                f"primitives in the {backend} table for {t.key}", *at))
        union = {e.primitive.key: e for t in group for e in t.entries}
        names = {e.primitive.name for e in union.values()}
        names_by_backend[backend] = names
        prefix = f"rules.{backend}" + (".union" if group[0].key else "")
        out.append(Fact(f"{prefix}.count", len(union), f"distinct primitives {backend} lowers", *at))
        if group[0].key:
            out.append(Fact(f"{prefix}.names.count", len(names),
                            f"distinct primitive names {backend} lowers", *at))
        out += _registration_facts(backend, group, at)
    if "tpu" in by_backend:
        out += _tpu_all_cores(by_backend["tpu"], _table_source(index, "tpu"))
    out += _cross_backend(names_by_backend, tables)
    return out


def _registration_facts(backend: str, group: list[RuleTable], at: tuple[str, int]) -> list[Fact]:
    forms: dict[str, int] = {}
    paths: set[str] = set()
    for t in group:
        for e in t.entries:
            forms[e.form] = forms.get(e.form, 0) + 1
            paths.add(e.path)
    out = [Fact(f"rules.{backend}.registrations.{form}.count", n,
                f"{backend} rules registered by {form}", *at) for form, n in sorted(forms.items())]
    out += [Fact(f"rules.{backend}.modules.count", len(paths), f"files registering {backend} rules",
                 *at),
            Fact(f"rules.{backend}.modules.names", sorted(paths), f"files registering {backend} rules",
                 *at)]
    return out


def _tpu_all_cores(group: list[RuleTable], at: tuple[str, int]) -> list[Fact]:
    common = set.intersection(*[t.primitives() for t in group])
    names = sorted({e.primitive.name for t in group for e in t.entries if e.primitive.key in common})
    return [Fact("rules.tpu.all_cores.count", len(common), "TPU primitives on every core type", *at),
            Fact("rules.tpu.all_cores.names", names, "TPU primitives on every core type", *at)]


def _cross_backend(names: dict[str, set[str]], tables: list[RuleTable]) -> list[Fact]:
    out = []
    for backend, own in names.items():
        others = set().union(*[n for b, n in names.items() if b != backend])
        only = sorted(own - others)
        out += [Fact(f"rules.only.{backend}.count", len(only), f"primitive names only {backend} lowers"),
                Fact(f"rules.only.{backend}.names", only, f"primitive names only {backend} lowers")]
    common = sorted(set.intersection(*names.values())) if names else []
    out += [Fact("rules.all_backends.count", len(common), "primitive names every backend lowers"),
            Fact("rules.all_backends.names", common, "primitive names every backend lowers")]
    keys_by_name: dict[str, set[str]] = {}
    for t in tables:
        for e in t.entries:
            keys_by_name.setdefault(e.primitive.name, set()).add(e.primitive.key)
    shared = sorted(n for n, keys in keys_by_name.items() if len(keys) > 1)
    out += [Fact("rules.shared_names.count", len(shared), "names of two different primitives"),
            Fact("rules.shared_names.names", shared, "names of two different primitives")]
    return out
