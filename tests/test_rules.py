"""Lowering rule tables: one inline snippet per registration form, and the runtime oracle."""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import json
import pkgutil
import warnings
from pathlib import Path

import pytest

from reader.cli import main
from reader.corpus import Corpus, Project
from reader.errors import Location
from reader.extract import build_index, index_from_sources
from reader.extract import rules as rules_mod
from reader.extract.fact import ExtractError
from reader.extract.providers import load_rules
from reader.extract.rules import registering_modules, rule_tables
from reader.extract.ruletable import BACKEND_NAMES, RuleEntry, RuleTable
from reader.model import module_of

ROOT = Path(__file__).resolve().parents[1]

TPU_CORE = """\
import enum

class CoreType(enum.Enum):
    TC = "tc"
    SC_SCALAR_SUBCORE = "sc_scalar_subcore"
    SC_VECTOR_SUBCORE = "sc_vector_subcore"
"""

PRIMITIVES = """\
from jax._src import core as jax_core

load_p = jax_core.Primitive("load")
swap_p = jax_core.Primitive("swap")
bitcast_p = jax_core.Primitive("bitcast")
"""

TPU_LOWERING = """\
import functools
from jax import lax
from jax._src.interpreters import mlir
from jax._src.pallas import primitives
from jax._src.pallas.mosaic import core as tpu_core

lowering_rules = {kernel_type: {} for kernel_type in tpu_core.CoreType}

def register_lowering_rule(prim, *, kernel_types=(tpu_core.CoreType.TC,), ensure_mlir_values=True):
    def decorator(rule):
        for kernel_type in kernel_types:
            lowering_rules[kernel_type][prim] = rule
        return rule
    return decorator

@register_lowering_rule(primitives.load_p)
def _load_rule(ctx):
    pass

@register_lowering_rule(lax.add_p, kernel_types=[*tpu_core.CoreType])
@register_lowering_rule(lax.sub_p)
def _arith_rule(ctx):
    pass

def _max_rule(ctx):
    pass
register_lowering_rule(lax.max_p)(_max_rule)

def _cmp_rule(prim, ctx):
    pass

for prim in [lax.eq_p, lax.ne_p]:
    register_lowering_rule(prim, kernel_types=[tpu_core.CoreType.SC_VECTOR_SUBCORE])(
        functools.partial(_cmp_rule, prim))

mlir.register_lowering(primitives.swap_p, _load_rule)

@register_lowering_rule(primitives.load_p)
def _load_rule_again(ctx):
    pass

@register_lowering_rule(
    primitives.bitcast_p, kernel_types=tpu_core.CoreType
)
def _bitcast_rule(ctx):
    pass

for kernel_type in tpu_core.CoreType:
    lowering_rules[kernel_type][lax.cos_p] = _max_rule
"""

SC_LOWERING = """\
import functools
from jax._src.pallas.mosaic import core as tpu_core
from jax._src.pallas.mosaic import lowering as tc_lowering

register_lowering_rule = functools.partial(
    tc_lowering.register_lowering_rule,
    kernel_types=(tpu_core.CoreType.SC_SCALAR_SUBCORE, tpu_core.CoreType.SC_VECTOR_SUBCORE),
)
"""

SC_PRIMITIVES = """\
from jax import lax
from jax._src import core as jax_core
from jax._src.pallas.mosaic import core as tpu_core
from jax._src.pallas.mosaic import sc_lowering

load_p = jax_core.Primitive("load")

@sc_lowering.register_lowering_rule(load_p)
def _sc_load(ctx):
    pass

def _reduce(ctx, kind):
    pass

sc_lowering.register_lowering_rule(
    lax.reduce_max_p, kernel_types=[tpu_core.CoreType.SC_VECTOR_SUBCORE])(_reduce)
"""

TRITON_LOWERING = """\
import functools
from jax import lax

triton_lowering_rules = {}

def register_lowering(primitive):
    def wrapper(fn):
        triton_lowering_rules[primitive] = fn
        return fn
    return wrapper

def _add(x, y):
    pass

def _mul(x, y):
    pass

def _reduce(kind, ctx):
    pass

triton_lowering_rules.update({
    lax.neg_p: _add,
    lax.abs_p: lambda ctx, x: x,
})

_BINARY = {lax.add_p: _add, lax.mul_p: _mul}

for prim, fn in _BINARY.items():

    def signless_rule(ctx, x, y, fn=fn):
        return fn(x, y)

    triton_lowering_rules[prim] = signless_rule

triton_lowering_rules[lax.reduce_max_p] = functools.partial(_reduce, "max")

@register_lowering(lax.iota_p)
def _iota(ctx):
    pass
"""

