"""Highlighting: pygments over a whole file once, split into per-line HTML; links and hidden characters."""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

import pygments
from pygments.lexers.python import PythonLexer
from pygments.token import STANDARD_TYPES, Text, _TokenType

from reader.cache import Cache
from reader.model import SourceFile, split_lines
from reader.progress import track
from reader.providers import Blob, Provider, is_kept, pickled, provide
from reader.render.code.lexing import JoinedLexer, checked

HIGHLIGHT_VERSION = "3"
"""Bump when what this module keeps (`Highlight`) changes: it is part of every cache key."""

_CLASS: dict[_TokenType, str] = {}
_HIDDEN_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5"
                        r"\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f"
                        r"\ufeff\uffa0\ufff9-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                        r"\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
"""Characters that show as nothing, or reorder or hide what follows: C0/C1 controls (not tab or
newline), soft hyphen, joiners and zero-width spaces, bidirectional embeddings, overrides and
isolates (Trojan Source), invisible operators, fillers, variation selectors and tag characters."""
_ASCII_SHOWN = b"\t\n" + bytes(range(0x20, 0x7f))
"""The ASCII characters `_HIDDEN_RE` does not match."""


def _has_hidden(text: str) -> bool:
    """`_HIDDEN_RE.search(text) is not None`; an ASCII text's bytes left after deleting the ones
    shown (a tenth of the expression's search through a whole file)."""
    if text.isascii():
        return bool(text.encode("ascii").translate(None, _ASCII_SHOWN))
    return _HIDDEN_RE.search(text) is not None


_SEGMENT_RE = re.compile(r"(<[^>]*>)|(&[#\w]+;)|([^<&]+)")


def css_class(ttype: _TokenType) -> str:
    """The short pygments class of a token type (`k`, `nf`, `s2`...), '' for plain text."""
    cls = _CLASS.get(ttype)
    if cls is None:
        t = ttype
        while t not in STANDARD_TYPES:
            t = t.parent
        cls = "" if t in (Text, Text.Whitespace) else STANDARD_TYPES[t]
        _CLASS[ttype] = cls
    return cls


def _hidden_mark(match: re.Match[str]) -> str:
    ch = match.group(0)
    name = unicodedata.name(ch, "CONTROL CHARACTER")
    label = f"U+{ord(ch):04X} {name}"
    # One visible character in place of one invisible one, so columns stay right.
    return f'<span class="rd-hidden" title="{label}" aria-label="{label}">\u2423</span>'


def visible(text: str) -> str:
    """Plain text with each invisible or bidirectional control character as a visible mark (the
    references lists' lines of code)."""
    return _HIDDEN_RE.sub("\u2423", text) if _HIDDEN_RE.search(text) else text


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_code(text: str) -> str:
    """HTML-escape code text; invisible and bidirectional control characters become visible marks."""
    out = html.escape(text, quote=False)
    return _HIDDEN_RE.sub(_hidden_mark, out) if _HIDDEN_RE.search(out) else out


class HiddenCharacter(NamedTuple):
    """An invisible or bidirectional control character: its line and `U+XXXX NAME`."""

    line: int
    name: str


def hidden_characters(text: str) -> list[HiddenCharacter]:
    """Every invisible or bidirectional control character (Trojan Source)."""
    found: list[HiddenCharacter] = []
    if not _has_hidden(text):
        return found
    for number, line in enumerate(split_lines(text), 1):
        for m in _HIDDEN_RE.finditer(line):
            ch = m.group(0)
            found.append(HiddenCharacter(number, f"U+{ord(ch):04X} {unicodedata.name(ch, 'CONTROL CHARACTER')}"))
    return found


Runs = tuple[str | int, ...]
"""A line's token classes in order, flat: (class, units, class, units, ...), each a pygments class
('' for the code's own colour) and how many UTF-16 units of the line's text it covers, neighbours
of one class merged (`pairs` reads them). `Name` (`n`) is plain: material colours it as plain
code. Flat, a file's runs are a few objects a line, quick to read back from the cache."""
_PLAIN_CLASSES = frozenset({"", "n"})
_RUN_CLASS: dict[_TokenType, str] = {}


@dataclass(frozen=True)
class Highlight:
    """A file highlighted: each line's HTML without token spans (its text escaped, invisible
    characters marked one for one, identifiers linked once `linked`), and each line's runs."""

    lines: Sequence[str]
    runs: Sequence[Runs]

    def linked(self, links: dict[int, list[LineLink]]) -> Highlight:
        """The lines with `links` (by 1-based line number) wrapped around their characters."""
        lines = [link_line(text, links[n]) if n in links else text
                 for n, text in enumerate(self.lines, 1)]
        return Highlight(lines, self.runs)

    def html(self) -> list[str]:
        """Each line as HTML with pygments' token spans."""
        return [with_spans(text, runs) for text, runs in zip(self.lines, self.runs, strict=True)]


class ClassRun(NamedTuple):
    """A run of a line's highlighting: its token class and its length in UTF-16 units."""

    cls: str
    units: int


