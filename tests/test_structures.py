"""Structures: signatures, class fields and members, schedule predicates, and what the pinned
jax gives for them (checked against the installed release)."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from reader.corpus import Corpus, Project
from reader.extract import build_index, index_from_sources
from reader.extract.fact import ExtractError
from reader.extract.structures import (
    PALLAS_CALL,
    Structures,
    classes,
    predicates,
    schedule,
    signature,
    structures,
)
from reader.extract.tree import Tree
from reader.model import module_of

ROOT = Path(__file__).resolve().parents[1]


def test_signature_kinds_defaults_and_lines():
    tree = Tree.parse("def f(p, /, a, b: int = 2, *args, c,\n"
                      "      d=\"x\", **kw) -> None:\n    pass\n", "m.py")
    node = tree.module.body[0]
    assert isinstance(node, cst.FunctionDef)
    sig = signature(tree, node)
    assert [(p.name, p.kind, p.annotation, p.default, p.line) for p in sig.params] == [
        ("p", "positional", "", None, 1), ("a", "positional", "", None, 1),
        ("b", "positional", "int", "2", 1), ("args", "*args", "", None, 1),
        ("c", "keyword", "", None, 1), ("d", "keyword", "", '"x"', 2),
        ("kw", "**kwargs", "", None, 2)]
    assert (sig.line, sig.returns) == (1, "None")


def test_class_fields_defaults_members_methods_and_lines():
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

            class Inner: pass
            # a comment after the last statement is not the class's

        class Space(enum.Enum):
            VMEM = "vmem"; SMEM = 'smem'
        """)
    spec, inner, space = classes(Tree.parse(text, "m.py"))
    assert [(f.name, f.default, f.line) for f in spec.fields] == [
        ("shape", "()", 5), ("space", "None", 6), ("extra", "list()", 7), ("name", None, 8)]
    assert spec.decorators == ("dataclasses.dataclass(frozen=True)",)
    assert [(m.name, m.line, m.decorators) for m in spec.methods] == [("rank", 11, ("property",))]
    assert (spec.line, spec.end) == (4, 14)
    assert (inner.qualname, inner.line, inner.end) == ("Spec.Inner", 14, 14)
    # defaults as written: the quotes stay
    assert space.bases == ("enum.Enum",) and [(m.name, m.default, m.line) for m in space.members] == [
        ("VMEM", '"vmem"', 18), ("SMEM", "'smem'", 18)]


PIPELINE = textwrap.dedent("""\
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
            def inner():
                return ref.a  # a nested function's return is not this method's
            return self.changed(ref) and not ref.fixed

        def index(self, ref):
            return ref.a

        def mixed(self, ref):
            if ref.x:
                return True
            return ref.a
    """)


def test_predicates_to_a_fixed_point():
    found = predicates(Tree.parse(PIPELINE, "m.py"), "Scheduler")
    assert [(m.name, m.line) for m in found] == [("done", 8), ("changed", 13), ("will_change", 18)]


def test_a_schedule_without_its_class_or_predicates_is_a_located_error():
    with pytest.raises(ExtractError) as e:
        schedule(Tree.parse(PIPELINE.replace("class Scheduler", "class Other"), "p.py"))
    assert str(e.value.location) == "p.py" and "no class Scheduler" in e.value.message
    rewritten = "import x\n\nclass Scheduler:\n    def step(self):\n        return x.go()\n"
    with pytest.raises(ExtractError) as e:
        schedule(Tree.parse(rewritten, "p.py"))
    assert str(e.value.location) == "p.py:3" and "no yes-or-no method" in e.value.message


def test_a_pallas_call_file_without_pallas_call_is_a_located_error():
    path = PALLAS_CALL[0].replace(".", "/") + ".py"
    files = {"jax/__init__.py": "", path: "def pallas_call_renamed():\n    pass\n"}
    index = index_from_sources(files)
    texts = {module_of(p): t for p, t in files.items()}
    with pytest.raises(ExtractError) as e:
        structures(index, texts.__getitem__)
    assert str(e.value.location) == path


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
    defaults = {p.name: p.default for p in real.pallas_call.params}
    assert all((defaults[n] is None) == (p.default is p.empty) for n, p in params.items())


def test_pallas_call_rules_match_the_runtime_registries(real):
    from jax._src.interpreters import ad, batching, mlir, partial_eval
    from jax._src.pallas import pallas_call as runtime
    prim = runtime.pallas_call_p
    by_kind = {r.kind: r for r in real.pallas_call_rules if r.registry != "mlir.lower_per_platform"}
    assert by_kind["jvp"].rule == ad.primitive_jvps[prim].__name__
    assert by_kind["batching"].rule == batching.fancy_primitive_batchers[prim].__name__
    assert by_kind["dce"].rule == partial_eval.dce_rules[prim].__name__
    assert by_kind["impl"].rule == prim.impl.__name__
    assert by_kind["to_lojax"].rule == prim.to_lojax.__name__
    # No transpose rule in the pins, and none at runtime.
    assert "transpose" not in by_kind
    assert prim not in ad.primitive_transposes and prim not in ad.fancy_transposes
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
    from jax._src.pallas.mosaic_gpu import core as gpu_core
    block_spec = real.find("jax/_src/pallas/core.py", "BlockSpec")
    assert [f.name for f in block_spec.fields] == [f.name for f in dataclasses.fields(core.BlockSpec)]
    lines, start = inspect.getsourcelines(core.BlockSpec)
    assert block_spec.line == start + len(block_spec.decorators)
    assert block_spec.end == start + len(lines) - 1
    for module, path in ((tpu_core, "jax/_src/pallas/mosaic/core.py"),
                         (gpu_core, "jax/_src/pallas/mosaic_gpu/core.py")):
        spaces = real.find(path, "MemorySpace")
        assert [m.name for m in spaces.members] == [m.name for m in module.MemorySpace]
        values = [ast.literal_eval(m.default) for m in spaces.members]
        assert values == [m.value for m in module.MemorySpace]  # the defaults as written
        params = real.find(path, "CompilerParams")
        assert [f.name for f in params.fields] == [
            f.name for f in dataclasses.fields(module.CompilerParams)]


def test_pipeline_schedule_predicates(real):
    from jax._src.pallas.mosaic import pipeline
    names = ["out_of_fetch", "has_changed", "will_change_current", "will_change_fetch"]
    assert [m.name for m in real.schedule_predicates] == names
    assert [m.line for m in real.schedule_predicates] == [
        inspect.getsourcelines(getattr(pipeline.Scheduler, n))[1] for n in names]
    assert {c.qualname for c in real.pipeline_classes} >= {"BufferedRef", "Scheduler"}
    functions = {n for n, f in vars(pipeline).items()  # its `def`s: no lambda, no import
                 if inspect.isfunction(f) and f.__module__ == pipeline.__name__ and f.__name__ == n}
    assert {f.qualname for f in real.pipeline_functions} == functions
