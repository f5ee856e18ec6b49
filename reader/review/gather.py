"""What the review shows: whether a move is in progress, and a screen for each note `reader check`
flags, surest first, with its code at the old and the new pins.

A move is in progress when the pins differ from those the project's HEAD commits (what
`reader diff` compares by default), or when a note carries a re-read mark (`review:`, written by
`reader diff --apply`). The old code is the mark's `was` (its blob, read from the cache), else the
note resolved at HEAD's pins; the confidence and reason are the mark's, else reader check's
status says how sure the note's place is.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

from reader.annotations import resolve_text
from reader.annotations.check import CheckReport
from reader.annotations.model import Article, Note, ResolvedNote, Severity, Status
from reader.cache import Cache, blob_sha
from reader.corpus import Corpus, Project
from reader.errors import ReaderError
from reader.model import split_lines
from reader.move.sides import Side as PinsSide
from reader.opening import load_side
from reader.pins import Pin
from reader.render.code.highlight import highlighted
from reader.review.claims import claim_sides
from reader.review.model import Review, Screen, Side
from reader.review.rows import aligned, covering, rows, windows
from reader.review.words import note_bodies

HEAD = "HEAD:pins.toml"


SURE = {Status.MOVED: ("moved", 0.9), Status.UNFINGERPRINTED: ("new", 0.6),
        Status.STALE: ("changed", 0.5), Status.AMBIGUOUS: ("ambiguous", 0.2),
        Status.ORPHANED: ("orphaned", 0.0)}
"""For a note without a mark: how sure reader is of where it now anchors, by its status (a note
that anchors nowhere: 0.2)."""


def gather(root: Path, site: Path, report: CheckReport, corpus: Corpus,
           cache: Cache | None = None) -> Review:
    """The review of the move under way at `root` (inactive when there is none), from `reader
    check`'s `report` at the current pins and the site built from them at `site`."""
    cache = cache or corpus.cache
    problems = []
    old, why_not = head_side(root)
    if why_not:
        problems.append(why_not)
    moved = old is not None and _differs(old, corpus.project)
    notes = sum(len(a.notes) for a in report.articles)
    marked = sum(1 for a in report.articles for r in a.notes if r.note.review is not None)
    if not moved and not marked:
        return Review(False, "no move is in progress: the pins are those HEAD commits and no note "
                             "is marked for re-reading", notes=notes, problems=tuple(problems))
    old_corpus = None
    if moved and old is not None:
        try:
            old_corpus = Corpus.open(Project(root, old.pins, old.locks), cache)
        except ReaderError as e:
            problems.append(f"the old pins' files cannot be read: {e}")
    articles = {a.where.path: a for a in _articles(root, report)}
    bodies: dict[str, dict[str, str]] = {}
    screens = []
    for r in flagged(report):
        article = articles[r.note.where.path]
        if article.slug not in bodies:
            bodies[article.slug] = note_bodies(site / "articles" / f"{article.slug}.html")
        screens.append(_screen(r, article, old_corpus, corpus, cache,
                               bodies[article.slug].get(r.note.id, ""), root))
    screens.sort(key=lambda s: -s.confidence)
    why = (f"the pins differ from HEAD's ({_pins_label(old.pins)} to {_pins_label(corpus.pins)})"
           if moved and old else f"{marked} note{'' if marked == 1 else 's'} marked for re-reading "
                                         "by 'reader diff --apply'")
    return Review(True, why, _pins_label(old.pins) if old else "", _pins_label(corpus.pins),
                  _moved(old.pins, corpus.pins) if moved and old else "", tuple(screens), notes,
                  tuple(problems))


def head_side(root: Path) -> tuple[PinsSide | None, str]:
    """The pins HEAD commits, or why they cannot be read (empty when the project is no git
    checkout: then only marks start a review)."""
    if not (root / ".git").exists():
        return None, ""
    try:
        return load_side(root, HEAD), ""
    except ReaderError as e:
        return None, f"the pins HEAD commits cannot be read: {e}"


def _differs(old: PinsSide, project: Project) -> bool:
    return ({n: (p.commit, old.locks[n].files) for n, p in old.pins.items()}
            != {n: (p.commit, project.locks[n].files) for n, p in project.pins.items()})


def _pins_label(pins: dict[str, Pin]) -> str:
    return " / ".join(pin_label(p) for p in pins.values())


def _moved(old: dict[str, Pin], new: dict[str, Pin]) -> str:
    """`jax 0.12.0.1 → 0.11.2`: each pin whose commit differs, from its old release to its new."""
    def version(pin: Pin) -> str:
        return pin_label(pin).removeprefix(f"{pin.dist_name or pin.name} ")

    return ", ".join(f"{pin_label(old[n])} → {version(new[n])}" for n in new
                     if n in old and old[n].commit != new[n].commit)


