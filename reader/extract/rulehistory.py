"""The lowering rule tables across releases: for each primitive and table, the releases that
register a rule for it, each release read from its archive by the same extractors as the pins."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any, NamedTuple, Protocol

from reader.cache import Cache
from reader.corpus import Corpus
from reader.errors import Location, ReaderError
from reader.extract.index import REFS, SCAN
from reader.extract.parse import Parses
from reader.extract.providers import RULES, load_rules
from reader.extract.ruletable import BACKEND_NAMES, BACKENDS, PrimRef, RuleTable
from reader.pins import Pin
from reader.providers import Provider, how, keep, kept, pickled, running_cache
from reader.workers import Workers

HISTORY_VERSION = 1


@dataclass(frozen=True)
class ReleaseRead:
    """One release of the history: the commit it records, or why its tables could not be read."""

    spec: str
    """`jax==0.10.2`."""
    commit: str
    """The commit the release records; empty when its archive could not be had."""
    failure: str = ""
    """What went wrong, empty when the tables were read."""
    path: str = ""
    """The file (or archive) the failure is located at."""
    line: int | None = None

    @property
    def version(self) -> str:
        return self.spec.partition("==")[2] or self.spec

    @property
    def read(self) -> bool:
        return not self.failure

    @property
    def where(self) -> str:
        return str(Location(self.path, self.line)) if self.path else ""


@dataclass(frozen=True)
class Lowered:
    """One primitive in one table: the releases (versions, oldest first) that register a rule."""

    backend: str
    key: str
    releases: tuple[str, ...]


@dataclass(frozen=True)
class PrimitiveHistory:
    primitive: PrimRef
    """As the newest release that registers it names it."""
    tables: tuple[Lowered, ...]
    """Every table that registers it in some release, in the tables' order."""

    def lowered(self, backend: str, key: str) -> Lowered | None:
        return next((t for t in self.tables if (t.backend, t.key) == (backend, key)), None)


@dataclass(frozen=True)
class Change:
    """A table's primitives that gained or lost a rule between two releases read one after the other."""

    backend: str
    key: str
    gained: tuple[str, ...]
    """Primitive keys absent at some read release and registered at the next."""
    lost: tuple[str, ...]


class TableKey(NamedTuple):
    """A rule table: its backend and its key in the backend's tables."""

    backend: str
    key: str


class ReleaseTables(NamedTuple):
    """A release as read, and its rule tables (None when they could not be read)."""

    read: ReleaseRead
    tables: Sequence[RuleTable] | None


@dataclass(frozen=True)
class RuleHistory:
    releases: tuple[ReleaseRead, ...]
    """Oldest first; the last is the pins' own release."""
    tables: tuple[TableKey, ...]
    """Every table of any release, in BACKENDS order, then first seen."""
    primitives: tuple[PrimitiveHistory, ...]
    """Sorted by name, then key."""

    @property
    def read(self) -> tuple[str, ...]:
        """The versions whose tables were read."""
        return tuple(r.version for r in self.releases if r.read)

    @property
    def failures(self) -> tuple[ReleaseRead, ...]:
        return tuple(r for r in self.releases if not r.read)

    def since(self, lowered: Lowered | None) -> str | None:
        """The first release of the unbroken run of read releases that registers the rule up to the
        newest one; None when the newest release does not register it."""
        if lowered is None or not self.read or self.read[-1] not in lowered.releases:
            return None
        first = self.read[-1]
        for version in reversed(self.read):
            if version not in lowered.releases:
                break
            first = version
        return first

    def changes(self) -> list[Change]:
        """Per table, the primitives that gained a rule at some release and those that lost one."""
        out = []
        for backend, key in self.tables:
            gained, lost = [], []
            for p in self.primitives:
                has = [v in t.releases for v in self.read] if (t := p.lowered(backend, key)) else []
                pairs = list(zip(has, has[1:], strict=False))
                if (False, True) in pairs:
                    gained.append(p.primitive.key)
                if (True, False) in pairs:
                    lost.append(p.primitive.key)
            out.append(Change(backend, key, tuple(gained), tuple(lost)))
        return out

    def to_json(self) -> dict:
        """The history, each table of a primitive with its `since`, each table with its changes
        (derived fields that `from_json` does not read back)."""
        changes = {(c.backend, c.key): c for c in self.changes()}
        return {"version": HISTORY_VERSION,
                "releases": [asdict(r) for r in self.releases],
                "tables": [{"backend": b, "key": k, "gained": list(changes[(b, k)].gained),
                            "lost": list(changes[(b, k)].lost)} for b, k in self.tables],
                "primitives": [{"key": p.primitive.key, "primitive": asdict(p.primitive),
                                "tables": [{**asdict(t), "since": self.since(t)} for t in p.tables]}
                               for p in self.primitives]}

    @classmethod
    def from_json(cls, data: dict) -> RuleHistory:
        return cls(tuple(ReleaseRead(**r) for r in data["releases"]),
                   tuple(TableKey(t["backend"], t["key"]) for t in data["tables"]),
                   tuple(PrimitiveHistory(PrimRef(**p["primitive"]),
                                          tuple(Lowered(t["backend"], t["key"], tuple(t["releases"]))
                                                for t in p["tables"]))
                         for p in data["primitives"]))


