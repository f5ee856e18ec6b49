"""Golden pages: a small fixture rendered as the site renders it. Regenerate with one command:

    python -m tests.golden        # rewrites tests/golden/*; review with `git diff tests/golden`

`tests/test_render_golden.py` renders the same fixture and compares byte for byte.
"""

from __future__ import annotations

from pathlib import Path

from reader.cache import blob_sha
from reader.extract import index_from_sources
from reader.render.generate import PinnedFile, source_doc
from reader.render.markdown import render_markdown
from reader.render.model import NoteView, Page
from reader.render.pages import source_page

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
PERMALINK = "https://example.invalid/repo/blob/{sha}/{path}"

NOTES = (
    NoteView("golden-blockspec", "golden-article", "The golden article", "fixture/core.py", 5, 11,
             "ok", render_markdown("A spec is **frozen**: `replace` makes a new one.\n\n"
                                   "<script>alert(1)</script> [x](javascript:alert(1))"),
             PERMALINK.format(sha="0" * 40, path="fixture/core.py") + "#L5-L11"),
    NoteView("golden-mapping", "other-article", "Another article", "fixture/core.py", 13, 14,
             "stale", render_markdown("Called once per operand."),
             PERMALINK.format(sha="0" * 40, path="fixture/core.py") + "#L13-L14"),
)


def render_fixture() -> dict[str, str]:
    """File name -> golden text: the page HTML and Markdown of both fixture files."""
    index = index_from_sources(SOURCES, pin="fixture")
    out = {}
    for path, text in SOURCES.items():
        f = PinnedFile("fixture", path, blob_sha(text.encode()), text)
        doc = source_doc(index, f, PERMALINK.format(sha="0" * 40, path=path), {})
        doc = doc.__class__(**{**doc.__dict__, "notes": tuple(n for n in NOTES if n.path == path)})
        page: Page = source_page(doc, None, commit="0" * 40, release="fixture==1.0",
                                 commit_url="https://example.invalid/repo/tree/" + "0" * 40)
        stem = Path(path).stem
        out[f"{stem}.html"] = page.html
        out[f"{stem}.md"] = page.markdown
    return out


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, text in render_fixture().items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
        print(f"wrote {GOLDEN / name}")


if __name__ == "__main__":
    main()
