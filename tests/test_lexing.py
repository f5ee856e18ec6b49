"""The joined lexer gives pygments' own tokens, for real files and for the corners of the lexer."""

from __future__ import annotations

import re
from pathlib import Path

import pygments
import pytest
from pygments.lexer import RegexLexer, bygroups
from pygments.lexers.python import PythonLexer
from pygments.token import Keyword, Name, String, Text

from reader.render.code.lexing import CHECKED, JoinedLexer, _starts, checked

FIXTURES = Path(__file__).parent / "fixtures"
CORNERS = [
    "",
    "x",
    "def f(a, *b, **c) -> int:\n    return a  # done\n",
    'f"{x!r:>{width}} {y}" rf"\\d{z}" b"\\x00" u\'\'\'three\nlines\'\'\'\n',
    "@jax.jit\nclass K(Base, metaclass=M):\n    '''doc'''\n    match = 1\n",
    "match x:\n    case [a, *_] if a > 0:\n        pass\n",
    "s = 'unterminated\nnext = 0x_FF + 0b1 + 1_000.5e-3j\n",
    "λ = ƒ(ñ) ＝ 1\n$ ? `\n\x0cprint(\"\\N{DASH}\")\n",
    "from . import (a as b,\n    c)\nimport x.y as z\n",
    "lambda: (yield from g()) or await h()\n",
]


def _pygments(lexer: PythonLexer, text: str) -> list[tuple[object, str]]:
    return [(t, v) for _, t, v in lexer.get_tokens_unprocessed(lexer._preprocess_lexer_input(text))]


@pytest.fixture(scope="module")
def python() -> JoinedLexer:
    return JoinedLexer(PythonLexer(stripnl=False, stripall=False, ensurenl=False))


def test_every_python_state_is_joined(python):
    assert python._states and all(state.joined is not None for state in python._states.values())


@pytest.mark.parametrize("text", CORNERS)
def test_corners_give_pygments_tokens(python, text):
    assert list(python.tokens(python.lexer._preprocess_lexer_input(text))) == _pygments(python.lexer, text)


def test_real_files_give_pygments_tokens(python):
    files = sorted(FIXTURES.glob("*.py")) + sorted(Path(pygments.__file__).parent.glob("lexers/p*.py"))
    assert len(files) > 5
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert list(python.tokens(python.lexer._preprocess_lexer_input(text))) == \
            _pygments(python.lexer, text), path


class _Backreference(RegexLexer):
    tokens = {"root": [(r"(['\"])(.*?)\1", bygroups(String, String)),
                       (r"(?i)(if)(\s+)", bygroups(Keyword, Text)), (r"\w+", Name), (r"\s+", Text)]}


def test_a_state_that_cannot_be_joined_is_tried_rule_by_rule():
    lexer = _Backreference()
    joined = JoinedLexer(lexer)
    assert joined._states["root"].joined is None
    text = "IF 'a\"b' x \"c\" ?\n"
    assert list(joined.tokens(text)) == [(t, v) for _, t, v in lexer.get_tokens_unprocessed(text)]


class _NamedOrConditional(RegexLexer):
    tokens = {"root": [(r"(?P<q>x)(y)", bygroups(String, Name)), (r"(<)?(\w+)(?(1)>)", Name),
                       (r"\s+", Text), (r".", Text)]}


def test_a_state_with_a_named_group_or_a_conditional_is_tried_rule_by_rule():
    lexer = _NamedOrConditional()
    joined = JoinedLexer(lexer)
    assert not joined._states["root"].joinable and joined._states["root"].joined is None
    text = "xy <ab> <cd x\n"
    assert list(joined.tokens(text)) == [(t, v) for _, t, v in lexer.get_tokens_unprocessed(text)]


@pytest.mark.parametrize(("pattern", "chars", "empty"), [
    (r'(?i)(rb|br|r)(")', set("rRbB"), False),
    (r"[^\S\n]+", {" ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f"}, False),
    (r"(?<!\.)(self|cls)\b", set("sc"), False),
    (r"\d(?:_?\d)*", set("0123456789"), False),
    (r"(?:0x)?[a-c]*", set("0abc"), True),
    (r"", set(), True),
])
def test_what_a_rule_can_start_with(pattern, chars, empty):
    assert _starts(re.compile(pattern, re.M)) == (frozenset(chars), empty)


@pytest.mark.parametrize("pattern", [r".x", r"(?i)\u017f", r"(?s:.)", r"[^a]"])
def test_a_start_not_read_exactly_is_any_character(pattern):
    found = _starts(re.compile(pattern))
    assert found[0] is None or found[0] >= frozenset(c for c in map(chr, range(128)) if c != "a")


def test_every_rule_that_matches_is_among_those_tried_at_its_character(python):
    """Soundness on real code: wherever a rule of a state matches, the state's dispatch for the
    character there keeps it."""
    text = (FIXTURES / "pallas_call_0.10.2.py").read_text(encoding="utf-8")
    for name in ("root", "expr", "funcname", "fromimport"):
        state = python._states[name]
        for pos in range(0, len(text), 7):
            char = text[pos]
            if char >= "\x80":
                continue
            tried = state.at(char).rule_of_group
            for rule in state.rules:
                if rule[0](text, pos):
                    assert rule in tried, (name, pos, char, rule[0].__self__.pattern)


def test_the_installed_pygments_is_one_the_joined_lexer_was_checked_on():
    """A new pygments in requirements.lock fails here: run this file's tests on it, then add it to
    lexing.CHECKED (until then a build lexes with pygments' own loop)."""
    assert checked(), (pygments.__version__, CHECKED)
    assert checked("2.21.0") and not checked("2.2.1") and not checked("3.0")