def history_of(reads: Sequence[ReleaseTables]) -> RuleHistory:
    """The history from each release's tables (None for a release that could not be read)."""
    order = {n: i for i, n in enumerate(BACKEND_NAMES)}
    tables: dict[TableKey, None] = {}
    seen: dict[tuple[str, str, str], list[str]] = {}
    newest: dict[str, PrimRef] = {}
    for read, release_tables in reads:
        for t in release_tables or ():
            tables.setdefault(TableKey(t.backend, t.key))
            for e in t.entries:
                seen.setdefault((e.primitive.key, t.backend, t.key), []).append(read.version)
                newest[e.primitive.key] = e.primitive
    table_order = sorted(tables, key=lambda bk: (order.get(bk[0], len(order)), list(tables).index(bk)))
    prims = []
    for key, prim in sorted(newest.items(), key=lambda kv: (kv[1].name, kv[0])):
        prims.append(PrimitiveHistory(prim, tuple(
            Lowered(b, k, tuple(seen[(key, b, k)])) for b, k in table_order if (key, b, k) in seen)))
    return RuleHistory(tuple(r for r, _ in reads), tuple(table_order), tuple(prims))


def rules_pin(pins: dict[str, Pin]) -> Pin | None:
    """The pin whose files hold the backends' rule tables (jax), or None."""
    paths = [b.module.replace(".", "/") + ".py" for b in BACKENDS]
    return next((p for p in pins.values() if any(p.covers(path) for path in paths)), None)


class Release(Protocol):
    """A release of a pin as `ReleaseSource` reads it: the pin at the commit it records."""

    @property
    def pin(self) -> Pin: ...


class ReleaseSource[R: Release](Protocol):
    """Where a pin's earlier releases come from (`reader.releases.Archives`, on the fetch side:
    their archives, through the package index): the history is handed it, and reads no archive
    itself."""

    def release(self, pin: Pin, spec: str) -> R:
        """Release `spec` of `pin`'s package, its files in the cache."""
        ...

    def corpus(self, release: R) -> Corpus:
        """The release's files."""
        ...


def _read_release(releases: ReleaseSource[Any], pin: Pin, cache: Cache | None, parses: Parses,
                  spec: str) -> ReleaseTables:
    """One release's tables from its archive, the files they read scanned here (the releases are
    what runs in parallel), the code it shares with the release read before it in this process
    parsed once (`parses`); a failure is kept, located."""
    from reader.extract.index import lazy_index

    commit = ""
    parses.turn()
    try:
        rel = releases.release(pin, spec)
        commit = rel.pin.commit
        corpus = releases.corpus(rel)
        return ReleaseTables(ReleaseRead(spec, commit), load_rules(corpus, lazy_index(corpus, cache), parses))
    except ReaderError as e:
        where = e.location or Location(spec)
        return ReleaseTables(ReleaseRead(spec, commit, e.message, where.path, where.line), None)


type Reads = list[ReleaseTables]


@dataclass(frozen=True)
class History:
    """What the releases' reads read: the pin's name and paths, and the releases (an archive never
    changes); the producer's way to them: the pin and the source of the releases' files."""

    name: str
    paths: tuple[str, ...]
    specs: tuple[str, ...]
    pin: Pin = how()
    releases: ReleaseSource[Any] = how()


