"""The extractions kept per set of pinned blobs, as providers (`reader.providers`): the rule
tables, and the facts, which need them. Their inputs are the corpus (keyed by its pinned blobs);
the index and the worker processes change how they are computed, never what. The models
(`ruletable.py`, `fact.py`) import no producer; a producer (`rules.py`, `facts.py`, with libcst)
loads only on a miss."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from reader.corpus import Corpus
from reader.errors import Location
from reader.extract.fact import Fact, Facts, Unknown
from reader.extract.index import LINES, REFS, SCAN, USES, USES_OF, Index
from reader.extract.parse import Parses
from reader.extract.ruletable import RuleTable
from reader.providers import Provider, as_json, how, provide, running_cache
from reader.workers import Workers


@dataclass(frozen=True)
class Pinned:
    """What an extraction reads: the pinned files; their index (None: the producer builds one),
    the processes it may use and the trees it may share with readers of other corpora."""

    corpus: Corpus
    index: Index | None = how()
    workers: Workers | None = how()
    parses: Parses | None = how()


def _rule_tables(inputs: Pinned) -> list[RuleTable]:
    from reader.extract.rules import rule_tables  # libcst: only on a miss

    corpus, index = inputs.corpus, inputs.index
    assert index is not None, "the rule tables are read through the corpus's index"
    return rule_tables(index, lambda m: corpus.read_text(*index.files[m]), inputs.parses)


RULES: Provider[Pinned, list[RuleTable]] = Provider(
    "rules", Pinned, _rule_tables, as_json(list, lambda tables: [t.to_json() for t in tables],
                                           lambda data: [RuleTable.from_json(t) for t in data]), (SCAN, REFS))
"""The lowering rule tables of the pins (`rules.rule_tables`)."""


def _facts(inputs: Pinned) -> Facts:
    from reader.extract.facts import compute_facts  # the extractors (libcst): only on a miss

    corpus = inputs.corpus
    return compute_facts(corpus, inputs.index, inputs.workers,
                         lambda index: provide(RULES, Pinned(corpus, index), running_cache()))


def _dump_facts(facts: Facts) -> dict[str, Any]:
    return {"facts": [asdict(f) for f in facts.facts], "unknown": [asdict(u) for u in facts.unknown]}


def _load_facts(data: dict[str, Any]) -> Facts:
    return Facts(tuple(Fact(**d) for d in data["facts"]),
                 tuple(Unknown(tuple(u["names"]), Location(**u["where"]), u["reason"], u["hint"])
                       for u in data["unknown"]))


FACTS: Provider[Pinned, Facts] = Provider("facts", Pinned, _facts, as_json(dict, _dump_facts, _load_facts),
                                          (SCAN, REFS, USES, USES_OF, LINES, RULES))
"""Every fact for `{{fact:NAME}}` (`facts.compute_facts`), an `Unknown` for those the pins do not give."""


def load_rules(corpus: Corpus, index: Index, parses: Parses | None = None) -> list[RuleTable]:
    """The rule tables of the pinned corpus: computed once per set of blobs (their trees shared
    through `parses`), then kept."""
    return provide(RULES, Pinned(corpus, index, parses=parses), corpus.cache)


def load_facts(corpus: Corpus, index: Index | None = None, workers: Workers | None = None) -> Facts:
    """Every fact, computed once per set of pinned blobs (on `workers`), then kept."""
    return provide(FACTS, Pinned(corpus, index, workers), corpus.cache)
