"""The side-by-side view of a note's old and new code: rows aligned by difflib, the changed
characters of a changed line marked (a pure function of the two windows)."""

from __future__ import annotations

import difflib
from functools import lru_cache

from reader.review.model import Row

CONTEXT = 4
"""Lines shown before and after the note's lines on each side."""


Window = tuple[int, int]
"""The first and last line shown of a file (last < first: none)."""


def windows(old_total: int, old_span: tuple[int, int] | None, new_total: int,
            new_span: tuple[int, int] | None) -> tuple[Window, Window]:
    """The lines shown of the old and the new file: the note's lines on each side and the same
    CONTEXT before and after them on both (so that the two sides line up); a side where the
    note does not anchor shows the other side's lines, or the file's first lines."""
    a = old_span or new_span or (1, CONTEXT * 2)
    b = new_span or old_span or (1, CONTEXT * 2)
    before = min(CONTEXT, max(a[0] - 1, 0), max(b[0] - 1, 0))
    after = min(CONTEXT, max(old_total - a[1], 0), max(new_total - b[1], 0))
    return _clip(a[0] - before, a[1] + after, old_total), _clip(b[0] - before, b[1] + after, new_total)


def _clip(first: int, last: int, total: int) -> Window:
    if total == 0:
        return 1, 0
    first = max(1, min(first, total))
    return first, max(first, min(last, total))


def rows(old: list[str], new: list[str], old_window: Window, new_window: Window) -> list[Row]:
    """The rows of the whole files' diff that show a line of either window: one stretch, so that
    lines the windows share are shown once, side by side."""
    every = _rows(tuple(old), tuple(new))
    shown = [i for i, r in enumerate(every)
             if (r.old is not None and old_window[0] <= r.old <= old_window[1])
             or (r.new is not None and new_window[0] <= r.new <= new_window[1])]
    return every[shown[0]:shown[-1] + 1] if shown else []


def aligned(shown: list[Row], old_span: tuple[int, int]) -> tuple[int, int] | None:
    """The new lines the diff pairs with the old lines `old_span` (None when it pairs none): where
    a note that no longer anchors most likely belongs."""
    news = [r.new for r in shown if r.new is not None and r.old is not None
            and old_span[0] <= r.old <= old_span[1]]
    return (min(news), max(news)) if news else None


def covering(shown: list[Row], window: Window, side: str) -> Window:
    """`window` widened to every line of `side` (`old` or `new`) the rows show."""
    numbers = [n for r in shown if (n := getattr(r, side)) is not None]
    if not numbers:
        return window
    return min(window[0], *numbers), max(window[1], *numbers)


@lru_cache(maxsize=16)
def _rows(old: tuple[str, ...], new: tuple[str, ...]) -> list[Row]:
    """`old` and `new` aligned: equal lines side by side, replaced lines paired with lines like
    them (the rest removed or added). Memoised: several notes sit on one file."""
    out: list[Row] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += [Row(i + 1, j + 1, "same") for i, j in zip(range(i1, i2), range(j1, j2),
                                                              strict=True)]
        else:
            out += _paired(old, i1, i2, new, j1, j2)
    return out


SIMILAR = 0.5
"""How alike two lines of a replaced block must be (difflib's ratio) to be shown as one changed
line rather than one removed and one added."""
LOOKAHEAD = 8


def _paired(old: tuple[str, ...], i1: int, i2: int, new: tuple[str, ...], j1: int,
            j2: int) -> list[Row]:
    """A replaced block's rows: each old line paired, in order, with one of the next LOOKAHEAD
    new lines like it."""
    out: list[Row] = []
    j = j1
    for i in range(i1, i2):
        like = next((k for k in range(j, min(j2, j + LOOKAHEAD))
                     if difflib.SequenceMatcher(a=old[i], b=new[k]).ratio() >= SIMILAR), None)
        if like is None:
            out.append(Row(i + 1, None, "removed"))
            continue
        out += [Row(None, k + 1, "added") for k in range(j, like)]
        a, b = marks(old[i], new[like])
        out.append(Row(i + 1, like + 1, "changed", a, b))
        j = like + 1
    return out + [Row(None, k + 1, "added") for k in range(j, j2)]


def marks(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The [start, end) ranges of characters that differ in `a` and in `b`, in UTF-16 units."""
    old: list[tuple[int, int]] = []
    new: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            old.append((_units(a, i1), _units(a, i2)))
        if j2 > j1:
            new.append((_units(b, j1), _units(b, j2)))
    return tuple(old), tuple(new)


def _units(text: str, index: int) -> int:
    """The UTF-16 offset of character `index` of `text` (a browser's string index)."""
    head = text[:index]
    return index if head.isascii() else len(head.encode("utf-16-le")) // 2