GPU_CORE = """\
import enum
import jax.experimental.mosaic.gpu as mgpu

class PrimitiveSemantics(enum.Enum):
    Warp = enum.auto()
    Warpgroup = enum.auto()

LANExWG_SEMANTICS = (mgpu.LoweringSemantics.Lane, PrimitiveSemantics.Warpgroup)
LANExWARP_SEMANTICS = (mgpu.LoweringSemantics.Lane, PrimitiveSemantics.Warp)
WGxWG_SEMANTICS = (mgpu.LoweringSemantics.Warpgroup, PrimitiveSemantics.Warpgroup)
"""

GPU_LOWERING = """\
from functools import partial
from jax import lax
from jax._src.pallas.mosaic_gpu import core as gpu_core
import jax.experimental.mosaic.gpu as mgpu

mosaic_lowering_rules = {
    gpu_core.LANExWG_SEMANTICS: {},
    gpu_core.LANExWARP_SEMANTICS: {},
    gpu_core.WGxWG_SEMANTICS: {},
}

def register_lowering_rule(
    primitive, lowering_semantics,
    primitive_semantics=gpu_core.PrimitiveSemantics.Warpgroup,
):
    def deco(fn):
        mosaic_lowering_rules[(lowering_semantics, primitive_semantics)][primitive] = fn
        return fn
    return deco

def _lower_fun(fun):
    def rule(ctx, *args):
        return fun(*args)
    return rule

def _binary(ctx, x, y, *, impl):
    pass

def _logistic(x):
    pass

@register_lowering_rule(lax.exp_p, mgpu.LoweringSemantics.Lane)
@register_lowering_rule(lax.exp_p, *gpu_core.LANExWARP_SEMANTICS)
def _exp(ctx, x):
    pass

mosaic_lowering_rules[gpu_core.WGxWG_SEMANTICS].update({lax.neg_p: _binary})

for semantics in [gpu_core.LANExWG_SEMANTICS, gpu_core.LANExWARP_SEMANTICS]:
    mosaic_lowering_rules[semantics].update({lax.add_p: partial(_binary, impl=1)})

mosaic_lowering_rules[gpu_core.WGxWG_SEMANTICS][lax.logistic_p] = _lower_fun(_logistic)

mosaic_lowering_rules[gpu_core.WGxWG_SEMANTICS][lax.sin_p] = partial(
    _binary,  # the text drops this comment, the line break and the trailing comma
    impl="sin",
)
"""

GPU_PRIMITIVES = """\
from jax._src import core as jax_core
from jax._src.pallas.mosaic_gpu import lowering
import jax.experimental.mosaic.gpu as mgpu

load_p = jax_core.Primitive("load")

lowering.register_lowering_rule(load_p, mgpu.LoweringSemantics.Lane)(lowering._exp)
"""

SOURCES = {
    "jax/_src/pallas/__init__.py": "",
    "jax/_src/pallas/primitives.py": PRIMITIVES,
    "jax/_src/pallas/mosaic/__init__.py": "",
    "jax/_src/pallas/mosaic/core.py": TPU_CORE,
    "jax/_src/pallas/mosaic/lowering.py": TPU_LOWERING,
    "jax/_src/pallas/mosaic/sc_lowering.py": SC_LOWERING,
    "jax/_src/pallas/mosaic/sc_primitives.py": SC_PRIMITIVES,
    "jax/_src/pallas/triton/__init__.py": "",
    "jax/_src/pallas/triton/lowering.py": TRITON_LOWERING,
    "jax/_src/pallas/mosaic_gpu/__init__.py": "",
    "jax/_src/pallas/mosaic_gpu/core.py": GPU_CORE,
    "jax/_src/pallas/mosaic_gpu/lowering.py": GPU_LOWERING,
    "jax/_src/pallas/mosaic_gpu/primitives.py": GPU_PRIMITIVES,
}


@pytest.fixture(scope="module")
def tables() -> dict[tuple[str, str], RuleTable]:
    index = index_from_sources(SOURCES)
    texts = {module_of(p): t for p, t in SOURCES.items()}
    return {(t.backend, t.key): t for t in rule_tables(index, texts.__getitem__)}


def _tables_of(sources: dict[str, str]) -> list[RuleTable]:
    texts = {module_of(p): t for p, t in sources.items()}
    return rule_tables(index_from_sources(sources), texts.__getitem__)


