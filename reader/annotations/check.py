"""`reader check`'s logic: every annotation file against the pinned code, all problems collected."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from reader.annotations.load import load_all
from reader.annotations.markup import parse
from reader.annotations.model import Article, Problem, ResolvedNote, Severity, Status
from reader.annotations.resolve import PinnedSymbols, file_problem, resolve, where
from reader.cache import Cache
from reader.corpus import Corpus
from reader.errors import InputError, Location, ReaderError
from reader.extract.fact import Facts, Unknown
from reader.extract.parse import ParseError
from reader.extract.providers import load_facts
from reader.labs.records import stale_records

FactSource = Callable[[Corpus], Facts]
"""The facts computed at a corpus' pins, with those that could not be."""
FigureReads = Callable[[Corpus, Iterable[str]], Mapping[str, ReaderError]]
"""The figures of the names whose maker cannot read a corpus' pinned code, each with why
(`reader.render.figures.registry.unreadable`: this layer imports no renderer)."""


def computed_facts(corpus: Corpus) -> Facts:
    """The facts of `reader.extract.facts` (its extractors load only when the cache lacks them)."""
    return load_facts(corpus)


@dataclass(frozen=True)
class ArticleReport:
    """One annotation file's notes as resolved at the pins."""

    path: str
    slug: str
    notes: tuple[ResolvedNote, ...]

    def statuses(self) -> dict[str, int]:
        return dict(Counter(r.status.value for r in self.notes))