def pin_label(pin: Pin) -> str:
    """`jax 0.12.0.1` from a pin's release, else `name 1a2b3c4`."""
    return pin.release.replace("==", " ") if pin.release else f"{pin.name} {pin.short}"


def flagged(report: CheckReport) -> list[ResolvedNote]:
    """The notes `reader check` reports (findings and notices: its marks among them), in its
    order, each once."""
    by_id = {r.note.id: r for a in report.articles for r in a.notes}
    out: dict[str, ResolvedNote] = {}
    for p in report.problems:
        if p.note in by_id and p.severity in (Severity.FINDING, Severity.NOTICE):
            out.setdefault(p.note, by_id[p.note])
    return list(out.values())


def _articles(root: Path, report: CheckReport) -> list[Article]:
    from reader.annotations import load_articles

    return load_articles(root) if report.articles else []


class _Code(NamedTuple):
    """A side's whole file: its label, path and lines, the note's span there, blob and pin."""

    label: str
    path: str
    lines: list[str]
    span: tuple[int, int] | None
    blob: str
    pin: str

    def side(self, first: int, last: int, cache: Cache) -> Side:
        """Lines `first`-`last`, highlighted as the site highlights them."""
        runs = highlighted(cache, self.blob, "\n".join(self.lines)).runs[first - 1:last]
        return Side(self.label, self.path, first, tuple(self.lines[first - 1:last]), self.span,
                    self.blob, self.pin, tuple(runs))


def _screen(r: ResolvedNote, article: Article, old_corpus: Corpus | None, corpus: Corpus,
            cache: Cache, words: str, root: Path) -> Screen:
    note, a, mark = r.note, r.anchor, r.note.review
    how, confidence = SURE.get(a.status, ("changed", 0.5)) if a.span else ("unplaced", 0.2)
    reason = f"{a.status.value}: {a.message}" if a.message else a.status.value
    if mark is not None:
        confidence, reason = mark.confidence, mark.reason
    span = (a.span.start, a.span.end) if a.span else None
    pick = span or ((a.candidates[0].start, a.candidates[0].end) if a.candidates else None)
    new = None
    if r.pin and corpus.has(r.pin, r.path):
        new = _Code(pin_label(corpus.pins[r.pin]), r.path, _lines(corpus.read_text(r.pin, r.path)),
                    span, corpus.blob(r.pin, r.path), r.pin)
    old = _old(note, old_corpus, cache)
    (of, ol), (nf, nl) = windows(len(old.lines) if old else 0, old.span if old else None,
                                 len(new.lines) if new else 0, pick)
    view = rows(old.lines, new.lines, (of, ol), (nf, nl)) if old and new else []
    if pick is None and old is not None and old.span is not None:
        pick = aligned(view, old.span)
    (of, ol), (nf, nl) = covering(view, (of, ol), "old"), covering(view, (nf, nl), "new")
    old_side = old.side(of, ol, cache) if old else None
    new_side = new.side(nf, nl, cache) if new else None
    file = root / note.where.path
    return Screen(
        id=note.id, file=note.where.path, index=note.index, line=note.where.line or 1,
        digest=blob_sha(file.read_bytes()), article=article.slug, title=article.title,
        status=a.status.value, confidence=round(confidence, 3), reason=reason, how=how,
        body=note.body, words=words, old=old_side, new=new_side, rows=tuple(view), pick=pick,
        acceptable=bool(a.acceptable and a.span and a.fingerprint), advice=a.hint,
        claim=claim_sides(article, note, old_corpus, corpus, cache, mark.claim if mark else None),
        claim_text=note.claim.text if note.claim else "")


def _lines(text: str) -> list[str]:
    return split_lines(text.replace("\r\n", "\n"))


def _old(note: Note, old_corpus: Corpus | None, cache: Cache) -> _Code | None:
    """The note's file before the move, and its lines there: the mark's `was` (read from the
    cache by its blob), else the note resolved at the old pins."""
    was = note.review.was if note.review else None
    if was is not None:
        data = cache.get_blob(was.blob)
        if data is not None:
            return _Code(f"was {was.commit[:7]}", was.path, _lines(data.decode("utf-8", "replace")),
                         (was.lines.first, was.lines.last), was.blob, "")
    pin = old_corpus.pin_of(note.path) if old_corpus is not None else None
    if old_corpus is None or pin is None or not old_corpus.has(pin, note.path):
        return None
    text = old_corpus.read_text(pin, note.path)
    anchor = resolve_text(note, text)
    span = (anchor.span.start, anchor.span.end) if anchor.span else None
    return _Code(pin_label(old_corpus.pins[pin]), note.path, _lines(text), span,
                 old_corpus.blob(pin, note.path), pin)


def digest(review: Review) -> str:
    """A short hash of what the review shows (the served pages learn of a change by it)."""
    data = json.dumps(review.to_json(), sort_keys=True).encode()
    return hashlib.sha1(data).hexdigest()[:12]
