"""Anchoring notes on two real versions of pinned files (cuts of jax 0.10.1 and 0.10.2)."""

from __future__ import annotations

from dataclasses import replace

from reader.annotations.anchor import fingerprint, resolve_text
from reader.annotations.model import Note, Quote, Status
from reader.errors import Location
from reader.extract.symbols import symbols_of
from reader.model import Span, split_lines
from tests.annotations_project import fixture

OLD, NEW = fixture("pallas_call", "0.10.1"), fixture("pallas_call", "0.10.2")
FUSER_OLD, FUSER_NEW = fixture("fuser_utils", "0.10.1"), fixture("fuser_utils", "0.10.2")
WHERE = "jax/_src/pallas/pallas_call.py@990e6a0"


def note(**fields) -> Note:
    return Note(id="n", path="jax/_src/pallas/pallas_call.py", body="", where=Location("a.yaml", 3),
                **fields)


def accepted(n: Note, text: str) -> Note:
    """`n` as `reader accept` leaves it after a person read it against `text`."""
    a = resolve_text(n, text)
    assert a.status is Status.UNFINGERPRINTED, a.message
    assert a.span is not None
    return replace(n, fingerprint=a.fingerprint, line=a.span.start)


def line_of(text: str, needle: str, nth: int = 0) -> int:
    return [i for i, line in enumerate(split_lines(text), 1) if needle in line][nth]


def test_ok_when_the_code_and_its_line_are_unchanged():
    n = accepted(note(symbol="_pallas_call_impl"), NEW)
    a = resolve_text(n, NEW)
    start = line_of(NEW, "def _pallas_call_impl")
    assert (a.status, a.span, a.message) == (Status.OK, Span(start, start + 8), "")


def test_moved_when_unchanged_code_sits_at_other_lines():
    for n in (note(symbol="_unsupported_lowering_error"),
              note(quote=Quote("def _unsupported_lowering_error(platform: str) -> Exception:")),
              note(symbol="_unsupported_lowering_error", lines=(2, 6))):
        old = accepted(n, OLD)
        a = resolve_text(old, NEW)
        assert a.status is Status.MOVED
        assert a.fingerprint == old.fingerprint
        assert a.span is not None and old.line is not None
        offset = a.span.start - line_of(NEW, "def _unsupported_lowering_error")
        assert old.line - line_of(OLD, "def _unsupported_lowering_error") == offset
        assert a.span.start != old.line
        assert f"moved from line {old.line} to " in a.message
        assert a.hint == "run 'reader accept --moved'"


def test_lines_inside_a_changed_symbol_still_follow_unchanged_code():
    # The docstring of _broadcast_input_output_aliases did not change; its body did.
    docstring = note(symbol="_broadcast_input_output_aliases", lines=(8, 13))
    assert resolve_text(accepted(docstring, OLD), NEW).status is Status.MOVED


def test_stale_when_the_anchored_code_changed():
    for n in (note(symbol="_broadcast_input_output_aliases"),
              note(symbol="_broadcast_input_output_aliases", lines=(20, 24))):
        old = accepted(n, OLD)
        a = resolve_text(old, NEW, WHERE)
        assert a.status is Status.STALE
        assert a.span is not None and a.fingerprint != old.fingerprint
        assert a.message.startswith(f"the code at lines {a.span.start}-{a.span.end} changed")
        assert a.hint == "re-read the note against the code, fix it, then run 'reader accept n'"


def test_stale_when_the_quote_left_a_symbol_that_is_still_there():
    n = accepted(note(symbol="_broadcast_input_output_aliases",
                      quote=Quote("if dim is batching.not_mapped:")), OLD)
    a = resolve_text(n, NEW, WHERE)
    assert (a.status, a.span) == (Status.STALE, None)
    assert a.message == ("quote 'if dim is batching.not_mapped:' not found in "
                         "'_broadcast_input_output_aliases'")


def test_orphaned_when_symbol_and_quote_are_both_gone():
    n = accepted(note(symbol="_PALLAS_USE_MOSAIC_GPU",
                      quote=Quote('"jax_pallas_use_mosaic_gpu",')), OLD)
    a = resolve_text(n, NEW, WHERE)
    assert (a.status, a.span, a.acceptable) == (Status.ORPHANED, None, False)
    assert a.message == (f"symbol '_PALLAS_USE_MOSAIC_GPU' not found in {WHERE}, and quote "
                         "'\"jax_pallas_use_mosaic_gpu\",' is not in the file either")


def test_never_jumps_to_a_similar_looking_line():
    # 0.10.2 has `if dim is None:` where 0.10.1 had `if dim is batching.not_mapped:`.
    n = accepted(note(quote=Quote("if dim is batching.not_mapped:")), OLD)
    a = resolve_text(n, NEW, WHERE)
    assert (a.status, a.span) == (Status.ORPHANED, None)
    assert line_of(NEW, "if dim is None:")  # the look-alike is there, and was not taken


def test_ambiguous_when_a_unique_quote_became_repeated():
    n = accepted(note(quote=Quote("for eqn in jaxpr.eqns:")), FUSER_OLD)
    a = resolve_text(n, FUSER_NEW, "fuser_utils.py")
    first, second = line_of(FUSER_NEW, "for eqn in jaxpr.eqns:"), line_of(
        FUSER_NEW, "for eqn in jaxpr.eqns:", 1)
    assert (a.status, a.span) == (Status.AMBIGUOUS, None)
    assert a.candidates == (Span(first, first), Span(second, second))
    assert a.message == (f"quote 'for eqn in jaxpr.eqns:' matches 2 places in fuser_utils.py "
                         f"(lines {first}, {second})")