def _rows(table: RuleTable) -> dict[str, tuple[str, str, str, int]]:
    """primitive dotted name -> (rule qualname, rule kind, registration form, registration line)."""
    return {e.primitive.dotted: (e.rule.qualname, e.rule.kind, e.form, e.line)
            for e in table.entries}


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_tpu_decorators_calls_loops_and_defaults(tables):
    tc = _rows(tables["tpu", "TC"])
    assert tc == {
        # a later registration of the same primitive replaces the earlier one
        "jax._src.pallas.primitives.load_p": ("_load_rule_again", "function", "decorator",
                                              _line(TPU_LOWERING, "def _load_rule_again") - 1),
        # stacked decorators: both primitives get the one function; kernel_types defaults to TC
        "jax.lax.add_p": ("_arith_rule", "function", "decorator",
                          _line(TPU_LOWERING, "@register_lowering_rule(lax.add_p")),
        "jax.lax.sub_p": ("_arith_rule", "function", "decorator",
                          _line(TPU_LOWERING, "@register_lowering_rule(lax.sub_p")),
        # register_lowering_rule(p)(fn)
        "jax.lax.max_p": ("_max_rule", "function", "call", _line(TPU_LOWERING, "(_max_rule)")),
        # a decorator over several lines registers at its first line
        "jax._src.pallas.primitives.bitcast_p": (
            "_bitcast_rule", "function", "decorator",
            _line(TPU_LOWERING, "primitives.bitcast_p, kernel_types") - 1),
        "jax.lax.cos_p": ("_max_rule", "function", "store", _line(TPU_LOWERING, "[lax.cos_p]")),
    }
    assert [e.rule.qualname for e in tables["tpu", "TC"].overridden] == ["_load_rule"]
    # `mlir.register_lowering` is another function with a similar name: not a Pallas rule
    assert "jax._src.pallas.primitives.swap_p" not in tc


def test_tpu_enum_class_itself_names_every_core_type(tables):
    """`kernel_types=CoreType` and `for kernel_type in CoreType:` reach each member, in order."""
    assert [k for b, k in tables if b == "tpu"] == ["TC", "SC_SCALAR_SUBCORE", "SC_VECTOR_SUBCORE"]
    for key in ("TC", "SC_SCALAR_SUBCORE", "SC_VECTOR_SUBCORE"):
        rows = _rows(tables["tpu", key])
        assert rows["jax._src.pallas.primitives.bitcast_p"][:3] == (
            "_bitcast_rule", "function", "decorator")
        assert rows["jax.lax.cos_p"][:3] == ("_max_rule", "function", "store")


def test_tpu_starred_enum_loops_partial_and_other_modules(tables):
    scalar = _rows(tables["tpu", "SC_SCALAR_SUBCORE"])
    vector = _rows(tables["tpu", "SC_VECTOR_SUBCORE"])
    # kernel_types=[*tpu_core.CoreType] reaches every core type
    assert scalar["jax.lax.add_p"][0] == vector["jax.lax.add_p"][0] == "_arith_rule"
    # a loop over a list of primitives, each registered through functools.partial
    for prim in ("jax.lax.eq_p", "jax.lax.ne_p"):
        assert vector[prim] == ("_cmp_rule", "partial", "call", _line(TPU_LOWERING, "    register"))
        assert prim not in scalar
    # registrations from another module, through a functools.partial of the registrar,
    # whose kernel_types a call's keyword overrides
    sc_load = "jax._src.pallas.mosaic.sc_primitives.load_p"
    assert scalar[sc_load][0] == vector[sc_load][0] == "_sc_load"
    assert "jax.lax.reduce_max_p" in vector and "jax.lax.reduce_max_p" not in scalar
    # two primitives named "load", told apart by their defining module
    names = {e.primitive.dotted: e.primitive.name for e in tables["tpu", "SC_SCALAR_SUBCORE"].entries}
    assert names[sc_load] == "load"
    assert "jax._src.pallas.primitives.load_p" not in scalar


