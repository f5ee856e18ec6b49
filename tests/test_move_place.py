"""Placement proposals (reader/move/place.py) on small before/after texts: each kind of move of a
note's code, the proposal's new anchor resolving to exactly its lines, and orphans with reasons."""

from __future__ import annotations

import textwrap

import pytest

from reader.annotations.anchor import fingerprint, resolve_text, symbols_in
from reader.annotations.model import Note, Quote, SymbolLines
from reader.errors import Location
from reader.model import Span, Symbol, split_lines
from reader.move.align import likeness, line_map
from reader.move.place import SURE, Proposal, propose, propose_all


class Texts:
    """`place.Files` over a dict of path -> text."""

    def __init__(self, files: dict[str, str]):
        self.files = {p: textwrap.dedent(t) for p, t in files.items()}

    def paths(self) -> list[str]:
        return sorted(self.files)

    def text(self, path: str) -> str | None:
        return self.files.get(path)

    def symbols(self, path: str) -> tuple[Symbol, ...]:
        return symbols_in(self.files[path]) if path in self.files else ()


def note(nid: str, path: str = "core.py", symbol: str | None = None,
         lines: tuple[int, int] | None = None, quote: str | None = None) -> Note:
    return Note(nid, path, "body", Location("annotations/a.yaml", 1), symbol,
                SymbolLines(*lines) if lines else None, Quote(quote) if quote else None)


def accepted(n: Note, old: Texts) -> Note:
    """`n` as `reader accept` leaves it at the old side."""
    a = resolve_text(n, old.text(n.path) or "")
    assert a.span is not None and a.fingerprint is not None, a.message
    return Note(n.id, n.path, n.body, n.where, n.symbol, n.lines, n.quote, a.fingerprint,
                a.span.start)


def placed(n: Note, before: dict[str, str], after: dict[str, str]) -> tuple[Proposal, Texts]:
    old, new = Texts(before), Texts(after)
    p = propose(accepted(n, old), old, new)
    if p.span is not None:  # the anchor written resolves to exactly the lines proposed
        written = Note(n.id, p.path, "", n.where, p.symbol, p.lines, p.quote)
        assert resolve_text(written, new.text(p.path) or "").span == p.span
        assert p.fingerprint == fingerprint(split_lines(new.text(p.path) or ""), p.span)
    return p, new


def line_of(texts: Texts, path: str, text: str) -> int:
    return [i for i, x in enumerate(split_lines(texts.text(path) or ""), 1) if text in x][0]


KERNEL = """\
    def kernel(x, y):
        total = x + y
        scaled = total * 2
        return scaled
    """


def test_unchanged_code_that_moved_is_certain_and_unmarked():
    p, new = placed(note("n", symbol="kernel"), {"core.py": KERNEL},
                    {"core.py": "import os\n\n\n" + textwrap.dedent(KERNEL)})
    assert (p.how, p.span, p.confidence, p.marked) == ("moved", Span(4, 7), 1.0, False)


def test_a_quote_that_left_its_range_is_recentred_on_it():
    after = """\
    def kernel(x, y):
        # New lines above the quoted one.
        x = x.astype("float32")
        y = y.astype("float32")
        total = x + y
        scaled = total * 2
        return scaled
    """
    p, new = placed(note("n", symbol="kernel", lines=(2, 3), quote="scaled = total * 2"),
                    {"core.py": KERNEL}, {"core.py": after})
    assert (p.how, p.reason) == ("recentred", "its quote left its lines: re-centred on it "
                                              "(lines 2-3 -> 5-6)")
    assert p.span == Span(5, 6) and p.lines == SymbolLines(5, 6)
    assert p.quote == Quote("scaled = total * 2")
    assert not p.changed and not p.marked and p.confidence >= SURE


