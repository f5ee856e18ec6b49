"""Lab pages and their build-time artifacts (run in a child process, cached by the lab's hash)."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import pytest

from reader.cache import Cache
from reader.children import Children
from reader.extract import index_from_sources
from reader.labs import Artifact, ArtifactRun, LabArtifacts, load_labs
from reader.render.common.docs import source_resolver
from reader.render.common.model import SourceDoc
from reader.render.common.prose import Prose
from reader.render.lab.kind import lab_doc
from reader.render.lab.page import render_lab

REGISTRY = '''"""A tiny lab registry."""
import ast
from dataclasses import dataclass
from pathlib import Path

@dataclass(frozen=True)
class Lab:
    name: str
    title: str
    label: str
    phase: int

    @property
    def heading(self):
        return f"{self.label} · {self.title}"

LABS = {lab.name: lab for lab in (Lab("toy", "A toy", "LAB·0.1", 1), Lab("broken", "Broken", "LAB·0.2", 1))}

def docstring(name):
    return ast.get_docstring(ast.parse((Path(__file__).parent / f"{name}.py").read_text())) or ""

def exercises(name):
    for line in docstring(name).splitlines():
        if line.startswith("Exercises:"):
            items = [i.strip() for i in line.removeprefix("Exercises:").split(",")]
            return tuple((i.partition("::")[0], i.partition("::")[2]) for i in items if i)
    return ()
'''

TOY = '''"""LAB·0.1 · A toy: writes two artifacts.

It *teaches* nothing <script>alert(1)</script>.

Exercises: pkg/core.py::BlockSpec, pkg/core.py::Missing
"""
from pathlib import Path
from pkg import core


def artifacts(out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    # the project's absolute path, as an MLIR location has it: the site shows it relative
    (out_dir / "toy.txt").write_text(f"a < b\\n{Path(__file__).resolve()}:12:5\\n")
    (out_dir / "toy.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (out_dir / "ran").mkdir(exist_ok=True)
    return [out_dir / "toy.txt", out_dir / "toy.svg"]


SPEC = core.BlockSpec
'''

BROKEN = '''"""LAB·0.2 · Broken."""


def artifacts(out_dir):
    raise RuntimeError("no chip here")
'''

CORE = "class BlockSpec:\n    pass\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "kernels").mkdir(parents=True)
    (root / "kernels/__init__.py").write_text(REGISTRY)
    (root / "kernels/toy.py").write_text(TOY)
    (root / "kernels/broken.py").write_text(BROKEN)
    (root / "pkg").mkdir()
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/core.py").write_text(CORE)
    return root


@pytest.fixture(autouse=True)
def isolated_kernels():
    """Each test imports its own `kernels`; the project's is put back afterwards."""
    saved = {n: m for n, m in sys.modules.items() if n == "kernels" or n.startswith("kernels.")}
    yield
    for name in [n for n in sys.modules if n == "kernels" or n.startswith("kernels.")]:
        del sys.modules[name]
    sys.modules.update(saved)


def test_artifacts_run_once_then_come_from_the_cache(tmp_path):
    root = project(tmp_path)
    labs = load_labs(root)
    assert [lab.name for lab in labs] == ["toy", "broken"]
    toy = labs[0]
    assert toy.exercises == (("pkg/core.py", "BlockSpec"), ("pkg/core.py", "Missing"))
    cache = Cache(tmp_path / "cache")
    first = ArtifactRun(root, labs, cache, Children()).results()
    assert [a.name for a in first["toy"].files] == ["toy.txt", "toy.svg"]
    assert first["toy"].files[0].data == b"a < b\nkernels/toy.py:12:5\n"
    assert "RuntimeError: no chip here" in first["broken"].error
    again = ArtifactRun(root, labs, cache, Children())
    assert again.proc is not None  # the failed lab is tried again; the good one is a cache hit
    assert again.results()["toy"] == first["toy"]


def test_lab_page_links_exercises_embeds_artifacts_and_shows_its_source(tmp_path):
    root = project(tmp_path)
    toy = load_labs(root)[0]
    index = index_from_sources({"pkg/core.py": CORE})
    docs = {"pkg/core.py": SourceDoc("pin", "pkg/core.py", "b" * 40, CORE, "source/pkg/core.py.md")}
    resolver = source_resolver(index, docs)
    refs = index.references_in(toy.text, toy.path)
    artifacts = LabArtifacts((Artifact("toy.txt", b"x < y\n"), Artifact("toy.svg", b"<svg/>")))
    doc = lab_doc(toy, index, refs, resolver, {"toy": artifacts}, (("articles/a.md", "An article"),))
    page, assets = render_lab(doc, None, Prose(resolver))
    assert page.src_uri == "labs/toy.md" and page.title == "LAB·0.1 · A toy"
    assert '<a href="../source/pkg/core.py.html#L1"><code>BlockSpec</code></a>' in page.html
    assert "<code>Missing</code> <em class=\"rd-missing\">(not found at the pin)</em>" in page.html
    assert [a.src_uri for a in assets] == ["labs/artifacts/toy/toy.svg"]
    assert '<img src="artifacts/toy/toy.svg" alt="toy.svg">' in page.html
    assert "<pre><code tabindex=\"0\">x &lt; y\n</code></pre>" in page.html  # a scroll box reached by Tab
    # the lab's code is linked; the link's title is in the view's table, set by codeview.js
    assert '<a href="../source/pkg/core.py.html#L1">BlockSpec</a>' in page.html
    assert "../source/pkg/core.py.html#L1\tpkg.core.BlockSpec" in html.unescape(page.html)
    assert '<a href="../articles/a.html">An article</a>' in page.html
    prose = page.html.split("\n</div>\n\n", 1)[0]  # what search indexes, before the code
    assert "<em>teaches</em>" in prose and "<script>" not in prose and "Exercises:" not in prose


