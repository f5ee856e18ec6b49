"""`reader diff` as a recipe: two sides -> their corpora -> pins, notes, files, symbols, rules, facts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reader.annotations import load_articles
from reader.annotations.check import FactSource, FigureReads, computed_facts
from reader.cache import Cache
from reader.claims.env import Pythons
from reader.corpus import Corpus, Project
from reader.errors import Location
from reader.extract import build_index
from reader.extract.fact import ExtractError
from reader.extract.providers import load_rules
from reader.extract.ruletable import RuleTable
from reader.move.changes import Change, DiffReport, FileChange, PinChange, RulesUncomputed
from reader.move.claims import diff_claims
from reader.move.code import diff_symbols
from reader.move.notes import annotated_symbols, diff_notes
from reader.move.sides import Side
from reader.move.tables import citations, diff_facts, diff_figures, diff_rules
from reader.pins import LockEntry
from reader.progress import say


def diff_pins(old: Side, new: Side) -> list[PinChange]:
    """Pins whose commit differs, or that only one side has."""
    out = []
    for name in sorted(set(old.pins) | set(new.pins)):
        a, b = old.pins.get(name), new.pins.get(name)
        if a and b and a.commit != b.commit:
            out.append(PinChange(status="moved", pin=name, repo=b.repo, old=a.commit, new=b.commit,
                                 old_label=a.tag or a.release, new_label=b.tag or b.release))
        elif a and not b:
            out.append(PinChange(status="removed", pin=name, repo=a.repo, old=a.commit, new=""))
        elif b and not a:
            out.append(PinChange(status="added", pin=name, repo=b.repo, old="", new=b.commit))
    return out


def diff_files(pin: str, old: Corpus, new: Corpus, annotated: dict[str, frozenset[str]]) -> list[Change]:
    """Files added or removed in `pin`'s lock, and the symbol changes of every file whose blob changed."""
    a, b = old.project.locks[pin], new.project.locks[pin]
    out: list[Change] = []
    for path in sorted(set(a.files) | set(b.files)):
        if path in a.files and path in b.files:
            if a.files[path] != b.files[path] and old.has(pin, path) and new.has(pin, path):
                out.extend(diff_symbols(pin, path, old.read_text(pin, path), new.read_text(pin, path),
                                        annotated.get(path, frozenset())))
        else:
            out.append(_presence(pin, path, a, b))
    return out


def _presence(pin: str, path: str, a: LockEntry, b: LockEntry) -> FileChange:
    lacking = b if path in a.files else a
    if lacking.source.startswith("archive"):
        return FileChange(status="unknown", pin=pin, path=path,
                          detail=f"the {'new' if lacking is b else 'old'} lock comes from the "
                                 f"{lacking.source.removeprefix('archive ')} archive, which omits files")
    return FileChange(status="added" if path in b.files else "removed", pin=pin, path=path)


@dataclass(frozen=True)
class ClaimRuns:
    """How `reader diff` runs the claims at each side's releases: in the child processes `pythons`
    starts (the command's `reader.children.Children`)."""

    pythons: Pythons
    timeout: float = 120.0
    """Seconds one claim may take."""
    jobs: int = 1


def diff_sides(root: Path, old: Side, new: Side, cache: Cache | None = None,
               facts: FactSource = computed_facts, claims: ClaimRuns | None = None,
               figures: FigureReads | None = None) -> DiffReport:
    """Every change from `old` to `new` for the project's annotations at `root`; fetches both
    sides' files (a cache hit once fetched). `facts` computes a corpus' facts; with `claims`, the
    claims run with each side's releases installed; with `figures`, the figures the prose cites
    are read at both sides. What an extractor cannot compute on a side is an `Uncomputed`
    change, never a stop."""
    cache = cache or Cache()
    articles = load_articles(root)
    old_corpus = Corpus.open(Project(root, old.pins, old.locks), cache)
    new_corpus = Corpus.open(Project(root, new.pins, new.locks), cache)
    changes: list[Change] = [*diff_pins(old, new), *diff_notes(articles, old_corpus, new_corpus)]
    if claims is not None:
        say("running the claims at both sides")
        changes += diff_claims(articles, old, new, cache, claims.timeout, claims.jobs, claims.pythons)
    annotated = annotated_symbols(articles)
    for name in sorted(set(old.pins) & set(new.pins)):
        if old.locks[name].files != new.locks[name].files:
            changes.extend(diff_files(name, old_corpus, new_corpus, annotated))
    say("comparing the lowering rule tables")
    before, after = _rules(old_corpus, old.label), _rules(new_corpus, new.label)
    if isinstance(before, list) and isinstance(after, list):
        changes.extend(diff_rules(before, after))
    changes += [r for r in (before, after) if isinstance(r, RulesUncomputed)]
    say("comparing the facts")
    changes.extend(diff_facts(facts(old_corpus), facts(new_corpus), articles, old.label, new.label))
    if figures is not None:
        say("reading the figures")
        cited = citations(articles, "figure")
        changes.extend(diff_figures(figures(old_corpus, cited), figures(new_corpus, cited), articles,
                                    old.label, new.label))
    return DiffReport(old.label, new.label, tuple(changes))


def _rules(corpus: Corpus, label: str) -> list[RuleTable] | RulesUncomputed:
    """One side's rule tables, or what stopped their extractor."""
    try:
        return load_rules(corpus, build_index(corpus))
    except ExtractError as e:
        return RulesUncomputed(status="unknown", side=label, what="the lowering rule tables",
                               where=e.location or Location(""), reason=e.message)