def test_a_renamed_function_is_found_by_its_body():
    after = """\
    def unrelated(a):
        return a


    def fused_kernel(x, y):
        total = x + y
        scaled = total * 2
        return scaled
    """
    p, new = placed(note("n", symbol="kernel", lines=(3, 3)), {"core.py": KERNEL},
                    {"core.py": after})
    assert (p.how, p.symbol, p.lines, p.span) == ("renamed", "fused_kernel", SymbolLines(3, 3),
                                                  Span(7, 7))
    assert "'fused_kernel' renamed from 'kernel'" in p.reason
    assert not p.changed  # the line itself is the same


def test_a_symbol_note_on_a_renamed_function_is_marked_its_code_changed():
    after = KERNEL.replace("def kernel(", "def fused_kernel(")
    p, _ = placed(note("n", symbol="kernel"), {"core.py": KERNEL}, {"core.py": after})
    assert (p.how, p.symbol, p.lines, p.span) == ("renamed", "fused_kernel", None, Span(1, 4))
    assert p.changed and p.marked


SPLIT_BEFORE = """\
    def step(state, batch):
        grads = compute(state, batch)
        grads = clip(grads, 1.0)
        grads = average(grads)
        params = state.params - 0.1 * grads
        state = state.replace(params=params)
        state = state.replace(step=state.step + 1)
        return state
    """

SPLIT_AFTER = """\
    def gradients(state, batch):
        grads = compute(state, batch)
        grads = clip(grads, 1.0)
        grads = average(grads)
        return grads


    def step(state, batch):
        grads = gradients(state, batch)
        params = state.params - 0.1 * grads
        state = state.replace(params=params)
        state = state.replace(step=state.step + 1)
        return state
    """


def test_a_function_split_in_two_each_note_follows_its_lines():
    notes = [note("clip", symbol="step", lines=(2, 4), quote="grads = clip(grads, 1.0)"),
             note("update", symbol="step", lines=(5, 7))]
    old, new = Texts({"core.py": SPLIT_BEFORE}), Texts({"core.py": SPLIT_AFTER})
    clip, update = propose_all([accepted(n, old) for n in notes], old, new)
    assert (clip.how, clip.symbol, clip.lines, clip.span) == ("split", "gradients",
                                                              SymbolLines(2, 4), Span(2, 4))
    assert "'gradients' split out of 'step'" in clip.reason
    assert (update.how, update.symbol, update.lines, update.span) == (
        "realigned", "step", SymbolLines(3, 5), Span(10, 12))
    assert not update.marked


SIBLINGS = """\
    class Ref:
        def copy_in(self, src):
            slot = self.next_slot()
            dma = make_copy(src, self.window(slot), self.sem(slot))
            dma.start()
            self.count += 1
            return self

        def copy_out(self, dst):
            slot = self.current_slot()
            dma = make_copy(self.window(slot), dst, self.sem(slot))
            dma.start()
            self.count -= 1
            return self
    """


def test_a_sibling_that_looked_alike_before_is_no_split():
    # copy_out hands its copy to a helper; copy_in, as like it as before, does not take its note.
    after = SIBLINGS.replace("""\
            slot = self.current_slot()
            dma = make_copy(self.window(slot), dst, self.sem(slot))
            dma.start()
            self.count -= 1
            return self""", """\
            slot = self.current_slot()
            self._copy_out_at(slot, dst).start()
            self.count -= 1
            return self""")
    for lines in ((2, 5), None):  # some of its lines, all of it
        p, _ = placed(note("out", symbol="Ref.copy_out", lines=lines), {"core.py": SIBLINGS},
                      {"core.py": after})
        assert (p.how, p.symbol) == ("realigned", "Ref.copy_out"), p.reason
        assert p.changed and p.marked and "next best core.py:2-7 (Ref.copy_in" in p.reason


def test_a_renamed_file_is_followed_and_its_path_rewritten():
    p, _ = placed(note("n", path="jax/_src/pallas/mosaic/tpu_info.py", symbol="kernel",
                       lines=(2, 3)),
                  {"jax/_src/pallas/mosaic/tpu_info.py": KERNEL},
                  {"jax/_src/tpu_info.py": KERNEL, "jax/_src/other.py": "x = 1\n"})
    assert (p.how, p.path, p.symbol, p.lines, p.span) == (
        "file-moved", "jax/_src/tpu_info.py", "kernel", SymbolLines(2, 3), Span(2, 3))
    assert "moved from jax/_src/pallas/mosaic/tpu_info.py to jax/_src/tpu_info.py" in p.reason


