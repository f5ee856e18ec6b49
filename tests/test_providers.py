"""Every cached result is a provider (reader/providers.py): its key is computed from its declared
inputs alone, so changing any one of them produces it again and the same inputs read it back; a
producer reads only what it declares (its inputs' fields, the providers it needs), and nothing but
the provider machinery writes the cache's derived store."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import MISSING, dataclass, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import pytest

import reader
from reader import providers
from reader.cache import Cache
from reader.errors import BuildError
from reader.providers import (
    PROVIDERS,
    Blob,
    Provider,
    as_json,
    how,
    is_kept,
    kept,
    key,
    pickled,
    provide,
    strict,
)

REPO = Path(__file__).resolve().parent.parent
_SKIP = ("reader.__main__", "reader.labs.child", "reader.claims.child")


def _every_module() -> None:
    """Import every module of reader (each provider is declared at a module's top level)."""
    for module in pkgutil.walk_packages(reader.__path__, "reader."):
        if not module.name.startswith(_SKIP):
            importlib.import_module(module.name)


_every_module()


@dataclass(frozen=True)
class Sample:
    """Stands for an input of a type the test does not build (a lab, a page's inputs)."""

    value: str


class Pins:
    """Stands for a corpus: an input known by a key of its own."""

    def __init__(self, key: str):
        self.key = key

    def input_key(self) -> str:
        return self.key


def _sample(type_: str) -> Any:
    """A value for a declared input of type `type_` (as annotated)."""
    if type_ == "str":
        return "a"
    if type_ == "bool":
        return False
    if type_ == "int":
        return 1
    if type_ == "Blob":
        return Blob("0" * 40, lambda: "x = 1\n")
    if type_.split(" | ")[0] in ("Keyed", "Corpus"):
        return Pins("pins-1")
    if type_.startswith("tuple"):
        return (Sample("a"),)
    return Sample("a")


def _changed(value: Any) -> Any:
    """`value` with one thing in it changed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "b"
    if isinstance(value, Blob):
        return Blob("1" * 40, value.read)
    if isinstance(value, Pins):
        return Pins(value.key + "-moved")
    if isinstance(value, tuple):
        return (*value, Sample("b"))
    assert is_dataclass(value), value
    first = fields(value)[0].name
    return replace(value, **{first: _changed(getattr(value, first))})  # type: ignore[type-var]


def _declared(provider: Provider[Any, Any]) -> list[str]:
    return [f.name for f in fields(provider.inputs) if not f.metadata.get("how")]


def _inputs(provider: Provider[Any, Any]) -> Any:
    return provider.inputs(**{f.name: _sample(str(f.type)) for f in fields(provider.inputs)
                              if not f.metadata.get("how") and f.default is MISSING})


def _values() -> dict[str, Any]:
    """A result of each provider's kind, as its producer gives it (what its form keeps)."""
    from reader.annotations.load import Loaded
    from reader.claims.run import Outcome
    from reader.editions.blame import LineHistory
    from reader.editions.previous import Kept
    from reader.extract.fact import Facts
    from reader.labs import Artifact, LabArtifacts, _Head
    from reader.labs.notebook import Imports
    from reader.linkcheck import PageLinks
    from reader.render.code.highlight import Highlight
    from reader.render.common.figure import Figure
    from reader.render.common.model import Page
    from reader.render.ir.site import IrSummary
    from reader.render.recipe.pagecache import CachedPage
    from reader.track import Track

    links = PageLinks(frozenset({"top"}), ("a.html",), ())
    return {
        "scan": {"module": "m"}, "refs": [], "uses": {}, "uses-of": {}, "def-lines": {"m": {"f": 1}},
        "annotation": Loaded("annotations/a.yaml", None, ()), "symbols": (), "rules": [],
        "facts": Facts((), ()), "lab-head": _Head("doc", (1, 2)), "figure": Figure("<svg/>"),
        "rule-history": [], "lab-imports": Imports(frozenset({"k"}), frozenset({"jax"})),
        "notebooks-v1": "{}", "notebook-shipped": False, "previous-notes": {}, "previous-edition": Kept({}, {}, {}),
        "file-diff": ((("replace", 0, 1, 0, 1),),), "line-history": LineHistory(("0.1",), -1, {}, {}, {}),
        "highlight": Highlight(["x"], [()]), "markdown": "<p>x</p>", "scopes": [[1, 2, "f", "f", "", 2]],
        "template-code": b"code", "search-packs": ({"files": []}, []), "search-prose": ({}, {}, {}),
        "search": [("search/files.js", b"x")], "track": Track("t", "s", ()), "links": links, "links-part": links,
        "old-refs": [], "ir-summary": IrSummary({}, {}, (), (), {}), "labs-by-file": {}, "lab-refs": [],
        "page": CachedPage(Page("a.md", "a", "---\n", "<p>a</p>")), "resolved": (), "exercises": frozenset(),
        "claim": Outcome(True), "release": {"commit": "c" * 40, "files": {"jax/a.py": "0" * 40}},
        "lab-artifacts": LabArtifacts((Artifact("a.svg", b"<svg/>"),)),
        "record-stale": False, "figure-reads": {},
    }


VALUES = _values()


@contextmanager
def _counting(provider: Provider[Any, Any], value: Any) -> Iterator[list[Any]]:
    """`provider` with a producer that gives `value` and records each call's inputs."""
    calls: list[Any] = []

    def produce(inputs: Any) -> Any:
        calls.append(inputs)
        return value
    real = provider.produce
    object.__setattr__(provider, "produce", produce)
    try:
        yield calls
    finally:
        object.__setattr__(provider, "produce", real)


def test_every_provider_has_a_sample_result():
    assert sorted(PROVIDERS) == sorted(VALUES)


@pytest.mark.parametrize("kind", sorted(PROVIDERS))
def test_each_declared_input_changed_produces_the_result_again(kind: str, tmp_path: Path):
    provider, cache = PROVIDERS[kind], Cache(tmp_path)
    assert (kind in ("claim", "release", "lab-artifacts")) == provider.lasting  # kept across code versions
    base = _inputs(provider)
    with _counting(provider, VALUES[kind]) as calls, cache.staged():
        first = provide(provider, base, cache)
        assert provide(provider, base, cache) == first and len(calls) == 1  # the same inputs: kept
        for name in _declared(provider):
            moved = replace(base, **{name: _changed(getattr(base, name))})
            assert key(provider, moved) != key(provider, base), name
            assert not is_kept(provider, moved, cache), name
            provide(provider, moved, cache)
            assert len(calls) == 2 and calls[-1] is not base, f"{kind}: {name} changed, nothing produced"
            calls.pop()
        assert provide(provider, base, cache) == first and len(calls) == 1


def test_an_input_left_out_of_the_key_is_declared_so():
    from reader.extract.index import SCAN, Scan

    text = Blob("0" * 40, lambda: "x = 1\n")
    assert key(SCAN, Scan("m", False, text, "jax:m.py")) == key(SCAN, Scan("m", False, text, "tokamax:m.py"))
    assert [f.name for f in fields(Scan) if f.metadata.get("how")] == ["where"]


@dataclass(frozen=True)
class Texts:
    text: str
    helper: Any = how()


def _length(inputs: Texts) -> int:
    return len(inputs.text)


def _peeks(inputs: Texts) -> int:
    return len(inputs.text) + len(inputs.helper.undeclared)


def _provider(kind: str, produce: Callable[[Texts], int], needs: tuple[Provider[Any, Any], ...] = ()
              ) -> Provider[Texts, int]:
    PROVIDERS.pop(kind, None)
    return Provider(kind, Texts, produce, as_json(int), needs)


def test_a_result_is_produced_once_per_inputs_with_its_real_producer(tmp_path: Path):
    from reader.render.code.highlight import HIGHLIGHT, lexed

    cache = Cache(tmp_path)
    with strict():
        one = provide(HIGHLIGHT, lexed("a" * 40, "x = 1\n"), cache)
        assert kept(HIGHLIGHT, lexed("a" * 40), cache) == one
        assert provide(HIGHLIGHT, lexed("b" * 40, "y = [2]\n"), cache) != one


def test_a_producer_reads_only_its_declared_fields_in_tests(tmp_path: Path):
    sneaky = _provider("test-sneaky", _reads_a_method)
    with strict(), pytest.raises(BuildError, match="reads 'upper', which its inputs do not declare"):
        provide(sneaky, Texts("a"), Cache(tmp_path))
    plain = _provider("test-plain", _length)
    with strict():
        assert provide(plain, Texts("abc"), Cache(tmp_path)) == 3


def _reads_a_method(inputs: Texts) -> int:
    return len(inputs.upper())  # type: ignore[attr-defined]


def test_a_producer_reads_only_the_providers_it_declares(tmp_path: Path):
    base = _provider("test-base", _length)
    global _NEEDED
    _NEEDED = base
    sneaky = _provider("test-reads-base", _reads_base)
    with pytest.raises(BuildError, match="'test-reads-base' reads 'test-base', which it does not declare"):
        provide(sneaky, Texts("a"), Cache(tmp_path))
    declared = _provider("test-needs-base", _reads_base, (base,))
    assert provide(declared, Texts("ab"), Cache(tmp_path)) == 3


_NEEDED: Provider[Texts, int] | None = None


def _reads_base(inputs: Texts) -> int:
    assert _NEEDED is not None
    return provide(_NEEDED, Texts(inputs.text + "c"), providers.running_cache()) + 0


def test_providers_that_need_each_other_are_refused(tmp_path: Path):
    global _NEEDED
    a = _provider("test-a", _reads_base)
    _NEEDED = a
    object.__setattr__(a, "needs", (a,))
    with pytest.raises(BuildError, match="providers need each other: test-a -> test-a"):
        provide(a, Texts("x"), Cache(tmp_path))


def test_a_producer_that_closes_over_a_variable_is_refused():
    hidden = "undeclared"

    def produce(inputs: Texts) -> int:
        return len(hidden)
    with pytest.raises(BuildError, match=r"reads variables it does not declare \(hidden\)"):
        Provider("test-closure", Texts, produce, as_json(int))


def test_an_input_known_by_its_address_is_refused():
    @dataclass(frozen=True)
    class Opaque:
        thing: object

    provider = Provider("test-opaque", Opaque, _length, pickled(int))  # type: ignore[arg-type]
    with pytest.raises(BuildError, match="known by its address"):
        key(provider, Opaque(object()))


def _spelled(inputs: Texts) -> list[str]:
    return list(inputs.text)


@pytest.mark.parametrize("lasting", [False, True])
def test_a_frozen_json_result_is_loaded_once_while_its_file_is_the_same(tmp_path: Path, lasting: bool):
    """A JSON result marked `frozen` (a lab's artifacts: `reader serve` builds again and again) is
    read back from memory, loaded, while its file is the one read; from the file once it changed."""
    PROVIDERS.pop("test-frozen-json", None)
    loads: list[object] = []
    form = as_json(list, load=lambda data: loads.append(data) or tuple(data), frozen=True)
    provider = Provider("test-frozen-json", Texts, _spelled, form, lasting=lasting)
    cache = Cache(tmp_path)
    made = provide(provider, Texts("ab"), cache)
    first = kept(provider, Texts("ab"), cache)
    assert made == ["a", "b"] and first == ("a", "b") and kept(provider, Texts("ab"), cache) is first
    assert len(loads) == 1
    providers.keep(provider, Texts("ab"), ["c"], cache)  # a new file
    assert kept(provider, Texts("ab"), cache) == ("c",) and len(loads) == 2
    assert kept(provider, Texts("xy"), cache) is None


def test_a_kind_has_one_provider():
    assert "scan" in PROVIDERS
    with pytest.raises(BuildError, match="two providers of kind 'scan'"):
        Provider("scan", Texts, _length, as_json(int))


DERIVED = {"get_json", "put_json", "get_object", "put_object", "get_frozen", "has", "has_kept", "get_kept_json",
           "put_kept_json"}
"""`Cache`'s derived store."""



def _receiver(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def test_only_the_providers_write_and_read_the_derived_store():
    found = set()
    for path in sorted((REPO / "reader").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel in ("reader/providers.py", "reader/cache.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DERIVED \
                    and _receiver(node.func.value) not in ("corpus", "old", "new", "old_corpus"):  # Corpus.has
                found.add(rel)
    assert found == set()
