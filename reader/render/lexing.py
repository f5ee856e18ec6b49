"""A pygments `RegexLexer`'s own rules, tried in one regular-expression call per token.

pygments tries a state's rules one `re.match` at a time, in order, until one matches: about 36
calls per token of Python, most of a cold build's highlighting. Joined into one alternation per
state, `(rule0)|(rule1)|...`, the regex engine tries the same rules in the same order at the same
position and the first that matches wins, as in pygments; the outer group that closed last
(`Match.lastindex`) names it. The tokens are pygments' own, byte for byte (tests/test_lexing.py
compares them over real files); a state whose rules cannot be joined (a backreference, flags
that differ) is tried rule by rule, as pygments does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pygments.lexer import ExtendedRegexLexer, Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

Rule = tuple[Callable[..., re.Match[str] | None], object, object]
"""One of pygments' processed rules: (its pattern's `match`, its action, its new state)."""
_INLINE_FLAGS = re.compile(r"\(\?([imsx]+)\)")
_NOT_JOINABLE = re.compile(r"\\[1-9]|\(\?P=|\(\?[aiLmsux-]+\)")
"""A backreference (group numbers move when joined) or inline flags left inside a pattern."""


@dataclass(frozen=True)
class _Joined:
    match: Callable[[str, int], re.Match[str] | None]
    rule_of_group: list[Rule | None]
    """The rule each group closes last when it matched (None for the rules' own groups)."""


def _join(rules: list[Rule], flags: int) -> _Joined | None:
    """The state's rules as one alternation, or None when one of them cannot be joined."""
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
        if _NOT_JOINABLE.search(pattern):
            return None
        # The empty group after the rule names it; the rule's first character stays first, where
        # the engine checks a literal or a class before it tries the branch.
        patterns.append(f"(?:{pattern})()")
        rule_of_group += [None] * compiled.groups + [rule]
    try:
        return _Joined(re.compile("|".join(patterns), flags).match, rule_of_group)
    except re.error:
        return None


class JoinedLexer:
    """`lexer`'s tokens, as `lexer.get_tokens_unprocessed` gives them, a state a call."""

    def __init__(self, lexer: Lexer) -> None:
        self.lexer = lexer
        flags = getattr(lexer, "flags", 0) | re.UNICODE
        joinable = isinstance(lexer, RegexLexer) and not isinstance(lexer, ExtendedRegexLexer)
        self._states: dict[str, tuple[list[Rule], _Joined | None]] = {
            name: (rules, _join(rules, flags) if joinable else None)
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
        rules, joined = states["root"]
        while True:
            if joined is not None:
                m = joined.match(text, pos)
                rule = joined.rule_of_group[m.lastindex or 0] if m else None
            else:
                rule, m = _first(rules, text, pos)
            if rule is None or m is None:
                if pos >= len(text):
                    return
                if text[pos] == "\n":  # a line's end that no rule matches: back to root
                    stack = ["root"]
                    rules, joined = states["root"]
                    yield Whitespace, "\n"
                else:
                    yield Error, text[pos]
                pos += 1
                continue
            match, action, new_state = rule
            if action is None or type(action) is _TokenType:
                end = m.end()
                if action is not None:
                    yield action, text[pos:end]
                pos = end
            else:  # a callback (bygroups, using) gets the rule's own match
                if joined is not None:
                    m = match(text, pos)
                    assert m is not None
                for _, ttype, value in action(lexer, m):  # type: ignore[operator]
                    yield ttype, value
                pos = m.end()
            if new_state is not None:
                _move(stack, new_state)
                rules, joined = states[stack[-1]]


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
