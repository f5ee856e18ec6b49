"""The placeholders in the track's Markdown: facts, source links, lab and page links (one parser
for `reader check` and the page renderer).

    {{fact:NAME}}                         a computed fact, never a typed number
    {{figure:NAME}}                       a computed figure (`reader/render/figures/registry.py`)
    [[path/to/file.py::Qualname]]         a definition's line on its source page
    [[path/to/file.py::Qualname|text]]    the same with link text
    [[path/to/file.py]]                   the file's source page
    [[lab:name]]  [[page:slug]]           a lab page, another page (both take `|text`)

Placeholders inside code (inline `code` spans and fenced blocks) are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

FACT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$")
LAB_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
FIGURE_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
PAGE_SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SOURCE_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]*$")
QUALNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

_PLACEHOLDER = re.compile(r"\{\{(?P<curly>[^{}\n]*?)\}\}|\[\[(?P<square>[^\[\]\n]*)\]\]")
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?(^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


@dataclass(frozen=True)
class Placeholder:
    """One placeholder found in a Markdown text."""

    kind: str
    """`fact`, `figure`, `source`, `lab` or `page`."""
    target: str
    """The fact or figure name, the source path, the lab name or the page slug."""
    start: int
    end: int
    """Character offsets of the whole placeholder in the text."""
    line: int
    """0-based line of the placeholder within the text."""
    symbol: str = ""
    """For a source link: the qualified name after `::` ('' for a link to the file)."""
    label: str = ""
    """The link text after `|`, if any."""


@dataclass(frozen=True)
class MarkupProblem:
    """A placeholder that cannot mean anything: bad syntax or an unknown kind."""

    message: str
    hint: str
    line: int
    """0-based line within the text."""


def _code_ranges(text: str) -> list[tuple[int, int]]:
    ranges = [m.span() for m in _FENCE.finditer(text)]
    for m in _CODE_SPAN.finditer(text):
        if not any(a <= m.start() < b for a, b in ranges):
            ranges.append(m.span())
    return ranges


class Parsed(NamedTuple):
    """A text's placeholders, in order, and its malformed ones."""

    placeholders: list[Placeholder]
    problems: list[MarkupProblem]


def parse(text: str) -> Parsed:
    """Every placeholder in `text`, in order, and every malformed one."""
    code = _code_ranges(text)
    found: list[Placeholder] = []
    problems: list[MarkupProblem] = []
    for m in _PLACEHOLDER.finditer(text):
        if any(a <= m.start() < b for a, b in code):
            continue
        line = text.count("\n", 0, m.start())
        item = (_curly(m.group("curly"), m, line) if m.group("curly") is not None
                else _square(m.group("square"), m, line))
        if isinstance(item, Placeholder):
            found.append(item)
        else:
            problems.append(item)
    return Parsed(found, problems)


def _curly(inner: str, m: re.Match[str], line: int) -> Placeholder | MarkupProblem:
    kind, _, name = inner.strip().partition(":")
    kind, name = kind.strip(), name.strip()
    if kind == "figure":
        if not FIGURE_NAME.match(name):
            return MarkupProblem(f"malformed figure name in {m.group(0)!r}",
                                 "write {{figure:NAME}} with a name from reader/render/figures/registry.py", line)
        return Placeholder("figure", name, m.start(), m.end(), line)
    if kind != "fact":
        return MarkupProblem(f"unknown placeholder {m.group(0)!r}",
                             "write {{fact:NAME}} or {{figure:NAME}}", line)
    if not FACT_NAME.match(name):
        return MarkupProblem(f"malformed fact name in {m.group(0)!r}",
                             "write {{fact:NAME}} with a name from 'reader facts'", line)
    return Placeholder("fact", name, m.start(), m.end(), line)


def _square(inner: str, m: re.Match[str], line: int) -> Placeholder | MarkupProblem:
    body, _, label = inner.partition("|")
    body, label = body.strip(), label.strip()
    for kind, pattern in (("lab", LAB_NAME), ("page", PAGE_SLUG)):
        if body.startswith(kind + ":"):
            name = body[len(kind) + 1:].strip()
            if not pattern.match(name):
                return MarkupProblem(f"malformed {kind} link {m.group(0)!r}",
                                     f"write [[{kind}:NAME]]", line)
            return Placeholder(kind, name, m.start(), m.end(), line, label=label)
    path, sep, symbol = body.partition("::")
    if not SOURCE_PATH.match(path) or ".." in path.split("/") or (sep and not QUALNAME.match(symbol)):
        return MarkupProblem(f"malformed link {m.group(0)!r}",
                             "write [[path/to/file.py::Qualname]], [[lab:NAME]] or [[page:slug]]",
                             line)
    return Placeholder("source", path, m.start(), m.end(), line, symbol=symbol, label=label)


def substitute(text: str, render: Callable[[Placeholder], str]) -> str:
    """`text` with every well-formed placeholder replaced by `render(placeholder)`."""
    found, _ = parse(text)
    out, last = [], 0
    for p in found:
        out.append(text[last:p.start])
        out.append(render(p))
        last = p.end
    out.append(text[last:])
    return "".join(out)
