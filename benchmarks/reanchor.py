"""Placement on a real pin move, held against the author's own placements.

    PYTHONPATH=. .venv/bin/python benchmarks/reanchor.py [--record moves/X.json] [--reverse]

Replays the recorded move (`moves/jax-0.12.0.1-tokamax-0.0.17.json`): the annotations at the
record's `old_rev` (as they stood at the old pins, jax 0.10.2 / tokamax 0.0.12) are placed at
the pins of the commit that wrote the record (today's: jax 0.12.0.1 / tokamax 0.0.17), and each
placement is held against where the author put the note in that commit (the record's `path` and
`new_line`). `--reverse` moves the author's annotations of that commit back to the old pins and
holds them against where the notes stood there (the old annotations' path, the record's
`old_line`).

Three placers side by side on the same notes and corpora: `anchor`, reader diff's anchoring as it
was before the proposals (a note is placed where `resolve_text` anchors it at the new pins),
`proposals` (`reader.move.place`, what `reader diff` does), and `stepped`: the proposals through
the releases between (the jax pin's `history`: 0.10.2 -> 0.11.0 -> 0.11.2 -> 0.12.0.1), each step
starting where the one before placed the note. Stepping measured no better on this move (98.5 %
on the author's code forward, 99.0 % back, at 1.6x the CPU), so `reader diff` goes directly. Per placer: notes placed where the author put them, notes with
a proposal (and, for each without, its reason), proposals elsewhere than the author's without a
re-read mark, and the placing's wall and CPU time.

Left out: the notes the author moved to another symbol. A note is left out when its symbol (or,
without one, the innermost definition around its lines) differs between the two sides (the same
name in another file is a file move, and counts) and either fewer than half of its lines
(stripped, non-blank) have a close counterpart (difflib ratio >= 0.8) on the other side, or the
author's new symbol was already defined at the old pins beside the old one (the author chose
another definition, not a rename): no placer following the code can be held to those. The old pins' files come from the cache (`reader fetch` fills it: the previous edition's
build fetches them from the release archives).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reader.annotations import Note, resolve
from reader.annotations.resolve import PinnedSymbols
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.model import Symbol
from reader.move import place
from reader.move.notes import CorpusFiles, diff_note
from reader.move.place import Files, Proposal, propose
from reader.move.sides import Side
from reader.opening import articles_at, load_side

RECORD = "moves/jax-0.12.0.1-tokamax-0.0.17.json"


@dataclass(frozen=True)
class Placed:
    """One placer's answer for one note: where (None: no proposal), and whether a person is asked
    to re-read it (a re-read mark, or a flag in reader diff's report)."""

    path: str
    line: int | None
    marked: bool
    end: int | None
    why: str = ""
    """For a note without a place: the reason given."""
    how: str = ""


@dataclass(frozen=True)
class Held:
    """Where the author put a note at the target pins."""

    path: str
    line: int
    lines: tuple[str, ...]
    """The author's anchored lines, stripped, non-blank."""
    end: int


Placer = Callable[[list[Note], Corpus, Corpus], dict[str, Placed]]


def anchor_placer(notes: list[Note], old: Corpus, new: Corpus) -> dict[str, Placed]:
    """reader diff before the proposals: the note's own anchor resolved at the new pins; a note
    is flagged unless its code is unchanged."""
    out = {}
    for note in notes:
        change = diff_note(note, old, new)
        span = change.new
        out[note.id] = Placed(note.path, span.start if span else None, change.needs_person,
                              span.end if span else None,
                              f"{change.status}: {change.detail}", change.status)
    return out


def proposal_placer(notes: list[Note], old: Corpus, new: Corpus) -> dict[str, Placed]:
    from reader.move.notes import propose_notes

    out = {}
    for p in propose_notes(notes, old, new):
        out[p.note] = Placed(p.path, p.line, p.marked, p.span.end if p.span else None, p.reason,
                             p.how)
    return out


class Layered:
    """`place.Files` of `top` for the paths its pins cover, of `base` for the others (a release
    of one pin between two pin sets: the other pins as they were)."""

    def __init__(self, top: CorpusFiles, base: CorpusFiles):
        self.top, self.base = top, base

    def _of(self, path: str) -> CorpusFiles:
        return self.top if self.top.corpus.pin_of(path) else self.base

    def paths(self) -> list[str]:
        pins = set(self.top.corpus.pins)
        return self.top.paths() + [p.path for p in self.base.corpus.all_files() if p.pin not in pins]

    def text(self, path: str) -> str | None:
        return self._of(path).text(path)

    def symbols(self, path: str) -> tuple[Symbol, ...]:
        return self._of(path).symbols(path)


def propose_through(notes: Sequence[Note], sides: Sequence[Files],
                    labels: Sequence[str] = ()) -> list[Proposal]:
    """Each note moved side to side (the releases between two pins, in order): every step starts
    from where the one before placed it; the result is the last step's place with the first
    step's old code, the least sure step's confidence and every step's reason (`labels` name the
    sides after the first)."""
    wrapped = [s if isinstance(s, place.Side) else place.Side(s) for s in sides]
    current, steps = list(notes), [[] for _ in notes]  # type: list[Note], list[list[Proposal]]
    for k, (a, b) in enumerate(zip(wrapped, wrapped[1:], strict=False)):
        for i, note in enumerate(current):
            if steps[i] and steps[i][-1].span is None:
                continue
            p = propose(note, a, b)
            if labels:
                p = replace(p, reason=f"{labels[k]}: {p.reason}")
            steps[i].append(p)
            if p.span is not None:
                current[i] = replace(note, path=p.path, symbol=p.symbol, lines=p.lines,
                                     quote=p.quote, fingerprint=p.fingerprint, line=p.span.start)
    return [_chained(s) for s in steps]


def _chained(steps: list[Proposal]) -> Proposal:
    first, last = steps[0], steps[-1]
    moving = [s.how for s in steps if s.how not in ("unchanged", "moved")]
    how = moving[-1] if moving else "unchanged" if all(s.how == "unchanged" for s in steps) \
        else "moved"
    return replace(last, note=first.note, old_path=first.old_path, was=first.was, how=how,
                   confidence=min(s.confidence for s in steps),
                   reason="; ".join(s.reason for s in steps if s.how != "unchanged")
                   or last.reason,
                   changed=any(s.changed for s in steps))


def stepped_placer(steps: list[Corpus]) -> Placer:
    """The proposals through the releases between (`steps`: each a corpus of one pin's release)."""
    def through(notes: list[Note], old: Corpus, new: Corpus) -> dict[str, Placed]:
        base = CorpusFiles(old)
        sides: list[Files] = [base, *(Layered(CorpusFiles(s), base) for s in steps),
                              CorpusFiles(new)]
        return {p.note: Placed(p.path, p.line, p.marked, p.span.end if p.span else None, p.reason,
                               p.how) for p in propose_through(notes, sides)}
    return through


PLACERS: dict[str, Placer] = {"anchor": anchor_placer, "proposals": proposal_placer}


def stripped(text: str, start: int, end: int) -> tuple[str, ...]:
    lines = text.replace("\r\n", "\n").split("\n")[start - 1: end]
    return tuple(line.strip() for line in lines if line.strip())


def code_of(note: Note, corpus: Corpus,
            symbols: PinnedSymbols) -> tuple[str, int, tuple[str, ...], int] | None:
    r = resolve(note, corpus, symbols)
    if r.span is None:
        return None
    text = corpus.read_text(r.pin, r.path)
    return r.path, r.span.start, stripped(text, r.span.start, r.span.end), r.span.end


def holder(note: Note, code: tuple[str, int, tuple[str, ...], int],
           symbols: PinnedSymbols) -> str | None:
    """The note's symbol, else the innermost definition around its lines."""
    if note.symbol:
        return note.symbol
    path, start, _, end = code
    around = [s for s in symbols_at(symbols.corpus, symbols, path)
              if s.span.start <= start and end <= s.span.end]
    return min(around, key=lambda s: len(s.span)).qualname if around else None


def symbols_at(corpus: Corpus, symbols: PinnedSymbols, path: str) -> tuple[Symbol, ...]:
    pin = corpus.pin_of(path)
    return symbols.of(pin, path) if pin and corpus.has(pin, path) else ()


def overlap(before: tuple[str, ...], after: tuple[str, ...]) -> float:
    """The share of `before`'s lines with a close counterpart in `after`."""
    if not before:
        return 0.0
    there = set(after)
    hits = sum(1 for line in before
               if line in there or difflib.get_close_matches(line, after, 1, 0.8))
    return hits / len(before)


def author_commit(root: Path, record: str) -> str:
    """The commit that added the record: its annotations are the author's placements."""
    out = subprocess.run(["git", "-C", str(root), "log", "--diff-filter=A", "--format=%H", "--",
                          record], capture_output=True, text=True, check=True).stdout.split()
    if not out:
        raise SystemExit(f"{record} is not in this project's git history")
    return out[-1]


@dataclass(frozen=True)
class Case:
    """One direction of the move: the notes to place, both corpora, and the author's places."""

    name: str
    notes: list[Note]
    source: Corpus
    target: Corpus
    held: dict[str, Held]
    left_out: dict[str, str]
    steps: list[Corpus]
    """The releases between (the pins' `history`), in the order of the move."""


def corpus(root: Path, side: Side, cache: Cache) -> Corpus:
    return Corpus.open(Project(root, side.pins, side.locks), cache)


def cases(root: Path, record_path: str) -> list[Case]:
    record = json.loads((root / record_path).read_text())
    cache = Cache()
    commit = author_commit(root, record_path)
    old_side = load_side(root, f"{record['old_rev']}:pins.toml")
    new_side = load_side(root, f"{commit}:pins.toml")
    old, new = corpus(root, old_side, cache), corpus(root, new_side, cache)
    before = {n.id: n for a in articles_at(root, record["old_rev"]) for n in a.notes}
    after = {n.id: n for a in articles_at(root, commit) for n in a.notes}
    ids = [i for i in before if i in after]
    old_symbols, new_symbols = PinnedSymbols(old), PinnedSymbols(new)
    held_new, held_old, left_out = {}, {}, {}
    for nid in ids:
        a, b = code_of(before[nid], old, old_symbols), code_of(after[nid], new, new_symbols)
        if a is None or b is None:
            left_out[nid] = "the author's note does not anchor on its side"
            continue
        held_old[nid], held_new[nid] = Held(*a), Held(*b)
        was = holder(before[nid], a, old_symbols)
        now = holder(after[nid], b, new_symbols)
        if was == now:
            continue
        if min(overlap(a[2], b[2]), overlap(b[2], a[2])) < 0.5:
            left_out[nid] = f"moved by the author from {was} to {now}: other code"
        elif old.pin_of(b[0]) and now in {s.qualname for s in symbols_at(old, old_symbols, b[0])}:
            left_out[nid] = f"moved by the author from {was} to {now}: both at the old pins"
    fates = {f["note"]: f for f in record["fates"]}
    for nid, held in held_new.items():  # the record is the reference: it must agree
        fate = fates.get(nid)
        if fate and (fate["path"], fate["new_line"]) != (held.path, held.line):
            raise SystemExit(f"{nid}: the record says {fate['path']}:{fate['new_line']}, the "
                             f"author's annotations {held.path}:{held.line}")
    steps = between(root, old_side, new_side, cache)
    return [Case(f"{old_side.pins['jax'].release} -> {new_side.pins['jax'].release}",
                 [before[i] for i in ids], old, new, held_new, left_out, steps),
            Case(f"{new_side.pins['jax'].release} -> {old_side.pins['jax'].release}",
                 [after[i] for i in ids], new, old, held_old, left_out, steps[::-1])]


def between(root: Path, old: Side, new: Side, cache: Cache) -> list[Corpus]:
    """The releases of each pin's `history` (as today's pins.toml lists them) between the two
    sides' releases, as corpora."""
    from reader.pins import load_pins
    from reader.releases import release, release_corpus

    today = load_pins(root / "pins.toml")
    out = []
    for name, pin in new.pins.items():
        if name not in old.pins:
            continue
        history = list(today[name].history if name in today else pin.history)
        start = old.pins[name].release
        if start in history:
            for spec in history[history.index(start) + 1:]:
                out.append(release_corpus(root, release(pin, spec, cache), cache))
    return out


@dataclass(frozen=True)
class Figures:
    held: int
    right: int
    proposed: int
    silent_wrong: list[str]
    marked_wrong: list[str]
    unplaced: list[tuple[str, str]]
    wall: float
    cpu: float
    marked: int
    overlapping: int
    """Proposals on the author's code: the same file, lines overlapping the author's."""


def measure(case: Case, placer: Placer | None) -> Figures:
    """One placer's figures on `case` (None: the proposals through the releases between)."""
    notes = [n for n in case.notes if n.id not in case.left_out]
    wall, cpu = time.perf_counter(), time.process_time()
    placed = (stepped_placer(case.steps) if placer is None else placer)(notes, case.source,
                                                                         case.target)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    right = proposed = marked = overlapping = 0
    silent_wrong, marked_wrong, unplaced = [], [], []
    for note in notes:
        p, held = placed[note.id], case.held[note.id]
        marked += p.marked
        if p.line is None:
            unplaced.append((note.id, p.why))
            continue
        proposed += 1
        assert p.end is not None
        overlapping += p.path == held.path and p.line <= held.end and held.line <= p.end
        miss = (f"{note.id}: {p.path}:{p.line}, the author {held.path}:{held.line} "
                f"[{p.how}] {p.why}")
        if (p.path, p.line) == (held.path, held.line):
            right += 1
        on_code = p.path == held.path and p.line <= held.end and held.line <= p.end
        if on_code:
            continue
        if p.marked:
            marked_wrong.append(miss)
        else:
            silent_wrong.append(miss)
    return Figures(len(notes), right, proposed, silent_wrong, marked_wrong, unplaced, wall, cpu,
                   marked, overlapping)


def report(name: str, f: Figures, verbose: bool, peer: Figures | None = None) -> list[str]:
    ratio = f" ({f.cpu / peer.cpu:.1f}x the anchor's CPU)" if peer and peer is not f else ""
    out = [f"  {name}: placed where the author put them {f.right}/{f.held} "
           f"({100 * f.right / f.held:.1f} %), on the author's code {f.overlapping} "
           f"({100 * f.overlapping / f.held:.1f} %); with a proposal {f.proposed}/{f.held}; "
           f"elsewhere with a mark {len(f.marked_wrong)}, elsewhere without a mark "
           f"{len(f.silent_wrong)}; marked for a person {f.marked}; "
           f"{f.wall:.2f} s wall, {f.cpu:.2f} s CPU{ratio}"]
    reasons = Counter(why.split(":")[0] for _, why in f.unplaced)
    if f.unplaced:
        out.append(f"    without a proposal: {dict(reasons)}")
    if verbose:
        out += [f"      {nid}: {why}" for nid, why in f.unplaced]
        out += [f"    silent: {line}" for line in f.silent_wrong]
        out += [f"    marked: {line}" for line in f.marked_wrong]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=".")
    parser.add_argument("--record", default=RECORD)
    parser.add_argument("--placer", choices=[*sorted(PLACERS), "stepped"], action="append")
    parser.add_argument("--reverse", action="store_true", help="only the move back to the old pins")
    parser.add_argument("--forward", action="store_true", help="only the recorded move")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every note missed")
    args = parser.parse_args()
    root = Path(args.root).resolve()
    chosen = [c for i, c in enumerate(cases(root, args.record))
              if not (args.reverse and i == 0) and not (args.forward and i == 1)]
    for case in chosen:
        left = Counter(why.split(": ")[-1] for why in case.left_out.values())
        print(f"{case.name}: {len(case.notes)} notes, {len(case.notes) - len(case.left_out)} held "
              f"against the author's places; left out: {dict(left)}")
        peer = None
        for name in args.placer or [*sorted(PLACERS), "stepped"]:
            label = name if name != "stepped" else f"stepped ({len(case.steps)} releases between)"
            figures = measure(case, PLACERS.get(name))
            peer = figures if name == "anchor" else peer
            for line in report(label, figures, args.verbose, peer):
                print(line)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