def test_a_long_text_artifact_comes_packed_and_unpacks_to_its_text(tmp_path):
    """An artifact over PACK_TEXT characters (an IR dump) is on the page packed, reader.js putting
    its text back; a short one stays as text."""
    from reader.packed import unpacked
    from reader.render.lab.page import PACK_TEXT

    root = project(tmp_path)
    toy = load_labs(root)[0]
    index = index_from_sources({"pkg/core.py": CORE})
    docs = {"pkg/core.py": SourceDoc("pin", "pkg/core.py", "b" * 40, CORE, "source/pkg/core.py.md")}
    resolver = source_resolver(index, docs)
    dump = "".join(f"  %{n} = arith.constant {n} : i32 <x & y>\n" for n in range(PACK_TEXT // 20))
    artifacts = LabArtifacts((Artifact("toy.mlir", dump.encode()), Artifact("toy.txt", b"x < y\n")))
    doc = lab_doc(toy, index, index.references_in(toy.text, toy.path), resolver, {"toy": artifacts}, ())
    page, _ = render_lab(doc, None, Prose(resolver))
    m = re.search(r'<summary><code>toy\.mlir</code> \((\d+) lines\)</summary>\n'
                  r'<pre><code tabindex="0" data-packed="([A-Za-z0-9+/=]+)"></code></pre>', page.html)
    assert m and int(m[1]) == PACK_TEXT // 20 and unpacked(m[2]) == dump.encode()
    assert len(m[2]) < len(dump) / 4 and "arith.constant" not in page.html
    assert "<pre><code tabindex=\"0\">x &lt; y\n</code></pre>" in page.html


def test_a_labs_artifacts_are_kept_across_an_edit_of_its_docstrings_words():
    from reader.labs import code_of

    lab = '"""LAB·0.1 · A toy.\n\nWhat it shows.\n"""\nimport jax\n\nx = 1\n'
    reworded = lab.replace("What it shows.", "What it shows, reworded.")
    longer = lab.replace("What it shows.", "What it shows.\nAnd more.")
    assert code_of(reworded) == code_of(lab) and code_of(lab).endswith("\nimport jax\n\nx = 1\n")
    assert code_of(longer) != code_of(lab)  # its ops' lines moved: the lowered IR's locations
    assert code_of(lab.replace("x = 1", "x = 2")) != code_of(lab)


def test_a_build_with_the_labs_unchanged_parses_none_of_them(tmp_path, monkeypatch):
    """A lab's docstring and its statement's lines are kept in the cache by the module's text: a
    second process (here: the memo emptied) reads them back, the same, without parsing."""
    import ast

    import reader.labs as labs
    from reader.labs import code_of

    root = project(tmp_path)
    cache = Cache(tmp_path / "cache")
    monkeypatch.setattr(labs, "_heads", {})
    first = load_labs(root, cache)
    codes = [code_of(lab.text) for lab in first]
    monkeypatch.setattr(labs, "_heads", {})

    def parse(*_args, **_kwargs):
        raise AssertionError("a lab parsed again though its text is unchanged")

    monkeypatch.setattr(ast, "parse", parse)
    again = load_labs(root, cache)
    assert again == first and [code_of(lab.text) for lab in again] == codes
    assert first[0].docstring.startswith("LAB·0.1 · A toy") and first[0].exercises
    monkeypatch.undo()
    edited = (root / "kernels" / "toy.py").read_text().replace("A toy:", "A toy, edited:")
    (root / "kernels" / "toy.py").write_text(edited)
    assert load_labs(root, cache)[0].docstring.startswith("LAB·0.1 · A toy, edited:")


def test_a_labs_references_are_read_back_across_an_edit_of_its_docstrings_words(tmp_path, monkeypatch):
    """A docstring holds no reference: a lab's references are kept by its code without the
    docstring's words, so rewording the docstring resolves nothing again (and gives the same)."""
    from dataclasses import replace

    from reader.labs import code_of
    from reader.render.lab.build import lab_refs

    root = project(tmp_path)
    toy = load_labs(root)[0]
    index = index_from_sources({"pkg/core.py": CORE})
    cache = Cache(tmp_path / "cache")
    first = lab_refs([toy], index, cache, "world")
    assert first["toy"] and first["toy"] == index.references_in(toy.text, toy.path)
    reworded = replace(toy, text=toy.text.replace("It *teaches* nothing", "It *teaches* little"))
    assert reworded.text != toy.text and code_of(reworded.text) == code_of(toy.text)

    def resolved(*_args):
        raise AssertionError("a lab's references resolved again for its docstring's words")

    monkeypatch.setattr(index, "references_in", resolved)
    assert lab_refs([reworded], index, cache, "world") == first