def _reads(inputs: History) -> Reads:
    parses = Parses()
    return [_read_release(inputs.releases, inputs.pin, running_cache(), parses, spec) for spec in inputs.specs]


HISTORY: Provider[History, Reads] = Provider("rule-history", History, _reads, pickled(list, frozen=True),
                                            (SCAN, REFS, RULES))
"""Each earlier release's rule tables (`ReleaseTables`), kept when every read succeeded (pickled:
a warm build read 1.5 MB of JSON back into 4,200 entries at 0.06 s, this at 0.03 s; held in memory
while the file is unchanged: `reader serve` builds again and again)."""


def start_history(corpus: Corpus, workers: Workers, releases: ReleaseSource[Any], cache: Cache | None = None,
                  editions: Sequence[Corpus] = ()) -> Callable[[Iterable[RuleTable]], RuleHistory | None]:
    """The rule history of the pin holding the tables, in two steps: the releases not kept start
    now on `workers` (a process per release), and the returned call, given the pins' tables,
    waits for them and gives the history: each release of the pin's `history` read from
    `releases` (its archive; a failure is kept, located), then the pins' own tables as its newest release. A
    release that one of the project's older `editions` pins (its pin's `release`) is read from
    that edition's files instead, as the newest is from the pins (its tables are the edition's
    own, which its build computes anyway). The call gives None when that pin has no
    history."""
    pin = rules_pin(corpus.pins)
    if pin is None or not pin.history:
        return lambda pinned: None
    cache = cache or corpus.cache
    served = _served(pin, editions)
    specs = [spec for spec in pin.history if spec != pin.release and spec not in served]
    # A release's archive never changes: reads every one of which succeeded are kept by the
    # releases (a failed one is tried again on the next run).
    history = History(pin.name, tuple(pin.paths), tuple(specs), pin, releases)
    kept_reads = kept(HISTORY, history, cache)
    started = None if kept_reads is not None else workers.start(
        partial(_read_release, releases, pin, cache, Parses()), specs)

    def finish(pinned: Iterable[RuleTable]) -> RuleHistory:
        if started is None:
            reads: Reads = kept_reads or []
        else:
            reads = started()
            if all(r.read for r, _ in reads):
                keep(HISTORY, history, reads, cache)
        by_spec = {r.spec: (r, tables) for r, tables in reads}
        by_spec |= {spec: _edition_tables(spec, edition, pin, cache) for spec, edition in served.items()}
        own = ReleaseTables(ReleaseRead(pin.release or pin.short, pin.commit), _covered(pin, pinned))
        return history_of([*(ReleaseTables(*by_spec[s]) for s in pin.history if s in by_spec), own])
    return finish


def _covered(pin: Pin, tables: Iterable[RuleTable]) -> list[RuleTable]:
    """`tables` with only the registrations made in files of `pin`'s paths."""
    return [replace(t, entries=tuple(e for e in t.entries if pin.covers(e.path))) for t in tables]


def _served(pin: Pin, editions: Sequence[Corpus]) -> dict[str, Corpus]:
    """The releases of `pin`'s history that an edition's same pin declares it is at (its
    `release`: the release `reader pin` appended to the history when the pin moved on), each
    with that edition's corpus; decided by the project's files alone, whatever the cache holds."""
    out: dict[str, Corpus] = {}
    for edition in editions:
        theirs = edition.pins.get(pin.name)
        if theirs is not None and theirs.release in pin.history and theirs.release != pin.release:
            out.setdefault(theirs.release, edition)
    return out


def _edition_tables(spec: str, edition: Corpus, pin: Pin, cache: Cache) -> ReleaseTables:
    """Release `spec` as an edition pins it: its tables (kept by the edition's build), those of
    files the pin's paths cover; a failure kept, located."""
    from reader.extract.index import lazy_index

    commit = edition.pins[pin.name].commit
    try:
        tables = load_rules(edition, lazy_index(edition, cache))
    except ReaderError as e:
        where = e.location or Location(spec)
        return ReleaseTables(ReleaseRead(spec, commit, e.message, where.path, where.line), None)
    return ReleaseTables(ReleaseRead(spec, commit), _covered(pin, tables))