def test_a_symbol_or_context_disambiguates_a_repeated_quote():
    by_symbol = accepted(note(symbol="_jaxpr_signature", quote=Quote("for eqn in jaxpr.eqns:")),
                         FUSER_OLD)
    a = resolve_text(by_symbol, FUSER_NEW)
    assert a.status is Status.MOVED and a.span is not None
    assert a.span.start == line_of(FUSER_NEW, "for eqn in jaxpr.eqns:")
    by_prefix = note(quote=Quote("for eqn in jaxpr.eqns:", prefix="eqn_sigs = []\n  "))
    b = resolve_text(by_prefix, FUSER_NEW)
    assert b.status is Status.UNFINGERPRINTED and b.span == a.span


def test_a_symbol_defined_twice_is_ambiguous_without_a_quote():
    text = "try:\n  import numpy as np\n  X = 1\nexcept ImportError:\n  X = None\n"
    a = resolve_text(note(symbol="X"), text, "m.py")
    assert (a.status, a.candidates) == (Status.AMBIGUOUS, (Span(3, 3), Span(5, 5)))
    b = resolve_text(note(symbol="X", quote=Quote("None")), text)
    assert (b.status, b.span) == (Status.UNFINGERPRINTED, Span(5, 5))


def test_a_quote_gone_from_every_definition_of_a_twice_defined_symbol_is_stale_not_ambiguous():
    text = "try:\n  import numpy as np\n  X = 1\nexcept ImportError:\n  X = None\n"
    n = accepted(note(symbol="X", quote=Quote("None")), text)
    a = resolve_text(n, text.replace("X = None", "X = 0"), "m.py")
    assert a.status is Status.STALE
    assert a.message.startswith("quote 'None' is in none of the definitions of 'X' in m.py (lines 3, 5)")
    assert "occurs in only one" not in a.hint
    # A quote in both definitions is ambiguous, and the hint says what to do with the quote.
    b = resolve_text(note(symbol="X", quote=Quote("X = ")), text, "m.py")
    assert b.status is Status.AMBIGUOUS and "the quote is in 2 of them" in b.message
    assert b.hint.startswith("lengthen the quote, or add `prefix`/`suffix`")


def test_a_renamed_symbol_is_relocated_by_its_quote_but_never_silently():
    n = accepted(note(symbol="_pallas_call_dce_rule", quote=Quote("del used_outs")), NEW)
    renamed = NEW.replace("def _pallas_call_dce_rule(", "def _dce_rule(")
    a = resolve_text(n, renamed, WHERE)
    assert a.status is Status.MOVED and not a.acceptable
    assert a.span == Span(n.line or 0, n.line or 0)
    assert a.message.startswith("symbol '_pallas_call_dce_rule' not found in ")
    assert a.message.endswith(f"its quote is now at line {n.line} (in '_dce_rule')")
    assert a.hint == "set `symbol: _dce_rule`, then run 'reader accept n'"


def test_new_notes_that_do_not_anchor_are_input_errors():
    cases = {
        note(symbol="_pallas_call_imp"):
            f"symbol '_pallas_call_imp' not found in {WHERE} (did you mean '_pallas_call_impl'?)",
        note(symbol="_pallas_call_impl", quote=Quote("no such code")):
            "quote 'no such code' not found in '_pallas_call_impl'",
        note(symbol="_pallas_call_impl", lines=(3, 40)):
            "lines [3, 40] run past the end of '_pallas_call_impl' (9 lines)",
        note(quote=Quote("for eqn in jaxpr.eqns:", prefix="nothing like this")):
            None,
    }
    for n, message in cases.items():
        a = resolve_text(n, FUSER_OLD if message is None else NEW, WHERE)
        assert a.status is Status.INVALID, n
        if message:
            assert a.message == message
    inside = resolve_text(note(symbol="_pallas_call_impl", lines=(1, 2),
                                     quote=Quote("config.disable_jit(False)")), NEW)
    assert inside.status is Status.INVALID
    assert inside.message.endswith("is not within lines [1, 2] of '_pallas_call_impl' "
                                   "(it is at relative lines [8, 8])")


def test_fingerprint_ignores_trailing_space_and_uniform_reindent_only():
    lines = ["def f(x):", "  return x + 1", ""]
    base = fingerprint(lines, Span(1, 2))
    assert fingerprint(["def f(x):   ", "  return x + 1\t"], Span(1, 2)) == base
    assert fingerprint(["    def f(x):", "      return x + 1"], Span(1, 2)) == base
    assert fingerprint(["def f(x):", "    return x + 1"], Span(1, 2)) != base
    assert fingerprint(["def f(x):", "  return x + 2"], Span(1, 2)) != base
    assert len(base) == 12 and int(base, 16) >= 0


def test_resolution_depends_only_on_the_note_and_the_text():
    n = accepted(note(symbol="_broadcast_input_output_aliases"), OLD)
    on_new = resolve_text(n, NEW)
    assert on_new.span is not None and on_new.fingerprint != n.fingerprint
    assert (on_new.status, on_new.span.start) == (Status.STALE,
                                                   line_of(NEW, "def _broadcast_input_output_aliases"))
    assert resolve_text(n, OLD).status is Status.OK
    # The same answer from the symbols a cache hands over, and from the text with CRLF endings.
    assert resolve_text(n, NEW, symbols=symbols_of(NEW)) == on_new
    assert resolve_text(n, NEW.replace("\n", "\r\n")) == on_new
