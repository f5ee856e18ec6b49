"""The kept extractions as providers (reader/extract/providers.py): a result is produced once per
set of pinned blobs and read back after; a provider reads only the providers it declares, and two
that need each other are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from reader.cache import Cache
from reader.errors import BuildError
from reader.extract.providers import FACTS, RULES, Inputs, Provider, provide


class Pins:
    """The part of a corpus a provider's key reads: its files with their blobs, and its cache."""

    def __init__(self, cache: Cache, blobs: dict[str, str]):
        self.cache, self.blobs = cache, blobs

    def all_files(self) -> list[tuple[str, str]]:
        return [("up", path) for path in sorted(self.blobs)]

    def blob(self, pin: str, path: str) -> str:
        return self.blobs[path]


def _counting(kind: str, needs=(), value=lambda needs: 1) -> tuple[Provider[int], list[str]]:
    produced: list[str] = []

    def produce(inputs, got):
        produced.append(kind)
        return value(got)
    return Provider(kind, tuple(needs), produce, lambda v: v, lambda data: data), produced


def test_a_result_is_produced_once_per_set_of_blobs(tmp_path: Path):
    base, produced = _counting("base")
    top, _ = _counting("top", (base,), lambda got: got[base] + 1)
    pins = Pins(Cache(tmp_path), {"a.py": "1" * 40})
    assert provide(top, Inputs(pins)) == 2 and produced == ["base"]  # type: ignore[arg-type]
    assert provide(top, Inputs(pins)) == 2 and produced == ["base"]  # type: ignore[arg-type]
    pins.blobs["a.py"] = "2" * 40  # another blob: another key
    assert provide(base, Inputs(pins)) == 1 and produced == ["base", "base"]  # type: ignore[arg-type]


def test_a_provider_reads_only_what_it_declares(tmp_path: Path):
    base, _ = _counting("base")
    sneaky, _ = _counting("sneaky", (), lambda got: got[base])
    with pytest.raises(BuildError, match="reads 'base', which it does not declare"):
        provide(sneaky, Inputs(Pins(Cache(tmp_path), {})))  # type: ignore[arg-type]


def test_providers_that_need_each_other_are_refused(tmp_path: Path):
    needs: list[Provider[int]] = []
    a, _ = _counting("a", (), lambda got: got[needs[0]])
    b, _ = _counting("b", (a,), lambda got: got[a])
    object.__setattr__(a, "needs", (b,))
    needs.append(b)
    with pytest.raises(BuildError, match="providers need each other: a -> b -> a"):
        provide(a, Inputs(Pins(Cache(tmp_path), {})))  # type: ignore[arg-type]


def test_the_facts_declare_the_rule_tables():
    assert FACTS.needs == (RULES,) and RULES.needs == ()