def test_only_modules_that_reach_a_registry_run():
    """A module that mentions a registrar's name only as another function's
    (`mlir.register_lowering`) does not run; one that reaches the registrar through another
    module's `functools.partial` of it does, and so does the module holding that partial."""
    other = ("from jax._src.interpreters import mlir\n"
             "from jax._src.pallas import primitives\n\n"
             "def _rule(ctx):\n    pass\n\n"
             "mlir.register_lowering(primitives.swap_p, _rule)\n")
    sources = {**SOURCES, "jax/_src/pallas/other.py": other}
    texts = {module_of(p): t for p, t in sources.items()}
    order = registering_modules(index_from_sources(sources), texts.__getitem__)
    assert "jax._src.pallas.other" not in order
    assert order.index("jax._src.pallas.mosaic.sc_lowering") < order.index(
        "jax._src.pallas.mosaic.sc_primitives")
    assert {"jax._src.pallas.mosaic.lowering", "jax._src.pallas.triton.lowering",
            "jax._src.pallas.mosaic_gpu.lowering", "jax._src.pallas.mosaic_gpu.primitives"} <= set(order)
    assert [t.to_json() for t in _tables_of(sources)] == [t.to_json() for t in _tables_of(SOURCES)]


def test_triton_update_stores_and_loop_defs(tables):
    rows = _rows(tables["triton", ""])
    assert rows["jax.lax.abs_p"][1:] == ("lambda", "update", _line(TRITON_LOWERING, ".update({"))
    lam = next(e.rule for e in tables["triton", ""].entries if e.primitive.var == "abs_p")
    assert lam.line == lam.start == _line(TRITON_LOWERING, "lax.abs_p: lambda")
    assert rows["jax.lax.neg_p"][:3] == ("_add", "function", "update")
    assert rows["jax.lax.add_p"][:3] == rows["jax.lax.mul_p"][:3] == (
        "signless_rule", "function", "store")
    assert rows["jax.lax.reduce_max_p"][:3] == ("_reduce", "partial", "store")
    assert rows["jax.lax.iota_p"][:3] == ("_iota", "function", "decorator")
    rule = next(e.rule for e in tables["triton", ""].entries if e.primitive.var == "add_p")
    assert rule.line == _line(TRITON_LOWERING, "def signless_rule")


def test_mosaic_gpu_semantics_keys(tables):
    assert set(k for b, k in tables if b == "mosaic_gpu") == {
        "Lane/Warpgroup", "Lane/Warp", "Warpgroup/Warpgroup"}
    lane_wg = _rows(tables["mosaic_gpu", "Lane/Warpgroup"])
    lane_warp = _rows(tables["mosaic_gpu", "Lane/Warp"])
    wg_wg = _rows(tables["mosaic_gpu", "Warpgroup/Warpgroup"])
    # primitive_semantics defaults to Warpgroup; `*LANExWARP_SEMANTICS` spreads a tuple
    assert lane_wg["jax.lax.exp_p"][0] == lane_warp["jax.lax.exp_p"][0] == "_exp"
    # dict `.update` in a loop over keys, with functools.partial values
    assert lane_wg["jax.lax.add_p"][:3] == lane_warp["jax.lax.add_p"][:3] == (
        "_binary", "partial", "update")
    assert wg_wg["jax.lax.neg_p"][:3] == ("_binary", "function", "update")
    # a factory's result stored by subscript: the rule is what `_lower_fun` returned
    assert wg_wg["jax.lax.logistic_p"][:3] == ("_lower_fun", "call", "store")
    # a partial's text reads as `ast.unparse` prints it, whatever the source's layout
    sin = next(e.rule for e in tables["mosaic_gpu", "Warpgroup/Warpgroup"].entries
               if e.primitive.var == "sin_p")
    assert (sin.text, sin.qualname, sin.kind) == ("partial(_binary, impl='sin')", "_binary", "partial")
    # registered from the primitives module, rule taken from the lowering module
    assert lane_wg["jax._src.pallas.mosaic_gpu.primitives.load_p"][:3] == (
        "_exp", "function", "call")


@pytest.mark.parametrize(("path", "registration", "what"), [
    ("jax/_src/pallas/mosaic/lowering.py", "register_lowering_rule(make_prim())(_max_rule)",
     "which primitive"),
    ("jax/_src/pallas/mosaic/lowering.py",
     "register_lowering_rule(lax.exp_p, kernel_types=pick_cores())(_max_rule)", "which tpu tables"),
    ("jax/_src/pallas/mosaic/lowering.py", "register_lowering_rule(lax.exp_p)(make_rule())",
     r"which function this registers: make_rule\(\)"),
    ("jax/_src/pallas/triton/lowering.py", "triton_lowering_rules.update(more_rules())",
     "cannot read this update"),
])
def test_a_registration_it_cannot_read_is_a_located_error(path, registration, what):
    """Never a row with a guessed primitive or rule, never a registration silently dropped."""
    text = f"{SOURCES[path]}\n\n{registration}\n"
    with pytest.raises(ExtractError, match=what) as caught:
        _tables_of({**SOURCES, path: text})
    assert caught.value.location == Location(path, _line(text, registration))