@dataclass(frozen=True)
class CheckReport:
    """Everything `reader check` found, in file and line order."""

    files: int
    articles: tuple[ArticleReport, ...]
    problems: tuple[Problem, ...]
    facts_checked: bool
    """Whether the cited fact names were checked (there was an article to check)."""
    claims: int | None = None
    """How many claims `reader check --run` ran (None without `--run`)."""

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings, 2 input errors."""
        kinds = {p.severity for p in self.problems}
        return 2 if Severity.ERROR in kinds else 1 if Severity.FINDING in kinds else 0


@dataclass(frozen=True)
class _Context:
    root: Path
    corpus: Corpus
    symbols: PinnedSymbols
    facts: Facts
    slugs: frozenset[str]
    kernels: frozenset[str]
    figures: Collection[str]
    unread: Mapping[str, ReaderError]
    """The cited figures whose maker cannot read the pinned code, each with why."""


def check(root: Path, open_corpus: Callable[[], Corpus], facts: FactSource = computed_facts,
          cache: Cache | None = None, *, figures: Collection[str],
          figure_reads: FigureReads | None = None) -> CheckReport:
    """Check every `annotations/*.yaml` under `root`; opens the corpus only if there is a note.
    `figures` are the names `{{figure:NAME}}` may cite (`render.figures.FIGURES`); with
    `figure_reads`, a text citing one that cannot be made at the pins is a finding.

    `cache` keeps parsed annotation files between runs (a file is parsed again when it changes).
    """
    loaded = load_all(root, cache)
    problems = [p for f in loaded for p in f.problems] + record_problems(root, cache)
    articles = [f.article for f in loaded if f.article is not None]
    if not articles:
        return CheckReport(len(loaded), (), tuple(problems), False)
    corpus = open_corpus()
    try:
        known = facts(corpus)
        problems += [unknown_problem(u) for u in known.unknown]
    except ParseError as e:  # a pinned file no parser reads: one located error, the facts unknown
        where = e.location or Location("")
        problems.append(Problem(where, e.message, e.hint))
        known = Facts((), (Unknown(("**",), where, e.message, e.hint),))
    kernels = frozenset(p.stem for p in (root / "kernels").glob("*.py") if p.stem != "__init__")
    cited = [p.target for a in articles for text, _ in a.prose() for p in parse(text)[0]
             if p.kind == "figure" and p.target in figures]
    unread = figure_reads(corpus, cited) if figure_reads and cited else {}
    # A file that does not load keeps its slug (its name): a link to it is not a second error.
    slugs = {a.slug for a in articles} | {Path(f.path).stem for f in loaded if f.article is None}
    ctx = _Context(root, corpus, PinnedSymbols(corpus), known, frozenset(slugs), kernels, figures,
                   unread)
    problems += _duplicate_ids(articles)
    reports = []
    for article in articles:
        problems += _check_article(article, ctx)
        resolved = resolve(article, corpus, ctx.symbols)
        problems += [p for r in resolved if (p := note_problem(r)) is not None]
        problems += [p for r in resolved if (p := _outside_shown(article, r, ctx.symbols)) is not None]
        reports.append(ArticleReport(article.where.path, article.slug, resolved))
    return CheckReport(len(loaded), tuple(reports), ordered(fold_marks(problems, reports)), True)


def record_problems(root: Path, cache: Cache | None = None) -> list[Problem]:
    """The labs' chip records (`kernels/runs/`): a finding for each one whose lab changed since it
    was measured, an error for one that does not read."""
    try:
        stale = stale_records(root, cache)
    except InputError as e:
        return [Problem(e.location or Location(""), e.message, e.hint)]
    return [Problem(s.where, s.message, s.hint, Severity.FINDING) for s in stale]


def ordered(problems: Iterable[Problem]) -> tuple[Problem, ...]:
    """Problems in file and line order, then the re-read marks, the surest placement first."""
    def key(p: Problem) -> tuple[float, str, int]:
        return (-p.review.confidence if p.review else -2.0, p.where.path, p.where.line or 0)
    return tuple(sorted(problems, key=key))


def fold_marks(problems: list[Problem], reports: Iterable[ArticleReport]) -> list[Problem]:
    """`problems` with one finding for each note a pin move marked for re-reading, which takes in
    what its anchor and place say (a person re-reads and re-places it at once); a note that does
    not anchor at all stays an input error of its own."""
    marked = {r.note.id: r for a in reports for r in a.notes if r.note.review is not None}
    anchored: dict[str, list[Problem]] = {}
    out = []
    for p in problems:
        if p.note in marked and p.status is not Status.INVALID:
            anchored.setdefault(p.note, []).append(p)
        else:
            out.append(p)
    return out + [_mark_problem(r, anchored.get(nid, [])) for nid, r in marked.items()]


def _mark_problem(r: ResolvedNote, anchored: list[Problem]) -> Problem:
    note, review = r.note, r.note.review
    assert review is not None
    was = review.was
    also = "".join(f"; its anchor: {p.message.split(': ', 1)[-1]}" for p in anchored)
    return Problem(note.where, f"note {note.id!r} must be re-read after the pin move "
                               f"({review.confidence:.0%} sure of its place): {review.reason}{also}",
                   f"it was at {was.path}:{was.lines.first}-{was.lines.last}; re-read it, fix it "
                   f"if needed, then run 'reader accept {note.id}'", Severity.FINDING, note.id,
                   r.status, review)


def unknown_problem(u: Unknown) -> Problem:
    """Facts an extractor cannot compute at the pins: a finding located at the code it failed on."""
    return Problem(u.where, f"{u.what} cannot be computed: {u.reason}",
                   u.hint or "update the extractor to the pinned code", Severity.FINDING)


def note_problem(r: ResolvedNote) -> Problem | None:
    """The problem a resolved note's status makes, if any."""
    a, nid, at = r.anchor, r.note.id, r.note.where
    if a.status is Status.OK:
        return None
    if a.status is Status.INVALID:
        return Problem(at, f"note {nid!r}: {a.message}", a.hint, Severity.ERROR, nid, a.status)
    severity = Severity.FINDING if a.status.is_finding else Severity.NOTICE
    return Problem(at, f"note {nid!r} is {a.status.value}: {a.message}", a.hint, severity, nid,
                   a.status)


def _outside_shown(article: Article, r: ResolvedNote, symbols: PinnedSymbols) -> Problem | None:
    """A note placed outside the symbols the page shows of its file would never be seen."""
    reads = [read for read in article.reads if read.path == r.path]
    span = r.anchor.span
    if span is None or not reads or any(not read.symbols for read in reads):
        return None
    wanted = {name for read in reads for name in read.symbols}
    shown = [s for s in symbols.of(r.pin, r.path) if s.qualname in wanted]
    if any(s.span.start <= span.start and span.end <= s.span.end for s in shown):
        return None
    return Problem(r.note.where, f"note {r.note.id!r} (lines {span.start}-{span.end}) is outside "
                                 f"the symbols the page shows of {r.path} ({', '.join(sorted(wanted))})",
                   "add its symbol to `reads: symbols` or anchor the note inside them",
                   note=r.note.id)


def _duplicate_ids(articles: list[Article]) -> list[Problem]:
    first: dict[str, Location] = {}
    out = []
    for note in (n for a in articles for n in a.notes):
        if note.id in first:
            out.append(Problem(note.where, f"duplicate note id {note.id!r} (first at "
                                           f"{first[note.id]})", "give each note its own id"))
        else:
            first[note.id] = note.where
    return out


