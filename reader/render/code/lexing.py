"""A pygments `RegexLexer`'s own rules, tried in one regular-expression call per token.

pygments tries a state's rules one `re.match` at a time, in order, until one matches: about 36
calls per token of Python, most of a cold build's highlighting. Joined into one alternation per
state, `(rule0)|(rule1)|...`, the regex engine tries the same rules in the same order at the same
position and the first that matches wins, as in pygments; the group that closed last
(`Match.lastindex`) names it. The engine still tries every alternative in turn, so each state
also keeps, by the ASCII character at the position, the alternation of only the rules that can
start with it (`_starts` reads that from the parsed pattern; a rule it cannot read stays in
all). The tokens are pygments' own, byte for byte (tests/test_lexing.py compares them over real
files); a state whose rules cannot be joined (a backreference, flags that differ) is tried rule by
rule, as pygments does.

Why not pygments' own loop: it takes 5x this module's CPU time on the pinned files (42.0 s
against 8.4 s on the 946 files, benchmarks/lexing.py), most of a cold build's highlighting. What
it costs: it reads pygments' internals (a lexer's processed rules in `_tokens`,
`_preprocess_lexer_input`, the loop's state moves), which a release may change; so it is pinned to
the releases in `CHECKED`, and any other lexes with pygments' own loop (the same tokens, slower)
until tests/test_lexing.py passes on it and it is added there.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pygments
from pygments.lexer import ExtendedRegexLexer, Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

CHECKED = ("2.21",)
"""The pygments releases (major.minor) whose internals `JoinedLexer` follows, its tokens compared
with pygments' own on each by tests/test_lexing.py."""


def checked(version: str = pygments.__version__) -> bool:
    """Whether `JoinedLexer` may lex for this pygments release (see `CHECKED`)."""
    return ".".join(version.split(".")[:2]) in CHECKED


Rule = tuple[Callable[..., re.Match[str] | None], object, object]
"""One of pygments' processed rules: (its pattern's `match`, its action, its new state)."""
_INLINE_FLAGS = re.compile(r"\(\?([imsx]+)\)")
_NOT_JOINABLE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\(\?[aiLmsux-]+\)")
"""A backreference or a conditional (group numbers move when joined), or inline flags left inside
a pattern."""


@dataclass(frozen=True)
class _Joined:
    match: Callable[[str, int], re.Match[str] | None]
    rule_of_group: list[Rule | None]
    """The rule each group closes last when it matched (None for the rules' own groups)."""


def _join(rules: list[Rule], flags: int) -> _Joined | None:
    """The state's rules as one alternation, or None when one of them cannot be joined."""
    parts = _parts(rules, flags)
    if parts is None:
        return None
    try:
        return _Joined(re.compile("|".join(parts[0]), flags).match, parts[1])
    except re.error:
        return None


def _parts(rules: list[Rule], flags: int) -> tuple[list[str], list[Rule | None]] | None:
    """What `_join` compiles (the rules' patterns, each closed by its naming group) and the rule
    each group names; None when one of them cannot be joined, read without compiling them."""
    patterns: list[str] = []
    rule_of_group: list[Rule | None] = [None]
    for rule in rules:
        match = rule[0]
        compiled: re.Pattern[str] = match.__self__  # type: ignore[attr-defined]
        pattern = compiled.pattern
        lead = _INLINE_FLAGS.match(pattern)
        if lead:  # `(?i)...` applies to this rule alone: scope it
            pattern = f"(?{lead.group(1)}:{pattern[lead.end():]})"
            if compiled.flags != flags | re.compile(lead.group(0)).flags:
                return None
        elif pattern and compiled.flags != flags:
            return None
        if _NOT_JOINABLE.search(pattern) or compiled.groupindex:  # two rules may name one group
            return None
        # The empty group after the rule names it; the rule's first character stays first, where
        # the engine checks a literal or a class before it tries the branch.
        patterns.append(f"(?:{pattern})()")
        rule_of_group += [None] * compiled.groups + [rule]
    return patterns, rule_of_group


