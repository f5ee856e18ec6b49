"""Computed facts: documented names, values that agree with the runtime, sources, cache, CLI."""

from __future__ import annotations

import ast
import importlib
import json
import textwrap
from pathlib import Path

import pytest

from reader.cli import main
from reader.corpus import Corpus, Project
from reader.extract import facts as facts_mod
from reader.extract import index_from_sources
from reader.extract.fact import ExtractError, name_pattern
from reader.extract.facts import (
    NAMES,
    SM90_MODULE,
    all_facts,
    barrier_facts,
)
from reader.extract.providers import load_facts
from reader.model import module_of

ROOT = Path(__file__).resolve().parents[1]


def documented(name: str) -> bool:
    """Whether `name` matches one of the NAMES patterns."""
    return any(name_pattern(p).fullmatch(name) for p, _ in NAMES)


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.open(Project.load(ROOT))


@pytest.fixture(scope="module")
def facts(corpus):
    return {f.name: f for f in load_facts(corpus)}


def test_every_fact_is_documented_and_every_pattern_used(facts):
    undocumented = [n for n in facts if not documented(n)]
    assert undocumented == []
    unused = [p for p, _ in NAMES if not any(name_pattern(p).fullmatch(n) for n in facts)]
    assert unused == []


def test_every_fact_is_computed_at_the_pins(corpus, facts):
    loaded = load_facts(corpus)
    assert loaded.unknown == () and loaded.values == {n: f.value for n, f in facts.items()}
    assert all(isinstance(v, (int, str, list)) for v in loaded.values.values())


def test_rule_counts_equal_the_runtime_registries(facts):
    import jax.experimental.pallas  # noqa: F401
    for sub in ("tpu", "tpu_sc", "triton", "mosaic_gpu", "fuser"):
        importlib.import_module(f"jax.experimental.pallas.{sub}")
    from jax._src.pallas.mosaic import lowering as tpu
    from jax._src.pallas.mosaic_gpu import lowering as mgpu
    from jax._src.pallas.triton import lowering as triton
    short = {"TC": "tc", "SC_SCALAR_SUBCORE": "sc_scalar", "SC_VECTOR_SUBCORE": "sc_vector"}
    for core, rules in tpu.lowering_rules.items():
        assert facts[f"rules.tpu.{short[core.name]}.count"].value == len(rules)
    assert facts["rules.tpu.union.count"].value == len(set().union(*tpu.lowering_rules.values()))
    assert facts["rules.tpu.union.names.count"].value == len(
        {p.name for p in set().union(*tpu.lowering_rules.values())})
    assert facts["rules.triton.count"].value == len(triton.triton_lowering_rules)
    for (lowering, prim), rules in mgpu.mosaic_lowering_rules.items():
        name = f"{lowering.name}_{prim.name}".lower()
        assert facts[f"rules.mosaic_gpu.{name}.count"].value == len(rules)
    assert facts["rules.mosaic_gpu.union.count"].value == len(
        set().union(*mgpu.mosaic_lowering_rules.values()))


def test_fact_sources_point_at_the_definition(corpus, facts):
    for name, needle in [("rules.tpu.tc.count", "lowering_rules"),
                         ("rules.triton.count", "triton_lowering_rules"),
                         ("blockspec.fields.count", "class BlockSpec"),
                         ("pallas_call.line", "def pallas_call("),
                         ("pipeline.predicates.count", "def out_of_fetch"),
                         ("memory_spaces.tpu.names", "class MemorySpace"),
                         ("tokamax.sm90.barriers.count", "Barrier(")]:
        f = facts[name]
        pin = corpus.pin_of(f.path)
        assert pin is not None, name
        assert needle in corpus.read_text(pin, f.path).splitlines()[f.line - 1], name


def test_structure_facts_agree_with_the_installed_classes(facts):
    import dataclasses

    from jax._src.pallas import core
    from jax._src.pallas.mosaic import core as tpu_core
    assert facts["blockspec.fields.names"].value == [f.name for f in dataclasses.fields(core.BlockSpec)]
    assert facts["gridspec.fields.count"].value == len(dataclasses.fields(core.GridSpec))
    assert facts["memory_spaces.tpu.names"].value == [m.name for m in tpu_core.MemorySpace]
    assert facts["tpu.core_types.names"].value == [m.name for m in tpu_core.CoreType]


def test_pipeline_predicates_are_the_installed_schedulers_yes_or_no_methods(facts):
    """The static extractor against the running code: a method of the installed `Scheduler`
    is a predicate when, asked about a ref with nothing to fetch, it answers a bool."""
    import inspect
    import types

    from jax._src.pallas.mosaic import pipeline
    idle = types.SimpleNamespace(is_buffered=False, is_trivial_windowing=True, has_indirect=False)
    answers_bool = []
    for name, method in vars(pipeline.Scheduler).items():
        if not inspect.isfunction(method):
            continue
        try:
            answer = method(None, idle)  # no Scheduler: a method that needs one raises
        except (TypeError, AttributeError):
            continue
        if isinstance(answer, bool):
            answers_bool.append(name)
    assert len(answers_bool) >= 2
    assert facts["pipeline.predicates.names"].value == answers_bool
    assert facts["pipeline.predicates.count"].value == len(answers_bool)