# The oracle: the static tables equal the registries of the installed release of the jax pin. --

def _raise(name: str) -> None:
    raise ImportError(f"cannot import {name}")


def _runtime_registries(modules: list[str]) -> dict[tuple[str, str], dict]:
    """The installed release's registries, by (backend, key), once every module of jax's two
    Pallas packages and every module the static evaluator ran (`modules`) has been imported."""
    import jax._src.pallas
    import jax.experimental.pallas
    with warnings.catch_warnings():  # the old kernels under pallas/ops point to tokamax
        warnings.filterwarnings("ignore", r"jax\.experimental\.pallas\.ops\..* is deprecated",
                                DeprecationWarning)
        for package in (jax._src.pallas, jax.experimental.pallas):
            for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.", _raise):
                importlib.import_module(info.name)
    for module in modules:
        importlib.import_module(module)
    from jax._src.pallas.mosaic import lowering as tpu
    from jax._src.pallas.mosaic_gpu import lowering as mgpu
    from jax._src.pallas.triton import lowering as triton
    out: dict[tuple[str, str], dict] = {("tpu", k.name): v for k, v in tpu.lowering_rules.items()}
    out["triton", ""] = triton.triton_lowering_rules
    for (lowering, prim), v in mgpu.mosaic_lowering_rules.items():
        out["mosaic_gpu", f"{lowering.name}/{prim.name}"] = v
    return out


def _primitive(e: RuleEntry) -> object:
    """The primitive object a static entry names (its defining module's, or the module the
    registration reached it through)."""
    return getattr(importlib.import_module(e.primitive.module), e.primitive.var)


def _named(prims) -> list[str]:
    return sorted(f"{p.name} ({type(p).__module__}, id {id(p)})" for p in prims)


@pytest.fixture(scope="module")
def real_index():
    return build_index(Corpus.open(Project.load(ROOT)))


@pytest.fixture(scope="module")
def real_read(real_index):
    corpus = Corpus.open(Project.load(ROOT))
    return lambda m: corpus.read_text(*real_index.files[m])


@pytest.fixture(scope="module")
def real_tables(real_index, real_read) -> list[RuleTable]:
    return rule_tables(real_index, real_read)


@pytest.fixture(scope="module")
def runtime(real_index, real_read) -> dict[tuple[str, str], dict]:
    pin = Project.load(ROOT).pins["jax"]
    installed = importlib.metadata.version(pin.dist_name)
    assert installed == pin.dist_version, (
        f"the oracle needs {pin.release} (the pin) installed, not {pin.dist_name}=={installed}")
    return _runtime_registries(registering_modules(real_index, real_read))


@pytest.mark.slow
def test_oracle_static_tables_equal_runtime_registries(real_tables, runtime):
    """Per backend and key, the same primitive objects (two may share a name)."""
    assert {(t.backend, t.key) for t in real_tables} == set(runtime)
    for table in real_tables:
        registry = runtime[table.backend, table.key]
        static = {id(p): p for p in map(_primitive, table.entries)}
        assert len(static) == len(table.entries), (table.backend, table.key, "an object twice")
        missing = [p for p in registry if id(p) not in static]
        extra = [p for i, p in static.items() if i not in {id(q) for q in registry}]
        assert (_named(missing), _named(extra)) == ([], []), (table.backend, table.key)


@pytest.mark.slow
def test_oracle_rule_functions_match_runtime(real_tables, real_index, runtime):
    """Each static rule is the runtime one: same function (file, first line), partial's function,
    lambda line, the object a variable holds, or a closure made inside the named factory."""
    checked = 0
    for table in real_tables:
        registry = runtime[table.backend, table.key]
        for e in table.entries:
            rule = registry[_primitive(e)]
            if e.rule.kind == "variable":
                assert getattr(importlib.import_module(e.rule.module), e.rule.qualname) is rule
            else:
                func = rule.func if isinstance(rule, functools.partial) else rule
                code = func.__code__
                assert code.co_filename.endswith(e.rule.path), e
                if e.rule.kind == "call":
                    factory = real_index.symbol(e.rule.module, e.rule.qualname)
                    assert code.co_firstlineno in factory.span, e
                else:
                    assert code.co_firstlineno == e.rule.start, e
            checked += 1
    assert checked == sum(len(t.entries) for t in real_tables)