@dataclass
class _State:
    rules: list[Rule]
    regex: bool
    """Whether the lexer's states may be joined at all (a `RegexLexer`'s)."""
    flags: int
    starts: list[Starts] = field(default_factory=list)
    """Each rule's `_starts`, once the state is first entered."""
    by_char: dict[str, _Joined] = field(default_factory=dict)
    """An ASCII character ('' the text's end) -> the joined rules that can match there."""
    by_rules: dict[tuple[int, ...], _Joined] = field(default_factory=dict)

    @functools.cached_property
    def joinable(self) -> bool:
        """Whether the rules can be joined (else pygments' own search), read without compiling."""
        return self.regex and _parts(self.rules, self.flags) is not None

    @functools.cached_property
    def joined(self) -> _Joined | None:
        """All the rules joined, compiled on first use: where a token starts past ASCII (most of
        a lexer's states, and most files, never need it); None when they cannot be joined."""
        return _join(self.rules, self.flags) if self.joinable else None

    @functools.cached_property
    def anywhere(self) -> _Joined:
        """`joined`, of a joinable state."""
        assert self.joined is not None  # rules `_parts` reads as joinable compile joined
        return self.joined

    def at(self, char: str) -> _Joined:
        """The joined rules that can match where `char` comes next (made on first use)."""
        if not self.starts:
            self.starts = [_starts(r[0].__self__) for r in self.rules]  # type: ignore[attr-defined]
        which = tuple(i for i, (chars, empty) in enumerate(self.starts)
                      if empty or (char and (chars is None or char in chars)))
        joined = self.by_rules.get(which)
        if joined is None:
            made = _join([self.rules[i] for i in which], self.flags) if which else _NEVER
            assert made is not None  # a subset of rules that join
            joined = self.by_rules[which] = made
        self.by_char[char] = joined
        return joined


_NEVER = _Joined(re.compile(r"(?!)").match, [None])


class JoinedLexer:
    """`lexer`'s tokens, as `lexer.get_tokens_unprocessed` gives them, a state a call."""

    def __init__(self, lexer: Lexer) -> None:
        self.lexer = lexer
        flags = getattr(lexer, "flags", 0) | re.UNICODE
        joinable = isinstance(lexer, RegexLexer) and not isinstance(lexer, ExtendedRegexLexer)
        self._states: dict[str, _State] = {
            name: _State(rules, joinable, flags)
            for name, rules in getattr(lexer, "_tokens", {}).items()}

    def tokens(self, text: str) -> Iterator[tuple[_TokenType, str]]:
        """(token type, text) for all of `text`, which the lexer has prepared
        (`_preprocess_lexer_input`)."""
        if not self._states:
            for _, ttype, value in self.lexer.get_tokens_unprocessed(text):
                yield ttype, value
            return
        lexer, states = self.lexer, self._states
        pos, stack = 0, ["root"]
        state = states["root"]
        # the state's tables, read again only when the state changes
        joinable, by_char, at = state.joinable, state.by_char, state.at
        while True:
            if joinable:
                char = text[pos:pos + 1]
                joined = by_char.get(char) or (at(char) if char < "\x80" else state.anywhere)
                m = joined.match(text, pos)
                # each rule's empty group closes last: it names the rule
                rule = joined.rule_of_group[m.lastindex] if m else None  # type: ignore[index]
            else:
                rule, m = _first(state.rules, text, pos)
            if rule is None or m is None:
                if pos >= len(text):
                    return
                if text[pos] == "\n":  # a line's end that no rule matches: back to root
                    stack = ["root"]
                    state = states["root"]
                    joinable, by_char, at = state.joinable, state.by_char, state.at
                    yield Whitespace, "\n"
                else:
                    yield Error, text[pos]
                pos += 1
                continue
            match, action, new_state = rule
            if type(action) is _TokenType:
                end = m.end()
                yield action, text[pos:end]
                pos = end
            elif action is None:
                pos = m.end()
            else:  # a callback (bygroups, using) gets the rule's own match
                if joinable:
                    m = match(text, pos)
                    assert m is not None
                for _, ttype, value in action(lexer, m):  # type: ignore[operator]
                    yield ttype, value
                pos = m.end()
            if new_state is not None:
                _move(stack, new_state)
                state = states[stack[-1]]
                joinable, by_char, at = state.joinable, state.by_char, state.at