def test_sm90_barriers_counts_calls_resolved_to_the_barrier_class(corpus, facts):
    text = corpus.read_text("tokamax", facts["tokamax.sm90.barriers.count"].path)
    calls = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call)
             and ast.unparse(n.func) == "plgpu.Barrier"]
    assert facts["tokamax.sm90.barriers.count"].value == len(calls) > 0
    # bound by a keyword (`q_produced=`) and by a subscript (`scratch["mask_produced"] =`)
    assert {"q_produced", "mask_produced"} <= set(facts["tokamax.sm90.barriers.names"].value)


def test_barrier_facts_follow_references_not_names():
    sm90 = SM90_MODULE.replace(".", "/") + ".py"
    files = {
        "jax/_src/pallas/mosaic_gpu/core.py": "class Barrier:\n    pass\n",
        "jax/experimental/pallas/mosaic_gpu.py":
            "from jax._src.pallas.mosaic_gpu.core import Barrier as Barrier\n",
        sm90: textwrap.dedent("""\
            from jax.experimental.pallas import mosaic_gpu as plgpu

            def kernel(Barrier):
                local = Barrier(num_barriers=2)
                return local

            def scratch():
                q_barrier = plgpu.Barrier(num_barriers=2)
                out = dict(k_barrier=plgpu.Barrier(num_barriers=3), q=q_barrier)
                out["mask_barrier"] = plgpu.Barrier()
                return out
            """),
    }
    index = index_from_sources(files)
    texts = {module_of(p): t for p, t in files.items()}
    found = {f.name: f for f in barrier_facts(index, texts.__getitem__)}
    assert found["tokamax.sm90.barriers.count"].value == 3
    assert found["tokamax.sm90.barriers.names"].value == ["q_barrier", "k_barrier", "mask_barrier"]
    assert found["tokamax.sm90.barriers.count"].line == 8


def test_second_load_is_a_cache_hit(corpus, monkeypatch):
    load_facts(corpus)
    monkeypatch.setattr(facts_mod, "all_facts", lambda *a: pytest.fail("facts recomputed"))
    assert load_facts(corpus)


def test_cli_facts_json_and_text(capsys, facts):
    assert main(["-C", str(ROOT), "facts", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules.tpu.tc.count"]["value"] == facts["rules.tpu.tc.count"].value
    assert set(data["blockspec.fields.count"]) == {"value", "about", "path", "line"}
    assert main(["-C", str(ROOT), "facts"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("blockspec.fields.count = "))
    assert line.endswith(f"(jax/_src/pallas/core.py:{facts['blockspec.line'].value})")


def test_a_corpus_without_the_usual_files_gets_the_facts_it_can(tmp_path):
    from reader.cache import Cache
    cache = Cache(tmp_path / "cache")
    files = {"jax/_src/pallas/helpers.py": "def when(c):\n    pass\n"}
    manifest = {p: cache.put_blob(t.encode()) for p, t in files.items()}
    small = Corpus(Project(tmp_path, {}, {}), cache, {"jax": manifest})
    facts = load_facts(small).values
    assert facts["corpus.files.count"] == 1
    assert facts["lines.jax._src.pallas.helpers"] == 2
    assert not any(n.startswith(("rules.tpu.", "pallas_call.", "blockspec.")) for n in facts)


def test_a_group_whose_extractor_fails_is_an_unknown_and_the_rest_is_computed(corpus, monkeypatch):
    from reader.errors import Location
    from reader.extract import build_index

    where = Location("jax/_src/pallas/core.py", 12)
    index = build_index(corpus)

    def unreadable(*_a):
        raise ExtractError("cannot read class BlockSpec", where, "update structures.py")

    monkeypatch.setattr(facts_mod, "structures", unreadable)
    found = all_facts(corpus, index)
    [unknown] = found.unknown
    assert (unknown.where, unknown.reason, unknown.hint) == (where, "cannot read class BlockSpec",
                                                             "update structures.py")
    assert unknown.covers("blockspec.fields.count") and unknown.covers("pallas_call.params.names")
    assert not unknown.covers("rules.triton.count") and "rules.triton.count" in found.values
    assert found.unknown_for("blockspec.fields.count") is unknown
    assert found.unknown_for("rules.triton.count") is None
    assert not any(n.startswith("blockspec.") for n in found.values)

    def buggy(*_a):
        raise KeyError("BlockSpec")

    monkeypatch.setattr(facts_mod, "structures", buggy)
    with pytest.raises(KeyError):  # a bug in reader is never a finding about the pinned code
        all_facts(corpus, index)