@pytest.mark.slow
def test_oracle_unions_and_shared_names(real_tables, runtime):
    """Over each backend's keys: the same distinct primitives, and the same names that belong to
    two different primitives, as at runtime (`PrimRef.key` tells primitives apart, not names)."""
    for backend in BACKEND_NAMES:
        entries = [e for t in real_tables if t.backend == backend for e in t.entries]
        live = {id(p): p for (b, _), reg in runtime.items() if b == backend for p in reg}
        assert {id(_primitive(e)) for e in entries} == live.keys(), backend
        assert len({e.primitive.key for e in entries}) == len(live), backend
        assert _shared((e.primitive.name, e.primitive.key) for e in entries) == _shared(
            (p.name, i) for i, p in live.items()), backend


def _shared(pairs) -> set[str]:
    """Names that come with more than one identity in `(name, identity)` pairs."""
    owners: dict[str, set] = {}
    for name, identity in pairs:
        owners.setdefault(name, set()).add(identity)
    return {name for name, ids in owners.items() if len(ids) > 1}


def test_cli_rules_json_and_cache(capsys, monkeypatch):
    assert main(["-C", str(ROOT), "rules", "--backend", "triton", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(t["backend"], t["key"]) for t in data] == [("triton", "")]
    assert any(e["primitive"]["var"] == "load_p" and e["rule"]["qualname"] for e in data[0]["entries"])
    corpus = Corpus.open(Project.load(ROOT))
    # a second read is a cache hit: it does not run the evaluator again
    calls: list[int] = []
    real = rules_mod.rule_tables
    monkeypatch.setattr(rules_mod, "rule_tables", lambda *a: calls.append(1) or real(*a))
    again = load_rules(corpus, build_index(corpus))
    assert calls == [] and len(next(t for t in again if t.backend == "triton").entries) == len(
        data[0]["entries"])
    assert main(["-C", str(ROOT), "rules", "--backend", "tpu"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tpu [TC]: ") and "jax._src.pallas.primitives.load_p" in out


def test_releases_read_in_turn_share_the_trees_of_code_they_repeat(monkeypatch):
    """The rule history's releases read one after the other (`Parses`): code parsed by the
    release before is not parsed again, even at other lines of a changed file (numbered as this
    file numbers them), the tables are those read alone, and a tree the last reader did not read
    is let go."""
    from reader.extract.parse import Parses
    from reader.extract.tree import Tree

    parsed: list[str] = []
    parse = Tree.parse.__func__  # type: ignore[attr-defined]

    def counting(cls, text, path, name="", bodies=True):
        parsed.append(path)
        return parse(cls, text, path, name, bodies)

    triton = "jax/_src/pallas/triton/lowering.py"
    body = TRITON_LOWERING.replace("def _add(x, y):\n    pass", "def _add(x, y):\n    x = 1\n    y = 2\n    pass")
    releases = [SOURCES, {**SOURCES, triton: body}, {**SOURCES, triton: TRITON_LOWERING + "\nEXTRA = 1\n"}, SOURCES]
    alone = [_tables_of(sources) for sources in releases]
    assert alone[1] != alone[0]  # the registrations after `_add` two lines down
    monkeypatch.setattr(Tree, "parse", classmethod(counting))
    parses, shared, per_release = Parses(), [], []
    for sources in releases:
        parses.turn()
        texts = {module_of(p): t for p, t in sources.items()}
        shared.append(rule_tables(index_from_sources(sources), texts.__getitem__, parses))
        per_release.append(sorted(parsed))
        parsed.clear()
    assert shared == alone
    assert triton in per_release[0]
    # only the bodies changed: the same skeleton; then a module-level line: parsed; then the
    # first text again, let go when the third release did not read it
    assert per_release[1:] == [[], [triton], [triton]]


def test_a_calls_source_text_is_made_when_read_and_compares_as_text():
    from reader.extract.values import Const, Result, Source

    made: list[str] = []

    def make(text: str) -> Source:
        def text_of() -> str:
            made.append(text)
            return text
        return Source(text_of)

    first, second = Result(Const("f"), make("f(x)"), 3), Result(Const("f"), make("f(x)"), 3)
    assert made == []
    assert first == second and hash(first) == hash(second) and made == ["f(x)", "f(x)"]
    assert first != Result(Const("f"), make("f(y)"), 3)
    assert repr(first) == "Result(func=Const(value='f'), text='f(x)', line=3)"
    assert f"{first.text}" == str(first.text) == "f(x)" and made.count("f(x)") == 2