def test_a_split_file_sends_each_note_where_its_code_went():
    kernel, step = textwrap.dedent(KERNEL), textwrap.dedent(SPLIT_BEFORE)
    before = {"ops.py": kernel + "\n\n" + step}
    after = {"ops.py": kernel, "training/step.py": "import ops\n\n\n" + step}
    notes = [note("k", path="ops.py", symbol="kernel", lines=(2, 2)),
             note("s", path="ops.py", symbol="step", lines=(5, 6), quote="params = state.params")]
    old, new = Texts(before), Texts(after)
    kept, moved = propose_all([accepted(n, old) for n in notes], old, new)
    assert (kept.how, kept.path, kept.span) == ("unchanged", "ops.py", Span(2, 2))
    assert (moved.how, moved.path, moved.symbol, moved.lines, moved.span) == (
        "file-moved", "training/step.py", "step", SymbolLines(5, 6), Span(8, 9))
    assert not moved.changed


def test_code_removed_is_an_orphan_with_its_reason_and_candidates():
    after = """\
    def other(a, b):
        return a - b
    """
    p, _ = placed(note("n", symbol="kernel", lines=(2, 3)), {"core.py": KERNEL},
                  {"core.py": after})
    assert (p.span, p.how, p.marked) == (None, "orphaned", True)
    assert p.reason.startswith("its code is gone: no definition at the new pins holds more than")
    assert [c.symbol for c in p.candidates] == ["other"]


def test_a_file_removed_is_an_orphan_saying_so():
    p, _ = placed(note("n", symbol="kernel"), {"core.py": KERNEL}, {"else.py": "x = 1\n"})
    assert p.span is None and "(core.py is not at the new pins)" in p.reason


def test_a_changed_line_rewrites_the_quote_and_marks_the_note():
    after = KERNEL.replace("scaled = total * 2", "scaled = total * factor")
    p, _ = placed(note("n", symbol="kernel", quote="scaled = total * 2"), {"core.py": KERNEL},
                  {"core.py": after})
    assert (p.span, p.quote, p.how) == (Span(3, 3), Quote("scaled = total * factor"), "realigned")
    assert p.changed and p.marked and "quote rewritten" in p.reason


def test_a_note_that_did_not_anchor_at_the_old_pins_keeps_its_own_anchor_marked():
    old = Texts({"core.py": KERNEL})
    new = Texts({"core.py": KERNEL.replace("return scaled", "return scaled  # not there")})
    p = propose(note("n", symbol="kernel", quote="not there"), old, new)
    assert (p.how, p.span, p.marked) == ("anchored", Span(4, 4), True)
    assert p.reason.startswith("it did not anchor at the old pins (quote 'not there' not found")
    gone = propose(note("n", symbol="kernel", quote="nowhere"), old, new)
    assert gone.span is None and gone.marked and "and quote 'nowhere' not found" in gone.reason


@pytest.mark.parametrize(("a", "b", "alike"), [("x = f(a, b)", "x = f(a, b, c)", True),
                                               ("return x", "raise ValueError(msg)", False)])
def test_likeness_of_lines(a, b, alike):
    assert (likeness(a, b) >= 0.6) is alike


def test_line_map_follows_reindented_and_moved_blocks():
    old = ["def f(x):", "  y = x + 1", "  return y", "", "def g():", "  pass"]
    new = ["def g():", "  pass", "", "class C:", "  def f(self, x):", "    y = x + 2",
           "    return y"]
    m = line_map(old, new)
    assert m.get(2) == (6, 1.0)  # re-indented, unchanged
    assert m.get(4) == (0, 1.0)  # moved above
    span = m.span(0, 2)
    assert span is not None and span[:2] == (4, 6) and 0.6 < span[2] < 1