def pairs(runs: Runs) -> Iterator[ClassRun]:
    """A line's runs, one by one."""
    return map(ClassRun._make, zip(runs[::2], runs[1::2], strict=True))


def highlight(text: str) -> Highlight:
    """Python source highlighted by pygments, a line at a time."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    hidden = _has_hidden(text)
    tokens = list(_tokens(text))
    classes = _RUN_CLASS
    for ttype in set(map(itemgetter(0), tokens)) - classes.keys():
        cls = css_class(ttype)
        classes[ttype] = "" if cls in _PLAIN_CLASSES else cls
    ascii = text.isascii()
    runs: list[list[str | int]] = []
    run: list[str | int] = []
    last: str | None = None  # the class of `run`'s last run
    for ttype, value in tokens:
        if "\n" in value:
            if value == "\n":
                runs.append(run)
                run, last = [], None
                continue
            *ended, value = value.split("\n")
            cls = classes[ttype]
            for part in ended:
                if part:
                    runs.append([*run, cls, _units(part, hidden)] if last != cls else
                                [*run[:-1], run[-1] + _units(part, hidden)])  # type: ignore[operator]
                else:
                    runs.append(run)
                run, last = [], None
        if not value:
            continue
        cls = classes[ttype]
        units = len(value) if ascii or value.isascii() else _units(value, hidden)
        if cls == last:
            run[-1] += units  # type: ignore[operator]
        else:
            run += (cls, units)
            last = cls
    runs.append(run)
    # the lines are the tokens' text split where it breaks (what pygments reads, prepared), escaped
    # at once: neither escaping nor a hidden character's mark adds or removes a line break
    escape = escape_code if hidden else _escape
    lines = escape("".join(map(itemgetter(1), tokens))).split("\n")
    expected = len(split_lines(text))
    out = lines[:expected] + [""] * (expected - len(lines))
    return Highlight(out, [tuple(r) for r in runs[:expected]] + [()] * (expected - len(runs)))


def _units(text: str, hidden: bool) -> int:
    """UTF-16 units of `text` as shown: an invisible character's mark is one."""
    shown = _HIDDEN_RE.sub("\u2423", text) if hidden else text
    return len(shown.encode("utf-16-le")) // 2


def with_spans(line_html: str, runs: Runs) -> str:
    """A line's HTML (`Highlight.lines`) with each run's text in a span of its class; links stay
    as they are (the text inside them wrapped on its own), an invisible character's mark keeps
    its own class."""
    out: list[str] = []
    queue = list(pairs(runs))[::-1]
    cls, left, marks = "", 0, 0
    held: list[str] = []  # text of one class, not yet written
    held_cls = ""

    def flush() -> None:
        if held:
            joined = "".join(held)
            out.append(f'<span class="{held_cls}">{joined}</span>' if held_cls else joined)
            held.clear()

    for tag, entity, text in _SEGMENT_RE.findall(line_html):
        if tag:
            flush()
            marks += tag.startswith("<span") - (tag == "</span>")
            out.append(tag)
            continue
        piece = entity or text
        while piece:
            while left <= 0 and queue:
                cls, left = queue.pop()
            if left <= 0:  # past the runs: plain
                cls, take = "", piece
            else:
                take = piece if entity else _prefix(piece, left) or piece[0]
            left -= 1 if entity else _units(take, False)
            shown = "" if marks else cls
            if shown != held_cls:
                flush()
                held_cls = shown
            held.append(take)
            piece = piece[len(take):]
    flush()
    return "".join(out)


def _prefix(text: str, units: int) -> str:
    """The longest start of `text` that fits in `units` UTF-16 units (all of it when it fits)."""
    if text.isascii() or len(text.encode("utf-16-le")) // 2 <= units:
        return text[:units] if text.isascii() else text
    out = 0
    for i, ch in enumerate(text):
        out += 2 if ord(ch) > 0xFFFF else 1
        if out > units:
            return text[:i]
    return text


@functools.cache
def _python() -> JoinedLexer:
    return JoinedLexer(PythonLexer(stripnl=False, stripall=False, ensurenl=False))


PLAIN_CHARS = 300_000
"""Characters a process lexes with pygments' own lexer before it builds the joined one: building
it (compiling its expressions, 0.4 s here) costs what pygments takes for about this many (1.6 us
a character, against 0.3 for the joined lexer). A build that highlights one edited file never
pays for it; one that highlights the corpus pays at most twice the least it could."""
_plain = [0]
"""Characters lexed by pygments' own lexer in this process."""


