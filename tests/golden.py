"""Golden pages: a small fixture rendered as the site renders it. Regenerate with one command:

    python -m tests.golden        # rewrites tests/golden/*; review with `git diff tests/golden`

`tests/test_render_golden.py` renders the same fixture and compares byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

from reader.annotations.model import Article, Note, ReadSpec, Section
from reader.cache import blob_sha
from reader.errors import Location
from reader.extract import index_from_sources
from reader.extract.index import Index
from reader.model import SourceFile
from reader.packed import unpacked_call
from reader.render.article.content import article_doc
from reader.render.article.page import render_article
from reader.render.code.annotated import source_page
from reader.render.code.uses import citations
from reader.render.common.docs import source_doc, source_resolver
from reader.render.common.model import NoteView, Page, SourceDoc
from reader.render.common.prose import Prose
from reader.render.search.index import search_pieces

GOLDEN = Path(__file__).resolve().parent / "golden"

CORE = '''"""A tiny module for the golden page."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class BlockSpec:
  """A block of an array.

  A docstring over several lines keeps its colour on each of them.
  """
  block_shape: tuple[int, ...] = ()

  def to_block_mapping(self, grid):
    return BlockMapping(self, grid)


class BlockMapping:

  def __init__(self, spec, grid):
    self.spec = spec  # a comment with < & >
    self.grid = grid


TROJAN = "access\u202e\u2066 granted"
'''

CALL = '''from fixture import core as pallas_core
from fixture.core import BlockSpec


def pallas_call(kernel, spec: BlockSpec):
  return pallas_core.BlockMapping(spec, (1,))
'''

SOURCES = {"fixture/core.py": CORE, "fixture/call.py": CALL}
SHA = "0" * 40
PERMALINK = "https://example.invalid/repo/blob/{sha}/{path}"
HOSTILE = "<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>"


def _note(id: str, path: str, start: int, end: int, status: str, body: str,
          article: str = "golden-article", title: str = "The golden article") -> NoteView:
    link = PERMALINK.format(sha=SHA, path=path) + f"#L{start}-L{end}"
    return NoteView(id, article, title, path, start, end, status, body, link)


NOTES = (
    _note("golden-blockspec", "fixture/core.py", 5, 11, "ok",
          "A spec is **frozen**: [[fixture/core.py::BlockSpec.to_block_mapping]] makes the mapping.\n\n"
          + HOSTILE),
    _note("golden-mapping", "fixture/core.py", 13, 14, "stale", "Called once per operand.",
          "other-article", "Another article"),
    _note("golden-call", "fixture/call.py", 5, 6, "ok",
          "The caller, [[fixture/call.py::pallas_call|this function]]; see [[page:other-article]]."),
)

ARTICLE = Article(
    "The golden article", "golden-article", 1, "article", 1, Location("annotations/golden.yaml", 1),
    summary="A page <em>about</em> two files.",
    reads=(ReadSpec("fixture/core.py", ("BlockSpec",), Location("annotations/golden.yaml", 5)),),
    kernels=("first_kernels",),
    intro="Read [[fixture/core.py::BlockSpec]] first. " + HOSTILE,
    sections=(Section("Why blocks", "Because *tiles*.", Location("annotations/golden.yaml", 9)),),
    outro="Then [[lab:first_kernels]]; {{fact:golden.count}} things, {{fact:golden.unknown}}.",
    notes=(Note("golden-blockspec", "fixture/core.py", "", Location("annotations/golden.yaml", 12)),
           Note("golden-call", "fixture/call.py", "", Location("annotations/golden.yaml", 14))),
)


def golden_files() -> list[SourceFile]:
    """The fixture's pinned files."""
    return [SourceFile("fixture", path, blob_sha(text.encode()), text) for path, text in SOURCES.items()]


def golden_docs(index: Index) -> dict[str, SourceDoc]:
    """Each fixture file as its source page shows it, with its notes."""
    return {f.path: replace(source_doc(index, f, PERMALINK.format(sha=SHA, path=f.path), {}),
                            notes=tuple(n for n in NOTES if n.path == f.path)) for f in golden_files()}


def render_fixture() -> dict[str, str]:
    """File name -> golden text: the page HTML and Markdown of both fixture files and an article,
    and the site's search index over them (its pieces' scripts before they are packed, which
    tests/js reads)."""
    index = index_from_sources(SOURCES, pin="fixture")
    files = golden_files()
    docs = golden_docs(index)
    prose = Prose(source_resolver(index, docs), {"golden-article": ARTICLE.title,
                                                 "other-article": "Another article"},
                  {"first_kernels": "First kernels"}, lambda: {"golden.count": 3})
    cited = citations(NOTES)
    pages: list[Page] = [source_page(d, None, prose, commit=SHA, release="fixture==1.0",
                                     commit_url="https://example.invalid/repo/tree/" + SHA,
                                     line_of=lambda path, n: SOURCES[path].splitlines()[n - 1],
                                     cited=cited.get(d.path, ()))
                         for d in docs.values()]
    notes = [n for n in NOTES if n.article == ARTICLE.slug]
    labs = {"first_kernels": ("labs/first_kernels.md", "First kernels")}
    pages.append(render_article(article_doc(ARTICLE, notes, docs, index, labs, SHA), None, prose))
    out = {}
    for page in pages:
        stem = Path(page.src_uri).name.removesuffix(".md").removesuffix(".py")
        out[f"{stem}.html"] = page.html
        out[f"{stem}.md"] = page.markdown
        for asset in page.assets:  # a source page's hover-card data, references, paint and scopes (unpacked)
            kind = asset.src_uri.split("/")[1]  # assets/code/... (paint, scopes, cards, uses)
            out[f"{stem}.{kind}.js"] = (unpacked_call(asset.data) or b"(not packed)").decode("utf-8")
        if page.search:  # the page's places in the search index
            out[f"{stem}.search.json"] = json.dumps([asdict(e) for e in page.search], indent=1,
                                                    ensure_ascii=False) + "\n"
    out["index.search.js"] = "".join(f"// {a.src_uri}\n{a.data.decode('utf-8')}"
                                     for a in sorted(search_pieces(files, pages), key=lambda a: a.src_uri))
    return out


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for old in GOLDEN.iterdir():
        old.unlink()
    for name, text in render_fixture().items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
        print(f"wrote {GOLDEN / name}")


if __name__ == "__main__":
    main()
