"""A source page's outline and the search entries that land on lines: each definition at `#L<n>`,
each note at `#note-<id>`, in the site's search index (tests/test_search_index.py reads it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from reader.extract.symbols import definitions_of, module_doc
from reader.model import Span, Symbol
from reader.render.code.entries import definition_entries, page_entry, searchable
from reader.render.code.outline import outline, outline_data
from reader.render.common.model import DefinitionView, SearchEntry

MODULE = '''"""Lowering rules.

More here."""
import functools
from x import safe_map

__all__ = ["Rule"]
map, unsafe_map = safe_map, map
partial = functools.partial
load_p = Primitive("load")
TABLE = {
    "a": 1,
}
PRIMS = make_table(
    1, 2)


class Rule(Base, metaclass=Meta):
  """A \u202erule.

  Details."""
  name: str = ""

  def __init__(self, name):
    self.name = name

  def apply(self, ctx, /, x, *args, axis=0, **params):
    return x

  class Inner:
    def go(self):
      pass


if FLAG:
  def helper(a, *, b):
    """Helps."""
else:
  def helper(a, *, b):
    pass
'''


def _outline(text: str):
    """The outline as a source page makes it: from the scan's definitions and docstring line."""
    return outline(definitions_of(text), module_doc(ast.parse(text)))


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if needle in line)


def test_outline_nests_methods_and_keeps_only_the_notable_names():
    shape = _outline(MODULE)
    assert shape.doc == "Lowering rules."
    assert [(i.qualname, i.kind) for i in shape.items] == [
        ("load_p", "variable"), ("TABLE", "variable"), ("PRIMS", "variable"), ("Rule", "class"),
        ("helper", "function")]  # not `__all__`, nor the aliases `map`, `unsafe_map`, `partial`
    rule = shape.items[3]
    assert [c.qualname for c in rule.children] == ["Rule.__init__", "Rule.apply", "Rule.Inner"]
    assert rule.children[2].children[0].qualname == "Rule.Inner.go"
    assert (rule.signature, rule.doc, rule.line) == ("(Base, metaclass=Meta)", "A \\u202erule.",
                                                     _line(MODULE, "class Rule"))
    assert rule.children[1].signature == "(self, ctx, /, x, *args, axis, **params)"
    assert shape.items[4].signature == "(a, *, b)" and shape.items[4].doc == "Helps."
    assert shape.items[4].line == _line(MODULE, "def helper")  # the first of the two
    values = [i.signature for i in shape.items[:3]]
    assert values == ["= Primitive('load')", "= {…}", "= make_table(…)"]


def test_outline_data_is_a_line_per_name_with_its_kind_line_and_depth():
    shape = _outline(MODULE)
    rows = outline_data(shape.items).splitlines()
    assert len(rows) == len(shape.walk()) == 9
    assert rows[3:8] == [f"c{_line(MODULE, 'class Rule')} Rule",
                         f" m{_line(MODULE, 'def __init__')} __init__",
                         f" m{_line(MODULE, 'def apply')} apply",
                         f" c{_line(MODULE, 'class Inner')} Inner",
                         f"  m{_line(MODULE, 'def go')} go"]


def test_an_unparsable_file_still_has_its_outline_from_the_symbols():
    shape = outline([DefinitionView(Symbol("f", "function", Span(3, 3), 3))])
    assert [(i.qualname, i.signature, i.doc) for i in shape.items] == [("f", "", "")]


def test_definition_entries_read_as_kind_name_signature_and_docstring():
    shape = _outline(MODULE)
    entries = {e.title: e for e in definition_entries("pkg/mod.py", shape)}
    assert "Rule.__init__" not in entries  # dunder methods are found through their class
    apply = entries["Rule.apply"]
    assert apply.fragment == f"L{_line(MODULE, 'def apply')}"
    assert apply.text == "method apply(self, ctx, /, x, *args, axis, **params)"
    assert entries["Rule"].text == "class Rule(Base, metaclass=Meta): A \\u202erule."  # shown, not hidden
    assert entries["load_p"].text == "variable load_p = Primitive('load')"
    assert entries["TABLE"].text == "variable TABLE = {…}"
    for test in ("pkg/mod_test.py", "pkg/test_mod.py", "conftest.py"):
        assert definition_entries(test, shape) == []  # a test file: its page's entry only
    own = page_entry("mod.py", shape, 1234)
    assert own == SearchEntry("", "mod.py", "<p>Lowering rules.</p><p>1,234 lines: 2 classes, "
                              "1 function, 3 methods, 3 module-level names.</p>")


def test_searchable_text_keeps_code_and_words_and_drops_figures_and_links():
    html = ('<p>A <a href="x.html">HiPrimitive</a> <code>pre-registers</code> rules.</p>'
            '<figure><svg><text>axis label</text></svg><figcaption>Cap</figcaption></figure>'
            '<ul><li><em>one</em></li><li>two &amp; three</li></ul>')
    assert searchable(html, 1000) == ("A HiPrimitive <code>pre-registers</code> rules. "
                                      "<em>one</em> two &amp; three")
    assert searchable("<p>one <code>two three four</code> five</p>", 5) == "one <code>two…</code>"


# A real build ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    from tests.small_project import build_small

    return build_small(tmp_path_factory.mktemp("search")).root / "site"


def test_the_built_index_lands_definitions_on_lines_and_notes_on_notes(site):
    from tests.test_search_index import built_definitions, built_documents

    core = "source/pkg/core.py.html"
    defs = built_definitions(site)
    assert defs["BlockSpec"] == (f"{core}#L6", "class", "BlockSpec: A block of an array.")
    assert defs["BlockSpec.to_block_mapping"] == (f"{core}#L13", "method", "to_block_mapping(self, grid)")
    assert defs["pallas_call"][0] == "source/pkg/call.py.html#L5"
    docs = {d[0]: d for d in built_documents(site)}
    note = docs["articles/tour.html#note-tour-blockspec"]
    assert note[1] == "The spec." and note[2].startswith("A tour · pkg/core.py, lines 5")
    # the page's own entry reads as a sentence, not a list of names
    assert docs[core][3] == "A tiny module for the golden page. 24 lines: 2 classes, 2 methods, 1 module-level name."
    # every entry's fragment is an id on its page
    for location in [*docs, *(d[0] for d in defs.values())]:
        page, _, fragment = location.partition("#")
        if fragment:
            assert f'id="{fragment}"' in (site / page).read_text(), location


def test_a_source_page_opens_on_its_code_with_a_linked_outline(site):
    page = (site / "source/pkg/core.py.html").read_text()
    assert "Defines" not in page and 'class="rd-indexed"' not in page
    outline_at, code_at = page.index('<nav class="rd-outline"'), page.index('<div class="rd-file"')
    assert page.index("<h1") < outline_at < code_at
    nav = page[outline_at:page.index("</nav>", outline_at)]
    data = re.search(r'data-outline="([^"]*)"', nav).group(1)
    assert data.splitlines() == ["c6 BlockSpec", " m13 to_block_mapping", "c17 BlockMapping",
                                 " m19 __init__", "v24 TROJAN"]
    assert 'aria-controls="rd-outline-panel"' in nav and 'id="rd-outline-panel"' in nav
    assert len(re.findall(r"<[a-z]", nav)) == 3  # nav, button, panel: the list is built when shown
