"""The extractions kept per set of pinned blobs, as providers with declared inputs (LibCST's
metadata providers): each names the cache kind it is kept under, the providers it needs and the
producer that computes it. `provide` reads a result back from the cache or runs its producer, a
needed provider resolved when the producer first asks for it, and refuses a cycle. The models
(`ruletable.py`, `fact.py`) import no producer; a producer (`rules.py`, `facts.py`, with libcst)
loads only on a miss."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from reader.corpus import Corpus
from reader.errors import BuildError, Location
from reader.extract.fact import Fact, Facts, Unknown
from reader.extract.index import Index, corpus_key
from reader.extract.ruletable import RuleTable
from reader.workers import Workers


@dataclass(frozen=True)
class Inputs:
    """What every producer reads: the pinned files, their index (None: the producer builds one)
    and the processes it may use."""

    corpus: Corpus
    index: Index | None = None
    workers: Workers | None = None


class Needs(Mapping["Provider[Any]", Any]):
    """A producer's declared inputs, each provided when first asked for (a producer whose own
    failure is a finding asks inside its own error handling)."""

    def __init__(self, provider: Provider[Any], inputs: Inputs, path: tuple[Provider[Any], ...]):
        self._provider, self._inputs, self._path = provider, inputs, path
        self._got: dict[Provider[Any], Any] = {}

    def __getitem__[N](self, need: Provider[N]) -> N:
        if need not in self._provider.needs:
            raise BuildError(f"provider {self._provider.kind!r} reads {need.kind!r}, which it does not declare",
                             Location(__file__), "add it to the provider's needs")
        if need not in self._got:
            self._got[need] = provide(need, self._inputs, (*self._path, self._provider))
        return self._got[need]

    def at(self, index: Index) -> Needs:
        """The same needs, provided through `index` (one the producer built)."""
        return Needs(self._provider, replace(self._inputs, index=index), self._path)

    def __iter__(self) -> Iterator[Provider[Any]]:
        return iter(self._provider.needs)

    def __len__(self) -> int:
        return len(self._provider.needs)


@dataclass(frozen=True, eq=False)
class Provider[T]:
    """One kept extraction: its cache kind, the providers its producer reads, the producer, and
    its JSON form."""

    kind: str
    needs: tuple[Provider[Any], ...]
    produce: Callable[[Inputs, Needs], T]
    dump: Callable[[T], Any]
    load: Callable[[Any], T]


def provide[T](provider: Provider[T], inputs: Inputs, path: tuple[Provider[Any], ...] = ()) -> T:
    """`provider`'s result at the corpus's blobs: kept, or produced (its needs first) and kept."""
    if provider in path:
        cycle = " -> ".join(p.kind for p in (*path[path.index(provider):], provider))
        raise BuildError(f"providers need each other: {cycle}", Location(__file__),
                         "a provider may need only those declared before it")
    corpus = inputs.corpus
    key = corpus_key(corpus, provider.kind)
    data = corpus.cache.get_json(provider.kind, key)
    if data is not None:
        return provider.load(data)
    value = provider.produce(inputs, Needs(provider, inputs, path))
    corpus.cache.put_json(provider.kind, key, provider.dump(value))
    return value


def _rule_tables(inputs: Inputs, _needs: Needs) -> list[RuleTable]:
    from reader.extract.rules import rule_tables  # libcst: only on a miss

    corpus, index = inputs.corpus, inputs.index
    assert index is not None, "the rule tables are read through the corpus's index"
    return rule_tables(index, lambda m: corpus.read_text(*index.files[m]))


RULES: Provider[list[RuleTable]] = Provider(
    "rules", (), _rule_tables, lambda tables: [t.to_json() for t in tables],
    lambda data: [RuleTable.from_json(t) for t in data])
"""The lowering rule tables of the pins (`rules.rule_tables`)."""


def _facts(inputs: Inputs, needs: Needs) -> Facts:
    from reader.extract.facts import compute_facts  # the extractors (libcst): only on a miss

    return compute_facts(inputs.corpus, inputs.index, inputs.workers, lambda index: needs.at(index)[RULES])


def _dump_facts(facts: Facts) -> dict[str, Any]:
    return {"facts": [asdict(f) for f in facts.facts], "unknown": [asdict(u) for u in facts.unknown]}


def _load_facts(data: dict[str, Any]) -> Facts:
    return Facts(tuple(Fact(**d) for d in data["facts"]),
                 tuple(Unknown(tuple(u["names"]), Location(**u["where"]), u["reason"], u["hint"])
                       for u in data["unknown"]))


FACTS: Provider[Facts] = Provider("facts", (RULES,), _facts, _dump_facts, _load_facts)
"""Every fact for `{{fact:NAME}}` (`facts.compute_facts`), an `Unknown` for those the pins do not give."""


def load_rules(corpus: Corpus, index: Index) -> list[RuleTable]:
    """The rule tables of the pinned corpus: computed once per set of blobs, then kept."""
    return provide(RULES, Inputs(corpus, index))


def load_facts(corpus: Corpus, index: Index | None = None, workers: Workers | None = None) -> Facts:
    """Every fact, computed once per set of pinned blobs (on `workers`), then kept."""
    return provide(FACTS, Inputs(corpus, index, workers))