def _tokens(text: str) -> Iterator[tuple[_TokenType, str]]:
    """`pygments.lex(text, PythonLexer(...))`: the lexer's own input preparation, then its tokens
    (`lexing.JoinedLexer`: the same tokens, faster once built, on the pygments it was checked on)."""
    if not checked():  # a pygments whose internals the joined lexer was not checked on
        yield from pygments.lex(text, _pygments())
        return
    if not _python.cache_info().currsize and _plain[0] < PLAIN_CHARS:
        _plain[0] += len(text)
        yield from pygments.lex(text, _pygments())
        return
    joined = _python()
    lexer = joined.lexer
    prepare = getattr(lexer, "_preprocess_lexer_input", None)
    if prepare is None or lexer.filters:
        yield from pygments.lex(text, lexer)
        return
    yield from joined.tokens(prepare(text))


@functools.cache
def _pygments() -> PythonLexer:
    return PythonLexer(stripnl=False, stripall=False, ensurenl=False)


@dataclass(frozen=True)
class Lexed:
    """What a file's highlighting reads: its text (by blob), pygments' version and this module's."""

    text: Blob
    pygments: str = pygments.__version__
    version: str = HIGHLIGHT_VERSION


def lexed(blob: str, text: str = "") -> Lexed:
    """The highlighting's inputs for a file's blob and text."""
    return Lexed(Blob(blob, lambda: text))


def _highlight(inputs: Lexed) -> Highlight:
    return highlight(inputs.text.text)


HIGHLIGHT: Provider[Lexed, Highlight] = Provider("highlight", Lexed, _highlight, pickled(Highlight))
"""A file's highlighting: each line's escaped text and its token runs."""


def highlighted(cache: Cache | None, blob: str, text: str) -> Highlight:
    """`highlight(text)`, from the cache when this blob was highlighted by this version before."""
    return provide(HIGHLIGHT, lexed(blob, text), cache)


@dataclass(frozen=True)
class LineLink:
    """A link to wrap around `length` characters starting at 0-based column `col` of a line."""

    col: int
    length: int
    href: str
    title: str = ""


_attribute = functools.lru_cache(maxsize=4096)(html.escape)
"""An attribute's value escaped: a file's links repeat their hrefs and titles."""


def link_line(line_html: str, links: list[LineLink]) -> str:
    """Wrap the characters each link covers in `<a>`; a link that would cross a tag is left out.

    Columns count characters of the source line: an entity (`&lt;`) is one character, tags none.
    """
    if not links:
        return line_html
    pending = sorted(links, key=lambda k: k.col)
    if "<" not in line_html and "&" not in line_html:  # one run of text: columns are its indices
        return _link_text(line_html, pending)
    out: list[str] = []
    col = 0
    for m in _SEGMENT_RE.finditer(line_html):
        tag, entity, run = m.groups()
        if tag is not None or entity is not None:
            out.append(m.group(0))
            col += entity is not None
            continue
        start, col = col, col + len(run)
        pos = 0
        while pending and pending[0].col < col:
            link = pending.pop(0)
            a, b = link.col - start, link.col - start + link.length
            if a < pos or b > len(run):
                continue  # starts before this run or ends after it: crosses a tag; or overlaps
            title = f' title="{_attribute(link.title)}"' if link.title else ""
            out.append(f'{run[pos:a]}<a href="{_attribute(link.href)}"{title}>{run[a:b]}</a>')
            pos = b
        out.append(run[pos:])
    return "".join(out)


def _link_text(text: str, links: list[LineLink]) -> str:
    """`link_line` of a line that is one run of text (no tag, no entity), `links` sorted."""
    out: list[str] = []
    pos = 0
    for link in links:
        a, b = link.col, link.col + link.length
        if a < pos or b > len(text) or a >= len(text):
            continue  # overlaps the link before, or runs past the line's end
        title = f' title="{_attribute(link.title)}"' if link.title else ""
        out.append(f'{text[pos:a]}<a href="{_attribute(link.href)}"{title}>{text[a:b]}</a>')
        pos = b
    out.append(text[pos:])
    return "".join(out)


def _highlight_task(args: tuple[Cache, str, str, bool]) -> None:
    cache, blob, text, bulk = args
    if bulk:  # many characters for this worker: the joined lexer from the first (see PLAIN_CHARS)
        _plain[0] = max(_plain[0], PLAIN_CHARS)
    highlighted(cache, blob, text)


def submit_highlighting(pool: Executor | None, files: Sequence[SourceFile],
                        cache: Cache | None, workers: int = 1) -> list[Future[None]]:
    """Highlight on `pool` (of `workers` processes) every file that no earlier build highlighted:
    the workers fill the cache, nothing comes back. Without a pool (or a cache) this does nothing:
    pages then highlight their file when they render it."""
    if pool is None or cache is None:
        return []
    todo = [f for f in files if not is_kept(HIGHLIGHT, lexed(f.blob), cache)]
    # more than PLAIN_CHARS a worker: each would build the joined lexer anyway, after lexing its
    # first PLAIN_CHARS five times slower (1.3 s of CPU more, the whole corpus on two workers)
    bulk = sum(len(f.text) for f in todo) > PLAIN_CHARS * max(1, workers)
    futures = [pool.submit(_highlight_task, (cache, f.blob, f.text, bulk)) for f in todo]
    track("highlighting files", futures)
    return futures
