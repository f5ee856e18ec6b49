"""Line alignment between two versions of some code: which new line each old line became.

Lines are compared with their indentation and inner runs of blanks collapsed, so re-indenting a
block (a function moved into another) keeps its lines matched. Blocks difflib finds replaced are
paired line by line again by similarity (as `difflib.Differ` pairs the lines it shows with `?`),
so a line that changed a little still maps to its new version; then the lines left unpaired on
both sides are aligned once more, so a block moved within the code is found where it went.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

FUZZY = 0.6
"""The least likeness at which a changed line counts as the old one's version."""
GAP = 8
"""Lines inserted between two paired lines before they stop counting as one run of code."""

Pair = tuple[int, int, float]
"""(old index, new index, similarity), 0-based."""


def normal(line: str) -> str:
    """A line as alignment compares it: stripped, inner runs of blanks made one space."""
    return " ".join(line.split())


@dataclass(frozen=True)
class LineMap:
    """Pairs of old and new lines, in old order (a block moved in the code breaks the new order)."""

    pairs: tuple[Pair, ...]
    old_len: int
    new_len: int
    blank: frozenset[int] = frozenset()
    """The old lines that are blank (they weigh nothing in a span's quality)."""
    _by_old: dict[int, tuple[int, float]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_old.update({i: (j, r) for i, j, r in self.pairs})

    def get(self, i: int) -> tuple[int, float] | None:
        """The new index and similarity of old line `i`, or None when it has no counterpart."""
        return self._by_old.get(i)

    def between(self, i: int) -> range:
        """The new lines that may hold old line `i`'s version: itself when paired, else those
        between its paired neighbours (none when they are not in order)."""
        if (hit := self.get(i)) is not None:
            return range(hit[0], hit[0] + 1)
        before = max((k for k in self._by_old if k < i), default=None)
        after = min((k for k in self._by_old if k > i), default=None)
        lo = self._by_old[before][0] + 1 if before is not None else 0
        hi = self._by_old[after][0] if after is not None else self.new_len
        return range(lo, hi) if lo < hi else range(0)

    def span(self, first: int, last: int) -> tuple[int, int, float] | None:
        """Old lines `first..last` (0-based, inclusive) in the new text: (first, last, quality),
        from the longest run of them found together; the quality is the share of the old lines'
        weight that run holds (a blank line weighs nothing). None when nothing of them is left
        and no new lines took their place."""
        inside = [p for p in self.pairs if first <= p[0] <= last]
        weight = sum(1 for i in range(first, last + 1) if i not in self.blank)
        if not inside:
            window = self.between(first)
            if not window:
                return None
            return window.start, min(window.stop - 1, window.start + last - first), 0.0
        run = max(_runs(inside), key=lambda r: (sum(p[2] for p in r), len(r)))
        (i0, j0, _), (i1, j1, _) = run[0], run[-1]
        before = max((j for i, j, _ in self.pairs if i < first and j < j0), default=-1)
        after = min((j for i, j, _ in self.pairs if i > last and j > j1), default=self.new_len)
        start = max(before + 1, j0 - (i0 - first), 0)
        end = min(after - 1, j1 + (last - i1), self.new_len - 1)
        quality = sum(p[2] for p in run) / weight if weight else 1.0
        return start, max(start, end), min(1.0, quality)


def _runs(pairs: list[Pair]) -> list[list[Pair]]:
    """Pairs cut where the new side goes back or jumps ahead: each run is code found together."""
    runs: list[list[Pair]] = [[pairs[0]]]
    for p in pairs[1:]:
        i, j, _ = runs[-1][-1]
        if j < p[1] <= j + (p[0] - i) + GAP:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def line_map(old: Sequence[str], new: Sequence[str]) -> LineMap:
    """The alignment of `old` lines to `new` lines (memoised on the texts)."""
    return _line_map(tuple(normal(x) for x in old), tuple(normal(x) for x in new))


@lru_cache(maxsize=512)
def _line_map(old: tuple[str, ...], new: tuple[str, ...]) -> LineMap:
    pairs = _align(old, new, list(range(len(old))), list(range(len(new))))
    # A second pass over what is left on both sides: blocks that moved.
    used_old, used_new = {p[0] for p in pairs}, {p[1] for p in pairs}
    rest_old = [i for i in range(len(old)) if i not in used_old and old[i]]
    rest_new = [j for j in range(len(new)) if j not in used_new and new[j]]
    if rest_old and rest_new:
        pairs += [p for p in _align(old, new, rest_old, rest_new) if p[2] > 0]
    return LineMap(tuple(sorted(pairs)), len(old), len(new),
                   frozenset(i for i, line in enumerate(old) if not line))


def _align(old: tuple[str, ...], new: tuple[str, ...], at_old: list[int],
           at_new: list[int]) -> list[Pair]:
    """Pairs of the lines `at_old` of `old` and `at_new` of `new` (each in increasing order)."""
    a, b = [old[i] for i in at_old], [new[j] for j in at_new]
    pairs: list[Pair] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            pairs += [(at_old[i1 + k], at_new[j1 + k], 1.0 if a[i1 + k] else 0.0)
                      for k in range(i2 - i1)]
        elif tag == "replace":
            pairs += [(at_old[i], at_new[j], r) for i, j, r in _pair(a, b, i1, i2, j1, j2)]
    return pairs


_TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?")


@lru_cache(maxsize=65536)
def tokens(line: str) -> frozenset[str]:
    """The names and numbers of a line: what a changed line's version keeps most of."""
    return frozenset(_TOKEN_RE.findall(line))


def likeness(a: str, b: str) -> float:
    """How alike two lines are (0..1): the Dice coefficient of their names and numbers, or 1
    for equal lines."""
    if a == b:
        return 1.0
    ta, tb = tokens(a), tokens(b)
    return 2 * len(ta & tb) / (len(ta) + len(tb)) if ta and tb else 0.0


def _pair(old: Sequence[str], new: Sequence[str], i1: int, i2: int, j1: int,
          j2: int) -> list[Pair]:
    """Lines of a replaced block paired by likeness: of the pairs at least FUZZY alike, the set
    in order on both sides whose likeness adds up most (found through the names they share, so
    unrelated lines are never compared)."""
    if i1 >= i2 or j1 >= j2:
        return []
    where: dict[str, list[int]] = {}
    for j in range(j1, j2):
        for t in tokens(new[j]):
            where.setdefault(t, []).append(j)
    candidates: list[Pair] = []
    for i in range(i1, i2):
        shared: dict[int, int] = {}
        for t in tokens(old[i]):
            for j in where.get(t, ()):
                shared[j] = shared.get(j, 0) + 1
        size = len(tokens(old[i]))
        for j, n in shared.items():
            if (r := 2 * n / (size + len(tokens(new[j])))) >= FUZZY:
                candidates.append((i, j, r))
    return _chain(candidates)


def _chain(candidates: list[Pair]) -> list[Pair]:
    """The heaviest subset of `candidates` increasing on both sides: a weighted longest increasing
    subsequence (pairs by old line, then new line descending, so that one old line is used once;
    a Fenwick tree over the new lines keeps the best chain ending below each)."""
    if not candidates:
        return []
    candidates.sort(key=lambda p: (p[0], -p[1]))
    columns = sorted({p[1] for p in candidates})
    rank = {j: k + 1 for k, j in enumerate(columns)}
    tree: list[tuple[float, int]] = [(0.0, -1)] * (len(columns) + 1)
    back: list[int] = []
    weight: list[float] = []
    for k, (_, j, r) in enumerate(candidates):
        best, at = (0.0, -1), rank[j] - 1
        while at > 0:
            best = max(best, tree[at])
            at -= at & -at
        back.append(best[1])
        weight.append(best[0] + r)
        at = rank[j]
        while at <= len(columns):
            tree[at] = max(tree[at], (weight[k], k))
            at += at & -at
    k = max(range(len(weight)), key=weight.__getitem__)
    out = []
    while k >= 0:
        out.append(candidates[k])
        k = back[k]
    return out[::-1]


def similarity(old: Sequence[str], new: Sequence[str]) -> float:
    """How much of `old` is in `new` (0..1): the aligned lines' similarity over the non-blank old
    lines."""
    weight = sum(1 for line in old if line.strip())
    if not weight:
        return 0.0
    found = sum(r for _, _, r in line_map(old, new).pairs)
    return min(1.0, found / weight)
