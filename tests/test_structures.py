"""Structures: signatures, class fields and members, a primitive's rules, schedule predicates."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

import pytest

from reader.corpus import Corpus, Project
from reader.extract import build_index, index_from_sources
from reader.extract.structures import (
    Structures,
    classes,
    per_platform,
    predicates,
    primitive_rules,
    signature,
    structures,
)
from reader.model import module_of

ROOT = Path(__file__).resolve().parents[1]


def test_signature_kinds_defaults_and_lines():
    tree = ast.parse("def f(a, b: int = 2, *args, c, d='x', **kw) -> None:\n    pass\n")
    sig = signature(tree.body[0], "m.py")  # type: ignore[arg-type]
    assert [(p.name, p.kind, p.annotation, p.default) for p in sig.params] == [
        ("a", "positional", "", None), ("b", "positional", "int", "2"),
        ("args", "*args", "", None), ("c", "keyword", "", None), ("d", "keyword", "", "'x'"),
        ("kw", "**kwargs", "", None)]
    assert (sig.line, sig.returns) == (1, "None")


def test_class_fields_defaults_members_and_methods():
    text = textwrap.dedent("""\
        import dataclasses, enum

        @dataclasses.dataclass(frozen=True)
        class Spec:
            shape: tuple = ()
            space: object = dataclasses.field(kw_only=True, default=None)
            extra: list = dataclasses.field(default_factory=list)
            name: str

            @property
            def rank(self):
                return len(self.shape)

        class Space(enum.Enum):
            VMEM = "vmem"
            SMEM = "smem"
        """)
    spec, space = classes(ast.parse(text), "m.py")
    assert [(f.name, f.default, f.line) for f in spec.fields] == [
        ("shape", "()", 5), ("space", "None", 6), ("extra", "list()", 7), ("name", None, 8)]
    assert spec.decorators == ("dataclasses.dataclass(frozen=True)",)
    assert [(m.name, m.decorators) for m in spec.methods] == [("rank", ("property",))]
    assert space.is_enum and [(m.name, m.default) for m in space.members] == [
        ("VMEM", "'vmem'"), ("SMEM", "'smem'")]


def test_predicates_to_a_fixed_point():
    text = textwrap.dedent("""\
        import functools
        import jax.numpy as jnp

        def _differ(xs, ys):
            return functools.reduce(lambda a, b: a | b, [x != y for x, y in zip(xs, ys)], False)

        class Scheduler:
            def done(self, ref):
                if not ref.ok:
                    return jnp.bool(False)
                return self.step >= 3

            def changed(self, ref):
                if ref.fixed:
                    return False
                return _differ(ref.a, ref.b)

            def will_change(self, ref):
                return self.changed(ref) and not ref.fixed

            def index(self, ref):
                return ref.a

            def mixed(self, ref):
                if ref.x:
                    return True
                return ref.a
        """)
    found = predicates(ast.parse(text), "Scheduler")
    assert [m.name for m in found] == ["done", "changed", "will_change"]


def test_primitive_rules_every_registration_form():
    files = {
        "p/__init__.py": "",
        "p/call.py": textwrap.dedent("""\
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
                return mlir.lower_per_platform(ctx, "call", dict(cpu=_impl, tpu=_jvp), None)
            mlir.register_lowering(call_p, _lower, platform="tpu")

            @state_discharge.register_discharge_rule(call_p)
            def _discharge(*a):
                pass
            """),
        "p/other.py": "from p import call\n_rules = {}\n_rules[call.call_p] = print\n",
    }
    index = index_from_sources(files)
    texts = {module_of(p): t for p, t in files.items()}
    rules = primitive_rules(index, texts.__getitem__, ("p.call", "call_p"))
    assert [(r.path, r.kind, r.registry, r.rule, r.rule_line, r.line, r.platform) for r in rules] == [
        ("p/call.py", "impl", "call_p.def_impl", "_impl", 8, 10, ""),
        ("p/call.py", "jvp", "ad.primitive_jvps", "_jvp", 12, 14, ""),
        ("p/call.py", "lowering", "mlir.register_lowering", "_lower", 16, 18, "tpu"),
        ("p/call.py", "discharge", "state_discharge.register_discharge_rule", "_discharge", 21, 20,
         ""),
        # a registry without a usual name is named after itself; `print` is not in the corpus
        ("p/other.py", "rules", "_rules", "print", 0, 3, ""),
    ]  # `call_p.multiple_results = True` is a constant, not a rule
    platforms = per_platform(index, texts.__getitem__, rules)
    assert [(r.platform, r.rule, r.line) for r in platforms] == [("cpu", "_impl", 17),
                                                                  ("tpu", "_jvp", 17)]


@pytest.fixture(scope="module")
def real() -> Structures:
    corpus = Corpus.open(Project.load(ROOT))
    index = build_index(corpus)
    return structures(index, lambda m: corpus.read_text(*index.files[m]))


def test_pallas_call_signature_matches_the_installed_function(real):
    from jax._src.pallas import pallas_call as runtime
    params = inspect.signature(runtime.pallas_call).parameters
    assert [p.name for p in real.pallas_call.params] == list(params)
    lines, start = inspect.getsourcelines(inspect.unwrap(runtime.pallas_call))
    def_line = start + next(i for i, line in enumerate(lines) if line.startswith("def "))
    assert real.pallas_call.line == def_line
    kinds = {p.name: p.kind for p in real.pallas_call.params}
    assert all((kinds[n] == "keyword") == (p.kind is p.KEYWORD_ONLY) for n, p in params.items())


def test_pallas_call_rules_match_the_runtime_registries(real):
    from jax._src.interpreters import ad, batching, mlir, partial_eval
    from jax._src.pallas import pallas_call as runtime
    prim = runtime.pallas_call_p
    by_kind = {r.kind: r for r in real.pallas_call_rules if r.registry != "mlir.lower_per_platform"}
    assert by_kind["jvp"].rule == ad.primitive_jvps[prim].__name__
    assert by_kind["batching"].rule == batching.fancy_primitive_batchers[prim].__name__
    assert by_kind["dce"].rule == partial_eval.dce_rules[prim].__name__
    # No transpose rule in the pins: at runtime the slot holds HiPrimitive's placeholder,
    # defined outside them (jax/_src/hijax.py), which asserts "must override".
    from jax._src import hijax
    assert "transpose" not in by_kind
    assert ad.primitive_transposes[prim].__func__ is hijax.HiPrimitive.transpose
    lowering = mlir._lowerings[prim].rule
    assert by_kind["lowering"].rule == lowering.__name__
    assert by_kind["lowering"].rule_line == lowering.__code__.co_firstlineno
    assert by_kind["lowering"].platform == ""  # one rule for every platform, none per platform
    assert all(prim not in rules for rules in mlir._platform_specific_lowerings.values())
    platforms = [r.platform for r in real.pallas_call_rules if r.registry == "mlir.lower_per_platform"]
    assert platforms == ["cpu", "tpu", "cuda", "rocm"]


def test_backend_lowerings_match_the_runtime_registry(real):
    from jax._src.pallas import core
    for backend in ("mosaic", "triton", "mosaic_gpu"):  # imported when a call is first lowered
        importlib.import_module(f"jax._src.pallas.{backend}.pallas_call_registration")
    runtime = {(cls.__module__.rsplit(".", 2)[-2], rule.__name__, platform)
               for cls, (rule, platform) in core._backend_lowering_rules.items()}
    static = {(r.path.split("/")[-2], r.rule, r.platform) for r in real.backend_lowerings}
    assert static == runtime


def test_classes_match_the_installed_dataclasses_and_enums(real):
    import dataclasses

    from jax._src.pallas import core
    from jax._src.pallas.mosaic import core as tpu_core
    block_spec = real.find("jax/_src/pallas/core.py", "BlockSpec")
    assert [f.name for f in block_spec.fields] == [f.name for f in dataclasses.fields(core.BlockSpec)]
    assert block_spec.line == inspect.getsourcelines(core.BlockSpec)[1] + len(block_spec.decorators)
    spaces = real.find("jax/_src/pallas/mosaic/core.py", "MemorySpace")
    assert [m.name for m in spaces.members] == [m.name for m in tpu_core.MemorySpace]
    params = real.find("jax/_src/pallas/mosaic/core.py", "CompilerParams")
    assert [f.name for f in params.fields] == [
        f.name for f in dataclasses.fields(tpu_core.CompilerParams)]


def test_pipeline_schedule_predicates(real):
    assert [m.name for m in real.schedule_predicates] == [
        "out_of_fetch", "has_changed", "will_change_current", "will_change_fetch"]
    assert {c.qualname for c in real.pipeline_classes} >= {"BufferedRef", "Scheduler"}
