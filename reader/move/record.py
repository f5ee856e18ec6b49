"""What a finished pin move did to the track: each note's fate between the annotations at the old
pins (read from the project's git history) and those now, next to the code changes `reader diff` found."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from reader.annotations import Article, Note, resolve
from reader.annotations.resolve import PinnedSymbols
from reader.corpus import Corpus
from reader.errors import InputError, Location

if TYPE_CHECKING:  # the report's classes load with `reader diff`, not with every build
    from reader.move.changes import DiffReport

FATES = ("unchanged", "moved", "re-read", "rewritten", "retired", "added", "unplaced")
"""unchanged: same words on the same code at the same lines; moved: same words and code, other
lines; re-read: same words, the code under them changed and a person kept the note; rewritten:
the words changed; retired: gone from the annotations; added: new with the move; unplaced: it
does not anchor at the new pins (a move not finished)."""

RECORD_VERSION = 1


@dataclass(frozen=True)
class NoteFate:
    """One note across a move: its article, where its code was and is, and what became of it."""

    fate: str
    note: str
    article: str
    """The slug of the article holding it (the old one for a retired note)."""
    path: str
    old_line: int | None
    new_line: int | None


@dataclass(frozen=True)
class PinMove:
    """One pin's commits and releases before and after."""

    name: str
    repo: str
    old: str
    new: str
    old_release: str
    new_release: str


class ArticleTitle(NamedTuple):
    """An article's slug and its title."""

    slug: str
    title: str


@dataclass(frozen=True)
class MoveRecord:
    """A pin move as the site shows it: the fates of the notes and the changes to the code."""

    old: str
    new: str
    old_rev: str
    """The project commit (full sha) whose annotations were read as the old ones."""
    pins: tuple[PinMove, ...]
    fates: tuple[NoteFate, ...]
    changes: tuple[dict[str, Any], ...]
    """`reader diff`'s records of symbols, rules and facts, as its JSON printer writes them."""
    titles: tuple[ArticleTitle, ...] = ()
    """Every article named by a fate."""

    def to_json(self) -> dict[str, Any]:
        return {"version": RECORD_VERSION, "old": self.old, "new": self.new, "old_rev": self.old_rev,
                "titles": dict(self.titles), "pins": [asdict(p) for p in self.pins],
                "fates": [asdict(f) for f in self.fates],
                "changes": list(self.changes)}

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str) -> MoveRecord:
        if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
            raise InputError(f"not a move record of version {RECORD_VERSION}", Location(where, 1),
                             "write it again with 'reader diff OLD NEW --record FILE'")
        try:
            fates = tuple(NoteFate(**f) for f in data["fates"])
            pins = tuple(PinMove(**p) for p in data["pins"])
            return cls(data["old"], data["new"], data["old_rev"], pins, fates, tuple(data["changes"]),
                       tuple(ArticleTitle(*t) for t in sorted(data["titles"].items())))
        except (KeyError, TypeError) as e:
            raise InputError(f"malformed move record ({e})", Location(where, 1),
                             "write it again with 'reader diff OLD NEW --record FILE'") from None


class MoveFile(NamedTuple):
    """A recorded pin move: its file's stem (the page's name) and its record."""

    stem: str
    record: MoveRecord


def _place(note: Note, symbols: PinnedSymbols) -> tuple[int | None, str | None]:
    """(first line, fingerprint) of the code `note` anchors in `symbols.corpus`, or (None, None)."""
    anchor = resolve(note, symbols.corpus, symbols).anchor
    return (anchor.span.start if anchor.span else None), anchor.fingerprint


def _fate(old: Note, new: Note, before: PinnedSymbols,
          after: PinnedSymbols) -> tuple[str, int | None, int | None]:
    (a, fa), (b, fb) = _place(old, before), _place(new, after)
    if fb is None:
        return "unplaced", a, b
    if " ".join(old.body.split()) != " ".join(new.body.split()):
        return "rewritten", a, b
    if fa is None or fa != fb:
        return "re-read", a, b
    return ("unchanged" if (old.path, a) == (new.path, b) else "moved"), a, b


def note_fates(old: list[Article], new: list[Article], old_corpus: Corpus,
               new_corpus: Corpus) -> list[NoteFate]:
    """Every note of either side, in the new articles' order, retired notes after their article's."""
    before = {n.id: (a, n) for a in old for n in a.notes}
    after = {n.id: (a, n) for a in new for n in a.notes}
    old_symbols, new_symbols = PinnedSymbols(old_corpus), PinnedSymbols(new_corpus)
    out = []
    for article in new:
        for n in article.notes:
            if n.id not in before:
                out.append(NoteFate("added", n.id, article.slug, n.path, None,
                                    _place(n, new_symbols)[0]))
                continue
            fate, a, b = _fate(before[n.id][1], n, old_symbols, new_symbols)
            out.append(NoteFate(fate, n.id, article.slug, n.path, a, b))
    for note_id, (article, n) in before.items():
        if note_id not in after:
            out.append(NoteFate("retired", note_id, article.slug, n.path, n.line, None))
    return out


def move_record(report: DiffReport, old_rev: str, old: list[Article], new: list[Article],
                old_corpus: Corpus, new_corpus: Corpus) -> MoveRecord:
    """The record of a move: note fates, and the pins, rule tables, facts and the symbols of the
    files the track reads (their names and signatures; bodies are on the source pages)."""
    fates = note_fates(old, new, old_corpus, new_corpus)
    titles = {a.slug: a.title for a in [*old, *new] if any(f.article == a.slug for f in fates)}
    read = {r.path for a in [*old, *new] for r in a.reads} | {n.path for a in [*old, *new] for n in a.notes}
    kept = []
    for change in report.changes:
        if change.section not in ("symbols", "rules", "facts"):
            continue
        data = change.to_json()
        if change.section == "symbols" and data["path"] not in read:
            continue
        for derived in ("diff", "explain", "needs_person"):
            data.pop(derived, None)
        kept.append(data)
    a, b = old_corpus.pins, new_corpus.pins
    pins = tuple(PinMove(name, b[name].repo, a[name].commit, b[name].commit, a[name].release,
                         b[name].release) for name in sorted(set(a) & set(b)) if a[name].commit != b[name].commit)
    old_label = report.old.replace(report.old.partition(":")[0] + ":", old_rev[:12] + ":", 1) \
        if ":" in report.old else report.old
    return MoveRecord(old_label, report.new, old_rev, pins, tuple(fates), tuple(kept),
                      tuple(ArticleTitle(*t) for t in sorted(titles.items())))


