"""A blame across the releases the track reads: for each line of a file the track reads (its pin's
`paths`), the earliest and the latest of the read releases in which it reads as now. The releases
are the pin's `history` (each from the release source the build is handed, `releases.Archives`: its
source archive, kept in the cache; one the previous edition pins, from that edition's files) and the
pin itself; consecutive ones are
compared line by line (`filediffs.file_diff`, kept by the two blobs) and a line reads as in the
release before when it lies outside every change between them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reader.cache import Cache
from reader.corpus import Corpus
from reader.editions.filediffs import DIFF, file_diff
from reader.editions.previous import Previous
from reader.errors import ReaderError
from reader.extract.rulehistory import ReleaseSource
from reader.model import split_lines
from reader.providers import Blob, Provider, pickled, provide, running_cache

BLAME_VERSION = "1"

Run = tuple[int, int, int]
"""Consecutive lines that share their releases: (count, earliest, latest), indexes into the
releases, oldest first."""


@dataclass(frozen=True)
class LineHistory:
    """Each read file's lines as runs over the releases read, for the pins' copy of the file (`now`)
    and for the previous edition's (`then`)."""

    releases: tuple[str, ...]
    """The versions read, oldest first; the last is the pin's own (`0.12.0.1`)."""
    edition: int
    """The index of the previous edition's release (-1: none): the site's diff pages compare it
    with the last; no release before it has one."""
    now: Mapping[str, tuple[Run, ...]]
    then: Mapping[str, tuple[Run, ...]]
    carried: Mapping[str, tuple[int, ...]]
    """Path -> the releases whose files hold it (an archive may leave a file out)."""
    unread: tuple[str, ...] = ()
    """Releases of the history that could not be read (`jax==0.9.2: ...`)."""


type Chain = list[tuple[int, str, Callable[[], str]]]
"""One file's copies, oldest first: (release index, blob, its text when asked)."""


def line_history(corpus: Corpus, previous: Previous | None, cache: Cache, releases: ReleaseSource[Any],
                 unhad: Mapping[str, str] | None = None) -> LineHistory | None:
    """The line history of the files of the pin that has a `history` (jax), or None when none has.
    Kept as a whole by every copy's blob: a warm build reads the releases' kept records and this.
    `unhad`: the releases whose archives the rule history could not have (spec -> why), not asked
    for again."""
    pin = next((p for p in corpus.pins.values() if p.history), None)
    if pin is None:
        return None
    theirs = previous.record.pins if previous is not None else ()
    served = next((m.old_release for m in theirs if m.name == pin.name and m.old_release in pin.history), "")
    specs = [s for s in pin.history if s != pin.release]
    versions = [s.partition("==")[2] or s for s in specs] + [pin.dist_version or pin.short]
    sides: list[tuple[Mapping[str, str], Callable[[str], str]]] = []
    unread = []
    for spec in specs:
        if spec == served and previous is not None:
            sides.append((previous.files(pin.name), lambda path: previous.text(pin.name, path)))
            continue
        if spec in (unhad or {}):
            unread.append(f"{spec}: {(unhad or {})[spec]}")
            sides.append(({}, lambda path: ""))
            continue
        try:
            rel = releases.release(pin, spec)
        except ReaderError as e:
            unread.append(f"{spec}: {e.message}")
            sides.append(({}, lambda path: ""))
            continue
        sides.append((rel.lock.files, _reader(releases, rel)))
    sides.append(({p: corpus.blob(pin.name, p) for p in corpus.files(pin.name) if not pin.in_context(p)},
                  lambda path: corpus.read_text(pin.name, path)))
    chains: dict[str, Chain] = {}
    for path in sorted(sides[-1][0]):
        chains[path] = [(k, files[path], _text_of(text, path)) for k, (files, text) in enumerate(sides)
                        if path in files]
    edition = specs.index(served) if served in specs else -1
    return provide(BLAME, Blamed(tuple(versions), edition, tuple(unread), tuple(
        (p, tuple((k, Blob(b, text)) for k, b, text in c)) for p, c in chains.items())), cache)


@dataclass(frozen=True)
class Blamed:
    """What the line history reads: the versions read, the previous edition's among them, those
    that could not be read, and each file's copies (release index, text by blob)."""

    versions: tuple[str, ...]
    edition: int
    unread: tuple[str, ...]
    chains: tuple[tuple[str, tuple[tuple[int, Blob], ...]], ...]
    version: str = BLAME_VERSION


def _blamed(inputs: Blamed) -> LineHistory:
    now, then, edition = {}, {}, inputs.edition
    for path, copies in inputs.chains:
        chain: Chain = [(k, blob.sha, blob.read) for k, blob in copies]
        firsts, lasts = _walk(chain, running_cache())
        now[path] = _runs(firsts[-1], lasts[-1])
        at = next((i for i, (k, _, _) in enumerate(chain) if k == edition), None)
        if at is not None:
            then[path] = _runs(firsts[at], lasts[at])
    return LineHistory(inputs.versions, edition, now, then,
                       {p: tuple(k for k, _ in c) for p, c in inputs.chains}, inputs.unread)


BLAME: Provider[Blamed, LineHistory] = Provider("line-history", Blamed, _blamed, pickled(LineHistory), (DIFF,))
"""Each read file's lines as runs over the releases read (`LineHistory`)."""


def _text_of(text: Callable[[str], str], path: str) -> Callable[[], str]:
    return lambda: text(path)


def _reader(releases: ReleaseSource[Any], rel: Any) -> Callable[[str], str]:
    """A release's file's text, its corpus opened on the first call (a warm build makes none)."""
    opened: list[Corpus] = []

    def read(path: str) -> str:
        if not opened:
            opened.append(releases.corpus(rel))
        return opened[0].read_text(rel.pin.name, path)
    return read


def _walk(chain: Chain, cache: Cache | None) -> tuple[list[list[int]], list[list[int]]]:
    """Each copy's lines' earliest and latest release in which they read as in that copy."""
    texts = [text() for _, _, text in chain]
    counts = [len(split_lines(t)) for t in texts]
    maps = [_map(file_diff(cache, chain[i][1], texts[i], chain[i + 1][1], texts[i + 1]).blocks(),
                 counts[i + 1]) for i in range(len(chain) - 1)]
    firsts = [[chain[0][0]] * counts[0]]
    for i in range(1, len(chain)):
        before = firsts[-1]
        firsts.append([before[j] if j >= 0 else chain[i][0] for j in maps[i - 1]])
    lasts = [[chain[-1][0]] * counts[-1]]
    for i in range(len(chain) - 2, -1, -1):
        after, back = lasts[0], [-1] * counts[i]
        for new, old in enumerate(maps[i]):
            if old >= 0:
                back[old] = new
        lasts.insert(0, [after[j] if j >= 0 else chain[i][0] for j in back])
    return firsts, lasts


def _map(blocks: Sequence[tuple[int, int, int, int]], count: int) -> list[int]:
    """Each new line (0-based) -> the old line it reads as, -1 for one a change added or rewrote."""
    out, shift, at = [], 0, 0
    for _a, b, c, d in blocks:
        out += [n - shift for n in range(at, c)]
        out += [-1] * (d - c)
        shift, at = d - b, d
    out += [n - shift for n in range(at, count)]
    return out


def _runs(firsts: Sequence[int], lasts: Sequence[int]) -> tuple[Run, ...]:
    out: list[list[int]] = []
    for pair in zip(firsts, lasts, strict=True):
        if out and (out[-1][1], out[-1][2]) == pair:
            out[-1][0] += 1
        else:
            out.append([1, *pair])
    return tuple((n, f, la) for n, f, la in out)