def _first(rules: list[Rule], text: str, pos: int) -> tuple[Rule | None, re.Match[str] | None]:
    """pygments' own search: the first rule that matches at `pos`, and its match."""
    for rule in rules:
        m = rule[0](text, pos)
        if m:
            return rule, m
    return None, None


def _move(stack: list[str], new_state: object) -> None:
    """pygments' state transition: a tuple of states (or `#pop`, `#push`), a negative pop count,
    or `#push`."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(stack) > 1:
                    stack.pop()
            elif state == "#push":
                stack.append(stack[-1])
            else:
                stack.append(state)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(stack):
            del stack[1:]
        else:
            del stack[new_state:]
    elif new_state == "#push":
        stack.append(stack[-1])
    else:
        raise AssertionError(f"wrong state def: {new_state!r}")


try:  # the regex engine's own parser (Python 3.11+); without it, every rule may start anywhere
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:
    sre = sre_parse = None

_ASCII = frozenset(chr(i) for i in range(128))
_CATEGORIES = {} if sre is None else {
    sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_NOT_DIGIT: r"\D", sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S", sre.CATEGORY_WORD: r"\w", sre.CATEGORY_NOT_WORD: r"\W",
    sre.CATEGORY_UNI_DIGIT: r"\d", sre.CATEGORY_UNI_NOT_DIGIT: r"\D", sre.CATEGORY_UNI_SPACE: r"\s",
    sre.CATEGORY_UNI_NOT_SPACE: r"\S", sre.CATEGORY_UNI_WORD: r"\w", sre.CATEGORY_UNI_NOT_WORD: r"\W"}
Starts = tuple[frozenset[str] | None, bool]
"""The ASCII characters a match can start with (None: any character) and whether it can be empty."""


def _starts(pattern: re.Pattern[str]) -> Starts:
    """What `pattern` can start with, read from its parse; any character when unsure."""
    if sre is None:
        return None, True
    try:
        return _seq(sre_parse.parse(pattern.pattern, pattern.flags), pattern.flags)
    except Exception:  # noqa: BLE001 (the parser's internals: unsure means any)
        return None, True


def _seq(items: Any, flags: int) -> Starts:
    out: set[str] = set()
    for op, av in items:
        chars, empty = _item(op, av, flags)
        if chars is None:
            return None, False
        out |= chars
        if not empty:
            return frozenset(out), False
    return frozenset(out), True


def _item(op: Any, av: Any, flags: int) -> Starts:
    ignore = bool(flags & re.IGNORECASE)
    if op is sre.LITERAL:
        if av >= 128 and ignore:
            return None, False  # a non-ASCII letter may match an ASCII one (`ſ`, the Kelvin sign)
        return _cased({chr(av)} & _ASCII, ignore), False
    if op is sre.IN:
        return _charset(av, ignore), False
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return frozenset(), True  # zero-width: it only narrows what follows
    if op is sre.SUBPATTERN:
        _, add, remove, sub = av
        return _seq(sub, (flags | add) & ~remove)
    if op is sre.BRANCH:
        found = [_seq(alt, flags) for alt in av[1]]
        if any(chars is None for chars, _ in found):
            return None, False
        return frozenset().union(*(c or () for c, _ in found)), any(e for _, e in found)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _, sub = av
        chars, empty = _seq(sub, flags)
        return chars, empty or low == 0
    if op is sre.ATOMIC_GROUP:
        return _seq(av, flags)
    return None, False


def _charset(items: list[tuple[Any, Any]], ignore: bool) -> frozenset[str] | None:
    out: set[str] = set()
    negate = False
    for op, av in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL and not (ignore and av >= 128):
            out |= {chr(av)} & _ASCII
        elif op is sre.RANGE and not (ignore and av[1] >= 128):
            out |= {chr(c) for c in range(av[0], min(av[1], 127) + 1)}
        elif op is sre.CATEGORY and av in _CATEGORIES:
            category = re.compile(_CATEGORIES[av])
            out |= {c for c in _ASCII if category.match(c)}
        else:
            return None
    chars = _cased(out, ignore)
    return _ASCII - chars if negate else chars


def _cased(chars: set[str], ignore: bool) -> frozenset[str]:
    return frozenset(chars | {c.swapcase() for c in chars} if ignore else chars)
