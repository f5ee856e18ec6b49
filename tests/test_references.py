"""Cross-references: names resolved through imports, aliases, re-exports, members and scopes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.extract import Index, Target, build_index, index_from_sources
from reader.extract import index as index_mod
from reader.model import Reference
from reader.workers import Workers

ROOT = Path(__file__).resolve().parents[1]

CORE = """\
class BlockSpec:
    block_shape: tuple = ()

    def to_block_mapping(self):
        return self.helper()

    def helper(self):
        return 1

    @staticmethod
    def make(self):
        return self.helper

def grid_env():
    pass
"""

FILES = {
    "pkg/__init__.py": "",
    "pkg/_src/__init__.py": "",
    "pkg/_src/core.py": CORE,
    "pkg/_src/sub.py": """\
from pkg._src import core as pallas_core
from .core import BlockSpec as BS
from . import core

class Tiled(pallas_core.BlockSpec):
    def run(self):
        return self.helper(), self.to_block_mapping

x = pallas_core.BlockSpec.to_block_mapping
y = BS
z = core.grid_env
""",
    "pkg/api/__init__.py": "from pkg.api.inner import BlockSpec as BlockSpec\n",
    "pkg/api/inner.py": "from pkg._src.core import BlockSpec\n",
}


def _at(text: str, refs: list[Reference], line: int, word: str, nth: int = 0) -> Reference | None:
    """The reference starting at the `nth` occurrence of `word` on `line`, if any."""
    src = text.splitlines()[line - 1]
    col = -1
    for _ in range(nth + 1):
        col = src.index(word, col + 1)
    return next((r for r in refs if r.line == line and r.col == col), None)


def _target(ref: Reference | None) -> tuple[str, str] | None:
    return (ref.target_module, ref.target_qualname) if ref else None


def _refs(files: dict[str, str], path: str) -> list[Reference]:
    return index_from_sources(files).references("src", path)


def test_module_alias_and_attribute_chain():
    text = FILES["pkg/_src/sub.py"]
    refs = _refs(FILES, "pkg/_src/sub.py")
    assert _target(_at(text, refs, 9, "pallas_core")) == ("pkg._src.core", "")
    assert _target(_at(text, refs, 9, "BlockSpec")) == ("pkg._src.core", "BlockSpec")
    assert _target(_at(text, refs, 9, "to_block_mapping")) == (
        "pkg._src.core", "BlockSpec.to_block_mapping")


def test_from_import_as_and_relative_imports():
    text = FILES["pkg/_src/sub.py"]
    refs = _refs(FILES, "pkg/_src/sub.py")
    assert _target(_at(text, refs, 10, "BS")) == ("pkg._src.core", "BlockSpec")
    assert _target(_at(text, refs, 11, "core")) == ("pkg._src.core", "")
    assert _target(_at(text, refs, 11, "grid_env")) == ("pkg._src.core", "grid_env")


def test_reexport_chain_through_init_files():
    files = {**FILES, "user.py": "import pkg.api as api\nfrom pkg.api import BlockSpec\n"
                                 "a = api.BlockSpec\nb = BlockSpec\nc = pkg.api\n"}
    refs = _refs(files, "user.py")
    text = files["user.py"]
    assert _target(_at(text, refs, 3, "BlockSpec")) == ("pkg._src.core", "BlockSpec")
    assert _target(_at(text, refs, 4, "BlockSpec")) == ("pkg._src.core", "BlockSpec")
    # `pkg` is not bound by `import pkg.api as api`: no link at all on line 5.
    assert [r for r in refs if r.line == 5] == []
    index = index_from_sources(files)
    assert index.resolve_attr(Target("module", "pkg.api"), "BlockSpec").qualname == "BlockSpec"


def test_methods_through_self_and_bases():
    text = FILES["pkg/_src/sub.py"]
    refs = _refs(FILES, "pkg/_src/sub.py")
    assert _target(_at(text, refs, 7, "helper")) == ("pkg._src.core", "BlockSpec.helper")
    assert _target(_at(text, refs, 7, "to_block_mapping")) == (
        "pkg._src.core", "BlockSpec.to_block_mapping")
    core_refs = _refs(FILES, "pkg/_src/core.py")
    assert _target(_at(CORE, core_refs, 5, "helper")) == ("pkg._src.core", "BlockSpec.helper")
    # A staticmethod's first parameter is an ordinary argument, not the class.
    assert _at(CORE, core_refs, 12, "helper") is None


def test_local_shadowing_is_not_linked():
    text = textwrap.dedent("""\
        from pkg._src.core import BlockSpec, grid_env

        def f(BlockSpec):
            return BlockSpec

        def g():
            grid_env = 3
            return grid_env, [BlockSpec for BlockSpec in range(3)]

        def h():
            def inner():
                return grid_env
            grid_env = 1
            return inner

        def k():
            global grid_env
            return grid_env

        class C:
            grid_env = 2
            v = grid_env
            def m(self):
                return grid_env

        u = BlockSpec
        """)
    files = {**FILES, "user.py": text}
    refs = _refs(files, "user.py")
    assert _at(text, refs, 4, "BlockSpec") is None       # parameter
    assert _at(text, refs, 8, "grid_env") is None        # local assignment
    assert _at(text, refs, 8, "BlockSpec") is None       # comprehension variable
    assert _at(text, refs, 12, "grid_env") is None       # enclosing function's local
    assert _target(_at(text, refs, 18, "grid_env")) == ("pkg._src.core", "grid_env")  # global
    assert _target(_at(text, refs, 22, "grid_env")) == ("user", "C.grid_env")  # class body
    assert _target(_at(text, refs, 24, "grid_env")) == ("pkg._src.core", "grid_env")
    assert _target(_at(text, refs, 26, "BlockSpec")) == ("pkg._src.core", "BlockSpec")


def test_class_body_name_links_to_the_class_member():
    text = "class K:\n    size = 4\n    double = size * 2\n"
    refs = _refs({"k.py": text}, "k.py")
    assert _target(_at(text, refs, 3, "size")) == ("k", "K.size")


def test_rebinding_at_module_level_follows_source_order():
    text = "from pkg._src.core import grid_env\nfirst = grid_env\ngrid_env = 5\nsecond = grid_env\n"
    refs = _refs({**FILES, "m.py": text}, "m.py")
    assert _target(_at(text, refs, 2, "grid_env")) == ("pkg._src.core", "grid_env")
    assert _target(_at(text, refs, 4, "grid_env")) == ("m", "grid_env")


def test_unresolvable_names_are_not_linked():
    text = "import numpy as np\nfrom pkg._src import core\nprint(np.zeros, core.missing, len)\n"
    refs = _refs({**FILES, "m.py": text}, "m.py")
    assert [_target(r) for r in refs if r.line == 3] == [("pkg._src.core", "")]


def test_circular_package_import_finds_the_submodule():
    files = {
        "mb/__init__.py": "from mb.ops import gmm as gmm\n",
        "mb/gmm.py": "def gmm():\n    pass\n",
        "mb/ops.py": "from mb import gmm as backend\ngmm = backend.gmm\n",
    }
    refs = _refs(files, "mb/ops.py")
    assert _target(_at(files["mb/ops.py"], refs, 2, "backend")) == ("mb.gmm", "")
    assert _target(_at(files["mb/ops.py"], refs, 2, "gmm", 1)) == ("mb.gmm", "gmm")


def test_columns_count_characters_not_bytes():
    text = "from pkg._src.core import grid_env\ns = 'é' + str(grid_env)\n"
    refs = _refs({**FILES, "m.py": text}, "m.py")
    ref = _at(text, refs, 2, "grid_env")
    assert ref is not None and text.splitlines()[1][ref.col:ref.col + ref.length] == "grid_env"


def test_where_used_and_definition_of():
    index = index_from_sources(FILES)
    uses = index.where_used("pkg._src.core", "BlockSpec")
    assert {(u.path, u.line) for u in uses} >= {("pkg/_src/sub.py", 5), ("pkg/_src/sub.py", 9),
                                               ("pkg/_src/sub.py", 10)}
    d = index.definition_of("pkg._src.core", "BlockSpec.helper")
    assert d is not None and d.path == "pkg/_src/core.py" and d.symbol is not None
    assert d.symbol.line == 7


@pytest.fixture(scope="module")
def real_index():
    return build_index(Corpus.open(Project.load(ROOT)))


def test_kernel_file_resolves_pl_blockspec(real_index):
    text = textwrap.dedent("""\
        import jax
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import tpu as pltpu

        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]

        spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
        call = pl.pallas_call(kernel, grid=(4,), in_specs=[spec])
        space = pltpu.MemorySpace.VMEM
        """)
    refs = real_index.references_in(text, "kernels/first_kernels.py")
    assert _target(_at(text, refs, 8, "BlockSpec")) == ("jax._src.pallas.core", "BlockSpec")
    assert _target(_at(text, refs, 8, "pl")) == ("jax.experimental.pallas", "")
    assert _target(_at(text, refs, 9, "pallas_call")) == (
        "jax._src.pallas.pallas_call", "pallas_call")
    assert _target(_at(text, refs, 10, "MemorySpace")) == (
        "jax._src.pallas.mosaic.core", "MemorySpace")
    assert _at(text, refs, 9, "kernel") is None  # the lab's own function is not in the corpus


def test_real_pins_reexport_and_where_used(real_index):
    target = real_index.resolve_attr(Target("module", "jax.experimental.pallas"), "BlockSpec")
    assert (target.kind, target.module, target.qualname) == (
        "def", "jax._src.pallas.core", "BlockSpec")
    uses = real_index.where_used("jax._src.pallas.core", "BlockSpec")
    assert any(u.path == "jax/_src/pallas/mosaic/pipeline.py" for u in uses)


def test_cache_hit_on_second_run(tmp_path, monkeypatch):
    cache = Cache(tmp_path / "cache")
    manifest = {path: cache.put_blob(text.encode()) for path, text in FILES.items()}
    corpus = Corpus(Project(tmp_path, {}, {}), cache, {"src": manifest})
    calls: list[str] = []
    real_job = index_mod._scan_job
    monkeypatch.setattr(index_mod, "_scan_job", lambda job: calls.append(job[1]) or real_job(job))
    first = build_index(corpus, workers=Workers(1))
    assert sorted(calls) == sorted(m.removesuffix(".__init__") for m in
                                   (p.removesuffix(".py").replace("/", ".") for p in FILES))
    calls.clear()
    second = build_index(corpus, workers=Workers(1))
    assert calls == []
    assert second.references("src", "pkg/_src/sub.py") == first.references("src", "pkg/_src/sub.py")


def _indexed_twice(tmp_path):
    """The corpus of FILES indexed twice on one cache: (the first index, every symbol's uses in
    it, the second index)."""
    cache = Cache(tmp_path / "cache")
    manifest = {path: cache.put_blob(text.encode()) for path, text in FILES.items()}
    corpus = Corpus(Project(tmp_path, {}, {}), cache, {"src": manifest})
    first = build_index(corpus, workers=Workers(1))
    uses = {(m, s.qualname): first.where_used(m, s.qualname)
            for m in first.summaries for s in first.summaries[m].symbols}
    return first, uses, build_index(corpus, workers=Workers(1))


def test_a_second_index_reads_summaries_references_and_uses_from_the_cache(tmp_path, monkeypatch):
    first, uses, second = _indexed_twice(tmp_path)
    refs = {p: first.references("src", p) for p in FILES}
    assert not second.summaries.loaded  # read when first asked for
    monkeypatch.setattr(index_mod, "uses_by_target", lambda *_: pytest.fail("uses recomputed"))
    monkeypatch.setattr(Index, "references_of", lambda self, fs: pytest.fail("refs recomputed"))
    assert {p: second.references("src", p) for p in FILES} == refs
    assert {(m, q): second.where_used(m, q) for m, q in uses} == uses
    assert any(uses.values())


def test_a_warm_index_answers_where_used_from_each_modules_share_alone(tmp_path, monkeypatch):
    _first, uses, second = _indexed_twice(tmp_path)
    monkeypatch.setattr(index_mod.CorpusStore, "load_uses", lambda self: pytest.fail("whole lists read"))
    monkeypatch.setattr(index_mod, "uses_by_target", lambda *_: pytest.fail("uses recomputed"))
    assert {(m, q): second.where_used(m, q) for m, q in uses} == uses
    assert any(uses.values())


def test_a_warm_index_places_definitions_without_reading_their_modules_scans(tmp_path, monkeypatch):
    """The corpus's table of lines, kept with the where-used lists, answers where a definition is
    (a page's links) as the modules' scans do, none of them read."""
    first, uses, second = _indexed_twice(tmp_path)
    names = [(m, q) for m, q in uses] + [(m, "") for m in first.summaries] + [("pkg", "nowhere"), ("nomodule", "f")]
    expected = {(m, q): (d.path, d.symbol.line if d.symbol else None) if (d := first.definition_of(m, q)) else None
                for m, q in names}
    monkeypatch.setattr(index_mod.FileSummary, "from_json", lambda data: pytest.fail("a module's scan read"))
    assert {(m, q): (tuple(p) if (p := second.defined_at(m, q)) else None) for m, q in names} == expected
    assert any(v and v[1] for v in expected.values()) and None in expected.values()


def test_no_real_lab_references_anything_from_its_docstring(real_index):
    """What keeping a lab's references by its code alone relies on, on every real lab."""
    from reader.labs import code_of, load_labs

    labs = load_labs(ROOT)
    assert labs
    for lab in labs:
        assert real_index.references_in(code_of(lab.text), lab.path) == \
            real_index.references_in(lab.text, lab.path), lab.name