def _check_article(article: Article, ctx: _Context) -> list[Problem]:
    out: list[Problem] = []
    for read in article.reads:
        out += _source_link(read.path, read.symbols, read.where, ctx, "`reads`")
    for name in article.kernels:
        if name not in ctx.kernels:
            out.append(_unknown_kernel(name, Location(article.where.path,
                                                      article.line_of("kernels")), ctx))
    read_paths = {r.path for r in article.reads}
    for note in article.notes:
        if read_paths and note.path not in read_paths and not file_problem(note.path, ctx.corpus):
            out.append(Problem(note.where, f"note {note.id!r} is on {note.path!r}, which the page "
                                           "does not read", "add the file to `reads` or fix `path`"))
    for text, loc in article.prose():
        out += _check_markup(text, loc, ctx)
    return out


def _check_markup(text: str, loc: Location, ctx: _Context) -> list[Problem]:
    found, bad = parse(text)
    out = [Problem(loc, m.message, m.hint) for m in bad]
    uncomputed: dict[Unknown, list[str]] = {}
    for p in found:
        if p.kind == "fact" and (u := ctx.facts.unknown_for(p.target)) is not None:
            uncomputed.setdefault(u, []).append(p.target)
        elif p.kind == "fact" and p.target not in ctx.facts.values:
            close = difflib.get_close_matches(p.target, list(ctx.facts.values), n=1)
            dym = f" (did you mean {close[0]!r}?)" if close else ""
            out.append(Problem(loc, f"unknown fact {p.target!r}{dym}",
                               "'reader facts' lists the fact names"))
        elif p.kind == "figure" and p.target not in ctx.figures:
            close = difflib.get_close_matches(p.target, sorted(ctx.figures), n=1)
            dym = f" (did you mean {close[0]!r}?)" if close else ""
            out.append(Problem(loc, f"unknown figure {p.target!r}{dym}",
                               "name a figure of FIGURES in reader/render/figures/registry.py"))
        elif p.kind == "source":
            out += _source_link(p.target, (p.symbol,) if p.symbol else (), loc, ctx, "link")
        elif p.kind == "lab" and p.target not in ctx.kernels:
            out.append(_unknown_kernel(p.target, loc, ctx))
        elif p.kind == "page" and p.target not in ctx.slugs:
            close = difflib.get_close_matches(p.target, sorted(ctx.slugs), n=1)
            dym = f" (did you mean {close[0]!r}?)" if close else ""
            out.append(Problem(loc, f"link to unknown page {p.target!r}{dym}",
                               "link a slug of a file in annotations/"))
    for u, names in uncomputed.items():
        cited = ", ".join(dict.fromkeys(names))
        out.append(Problem(loc, f"cites facts that cannot be computed at the pins: {cited} "
                                f"(see {u.where})",
                           "update the extractor, then re-read this text", Severity.FINDING))
    unread = {p.target: e for p in found if p.kind == "figure" and (e := ctx.unread.get(p.target))}
    for why in dict.fromkeys(e.brief for e in unread.values()):
        which = ", ".join(n for n, e in unread.items() if e.brief == why)
        out.append(Problem(loc, f"cites figures that cannot be computed at the pins: {which} ({why})",
                           "update the figure's maker (reader/render/figures/), then re-read this "
                           "text", Severity.FINDING))
    return out


def _source_link(path: str, symbols: tuple[str, ...], loc: Location, ctx: _Context,
                 what: str) -> list[Problem]:
    problem = file_problem(path, ctx.corpus)
    if problem:
        return [Problem(loc, f"{what}: {problem[0]}", problem[1])]
    if not symbols:
        return []
    pin = ctx.corpus.pin_of(path) or ""
    try:
        names = [s.qualname for s in ctx.symbols.of(pin, path)]
    except ParseError as e:
        return [Problem(loc, f"{what}: symbols of {path!r} cannot be read: {e.location}: "
                             f"{e.message}", e.hint)]
    out = []
    for symbol in symbols:
        if symbol not in names:
            close = difflib.get_close_matches(symbol, names, n=1)
            dym = f" (did you mean {close[0]!r}?)" if close else ""
            out.append(Problem(loc, f"{what}: symbol {symbol!r} not found in "
                                    f"{where(ctx.corpus, pin, path)}{dym}", "fix the name"))
    return out


def _unknown_kernel(name: str, loc: Location, ctx: _Context) -> Problem:
    close = difflib.get_close_matches(name, sorted(ctx.kernels), n=1)
    dym = f" (did you mean {close[0]!r}?)" if close else ""
    return Problem(loc, f"unknown kernel {name!r}: no kernels/{name}.py{dym}",
                   "name a lab module in kernels/")
