"""Registrations: every form a rule is registered for a primitive in, per-platform lowerings,
backend lowerings; and a registration the extractor cannot read is a located error."""

from __future__ import annotations

import textwrap

import pytest

from reader.extract import index_from_sources
from reader.extract.fact import ExtractError
from reader.extract.registrations import backend_lowerings, per_platform, primitive_rules
from reader.extract.tree import Sources
from reader.model import module_of

CALL = textwrap.dedent("""\
    from jax._src.interpreters import ad, mlir
    from jax._src import core as jax_core
    from jax._src.state import discharge as state_discharge

    call_p = jax_core.Primitive("call")
    call_p.multiple_results = True

    def _impl(*a):
        pass
    call_p.def_impl(_impl)

    def _jvp(*a):
        pass
    ad.primitive_jvps[call_p] = _jvp

    def _lower(ctx):
        return mlir.lower_per_platform(ctx, "call", dict(cpu=_impl,
                                                         tpu=_jvp), None)
    mlir.register_lowering(call_p, _lower, platform="tpu")

    @state_discharge.register_discharge_rule(call_p)
    def _discharge(*a):
        pass

    if True:
        call_p.def_abstract_eval(_impl); ad.primitive_transposes[call_p] = _jvp
    """)


def _sources(files: dict[str, str]) -> Sources:
    texts = {module_of(p): t for p, t in files.items()}
    return Sources(index_from_sources(files), texts.__getitem__)


def test_primitive_rules_every_registration_form():
    sources = _sources({
        "p/__init__.py": "",
        "p/call.py": CALL,
        "p/other.py": "from p import call\n_rules = {}\n_rules[call.call_p] = print\n",
    })
    rules = primitive_rules(sources, ("p.call", "call_p"))
    assert [(r.path, r.kind, r.registry, r.rule, r.rule_line, r.line, r.platform) for r in rules] == [
        ("p/call.py", "impl", "call_p.def_impl", "_impl", 8, 10, ""),
        ("p/call.py", "jvp", "ad.primitive_jvps", "_jvp", 12, 14, ""),
        ("p/call.py", "lowering", "mlir.register_lowering", "_lower", 16, 19, "tpu"),
        ("p/call.py", "discharge", "state_discharge.register_discharge_rule", "_discharge", 22, 21,
         ""),
        ("p/call.py", "abstract_eval", "call_p.def_abstract_eval", "_impl", 8, 26, ""),
        ("p/call.py", "transpose", "ad.primitive_transposes", "_jvp", 12, 26, ""),
        # a registry without a usual name is named after itself; `print` is not in the corpus
        ("p/other.py", "rules", "_rules", "print", 0, 3, ""),
    ]  # `call_p.multiple_results = True` is a constant, not a rule
    platforms = per_platform(sources, rules)
    assert [(r.platform, r.rule, r.line) for r in platforms] == [("cpu", "_impl", 17),
                                                                  ("tpu", "_jvp", 18)]


def test_a_primitive_read_through_import_aliases_is_found():
    """A module that reads the primitive only under names imports gave it is still read (the
    references are resolved only in modules whose text holds such a name); one that mentions
    none is not read at all."""
    sources = _sources({
        "p/__init__.py": "",
        "p/call.py": CALL,
        "p/alias.py": "from p.call import call_p as cp\n",
        "p/use.py": "from p.alias import cp as the_p\n\ndef _dce(*a):\n    pass\n"
                    "the_p.def_dce(_dce)\n",
        "p/unrelated.py": "from jax._src import core\nx_p = core.Primitive('x')\n",
    })
    assert sources.referring(("p.call", "call_p")) == {"p.call", "p.use"}
    rules = primitive_rules(sources, ("p.call", "call_p"))
    assert [(r.path, r.registry, r.rule, r.line) for r in rules if r.path != "p/call.py"] == [
        ("p/use.py", "the_p.def_dce", "_dce", 5)]


def test_a_platform_that_is_not_a_string_is_a_located_error():
    call = CALL.replace('platform="tpu"', "platform=PLATFORM")
    sources = _sources({"p/__init__.py": "", "p/call.py": call})
    with pytest.raises(ExtractError) as e:
        primitive_rules(sources, ("p.call", "call_p"))
    assert str(e.value.location) == "p/call.py:19" and "PLATFORM" in e.value.message


def test_backend_lowerings_read_register_lowering_rule_calls():
    sources = _sources({
        "jax/__init__.py": "",
        "jax/_src/__init__.py": "",
        "jax/_src/pallas/__init__.py": "",
        "jax/_src/pallas/core.py": "def register_lowering_rule(params, rule, platform):\n    pass\n",
        "jax/_src/pallas/tpu.py": textwrap.dedent("""\
            from jax._src.pallas import core as pallas_core

            class Params:
                pass

            def lower(ctx):
                pass

            pallas_core.register_lowering_rule(Params, lower, 'tpu')
            pallas_core.register_lowering_rule(Params, lower)  # not three arguments: not read
            """),
    })
    [r] = backend_lowerings(sources)
    assert (r.kind, r.registry, r.rule, r.rule_path, r.rule_line, r.path, r.line, r.platform) == (
        "Params", "pallas_core.register_lowering_rule", "lower", "jax/_src/pallas/tpu.py", 6,
        "jax/_src/pallas/tpu.py", 9, "tpu")
