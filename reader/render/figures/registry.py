"""The registry of computed figures (`{{figure:NAME}}` in prose) and their making, cached.

Add a figure: a module with a `FigureMaker` (see `reader/render/common/figure.py`), and one line below.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from reader.cache import Cache
from reader.corpus import Corpus
from reader.errors import Location, ReaderError
from reader.extract.index import LINES, REFS, SCAN, USES, USES_OF
from reader.extract.providers import FACTS, RULES, Pinned
from reader.providers import Provider, as_json, how, pickled, provide
from reader.render.common.figure import Figure, FigureInputs, FigureMaker, Maker
from reader.render.common.model import Asset
from reader.render.figures.pipeline import BUFFER_COUNTS, pipeline_timeline
from reader.render.figures.sm90 import sm90_budget

FIGURES: dict[str, FigureMaker] = {
    **{f"pipeline-buffered-{n}": pipeline_timeline(n) for n in BUFFER_COUNTS},
    "sm90-budget": sm90_budget,
}
"""Figure name -> its maker. `reader check` reports a `{{figure:NAME}}` not in here."""

@dataclass(frozen=True)
class Drawn:
    """What a figure reads: the world (the pinned blobs it is computed from) and its name; the
    producer's way to them: the figures' inputs (the corpus, its index, the facts)."""

    world: str
    name: str
    inputs: FigureInputs | None = how()


def _drawn(inputs: Drawn) -> Figure:
    assert inputs.inputs is not None
    return FIGURES[inputs.name](inputs.inputs)


FIGURE: Provider[Drawn, Figure] = Provider("figure", Drawn, _drawn, pickled(Figure), (SCAN, REFS, USES, USES_OF, LINES, RULES, FACTS))
"""A figure (`FIGURES`' maker's)."""
NOT_COMPUTED = " not computed at these pins"
"""How the build's note on a figure that cannot be made reads (`figure NAME not computed ...`)."""


@dataclass
class Figures:
    """Each figure made at most once per build, and kept by the world key (see `pagecache`)."""

    inputs: FigureInputs
    cache: Cache | None = None
    world: str = ""
    """The pages' world key: the pins' blobs, so a pin move makes the figures again."""
    failures: dict[str, ReaderError] = field(default_factory=dict)
    """Figure name -> why it could not be made: not computed at these pins."""
    _made: dict[str, Figure | None] = field(default_factory=dict, init=False, repr=False)

    def __call__(self, name: str) -> Figure | None:
        """The figure, or None when no maker has that name or it failed (see `failures`)."""
        if name not in self._made:
            self._made[name] = self._make(name)
        return self._made[name]

    def _make(self, name: str) -> Figure | None:
        maker = FIGURES.get(name)
        if maker is None:
            return None
        try:
            return provide(FIGURE, Drawn(self.world, name, self.inputs), self.cache)
        except ReaderError as e:  # anything else is reader's bug: it stops the build
            self.failures[name] = e
            return None

    def absent(self, name: str) -> str:
        """Where and why figure `name` is not computed at these pins (`where: reason`), or empty."""
        failure = self.failures.get(name) if self(name) is None else None
        return failure.brief if failure is not None else ""

    def assets(self, names: Iterable[str]) -> list[Asset]:
        """The files the named figures load, once each."""
        out: dict[str, Asset] = {}
        for name in names:
            made = self(name)
            for a in made.assets if made is not None else ():
                out[a.src_uri] = a
        return list(out.values())


def unreadable(corpus: Corpus, names: Iterable[str]) -> dict[str, ReaderError]:
    """The figures of `names` whose maker cannot read the pinned code of `corpus`, each with why:
    what `reader diff` reports at either side of a move. Read once per set of pinned blobs
    (`FIGURE_READS`): a warm `reader check` parses no source."""
    found = provide(FIGURE_READS, Pinned(corpus), corpus.cache)
    return {name: found[name] for name in dict.fromkeys(names) if name in found}


def read_failures(corpus: Corpus, names: Iterable[str]) -> dict[str, ReaderError]:
    """The figures of `names` whose maker's `read` of the pinned code fails (no jax, no process)."""
    out = {}
    for name in dict.fromkeys(names):
        maker = FIGURES.get(name)
        if isinstance(maker, Maker):
            try:
                maker.read(corpus)
            except ReaderError as e:
                out[name] = e
    return out


def _dump_reads(failed: dict[str, ReaderError]) -> dict[str, Any]:
    return {name: {"message": e.message, "hint": e.hint, "path": e.location.path if e.location else None,
                   "line": e.location.line if e.location else None} for name, e in failed.items()}


def _load_reads(data: dict[str, Any]) -> dict[str, ReaderError]:
    return {name: ReaderError(e["message"], Location(e["path"], e["line"]) if e["path"] is not None else None,
                              e["hint"]) for name, e in data.items()}


def _figure_reads(inputs: Pinned) -> dict[str, ReaderError]:
    return read_failures(inputs.corpus, FIGURES)


FIGURE_READS: Provider[Pinned, dict[str, ReaderError]] = Provider(
    "figure-reads", Pinned, _figure_reads, as_json(dict, _dump_reads, _load_reads))
"""Each registered `Maker` whose `read` fails at the pins, with why (figure name -> the error)."""
