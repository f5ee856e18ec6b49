"""A flagged note's claim at both sides of the move: what its re-read mark says changed, else the
outcomes `reader check --run` and `reader diff` kept in the cache (the review runs nothing: a
side not run yet says so)."""

from __future__ import annotations

from reader.annotations.model import Article, ClaimShift, Note
from reader.cache import Cache
from reader.children import Children
from reader.claims.env import Env, installed
from reader.claims.env import label as releases_label
from reader.claims.run import Outcome, Spec, kept, pins_digest
from reader.claims.track import TrackClaim
from reader.corpus import Corpus
from reader.errors import ReaderError
from reader.review.model import ClaimSide

_envs: dict[tuple[str, tuple[str, ...]], Env | None] = {}
"""(cache root, the pins' releases) -> the environment with them installed, once looked up."""


def claim_sides(article: Article, note: Note, old: Corpus | None, new: Corpus, cache: Cache,
                shift: ClaimShift | None = None) -> tuple[ClaimSide, ...]:
    """The claim's outcome at the old pins and at the new ones (empty without a claim)."""
    if note.claim is None:
        return ()
    if shift is not None:  # the move ran it at both sides: what differs
        return (ClaimSide("before the move", "says", f">>> {shift.source}\n{shift.old}"),
                ClaimSide(releases_label(new.project.pins), "says",
                          f">>> {shift.source}\n{shift.new}"))
    setup = article.claim_setup.text if article.claim_setup else ""
    spec = TrackClaim(note.id, note.claim, setup).spec
    return tuple(_side(spec, corpus, cache) for corpus in (old, new) if corpus is not None)


def _side(spec: Spec, corpus: Corpus, cache: Cache) -> ClaimSide:
    label = releases_label(corpus.project.pins)
    env = _env(corpus, cache)
    outcome = kept(spec, env, pins_digest(corpus.project.locks), cache) if env else None
    if outcome is None:
        return ClaimSide(label, "not run", "not run at these releases yet ('reader check --run' "
                                           "runs it at the new pins, 'reader diff' at both)")
    return _said(label, outcome)


def _env(corpus: Corpus, cache: Cache) -> Env | None:
    key = (str(cache.root), tuple(sorted(p.release for p in corpus.project.pins.values())))
    if _envs.get(key) is None:  # looked up again until it is there: `reader diff` may make it
        try:
            _envs[key] = installed(corpus.project.pins, cache, Children())  # a venv asked its versions
        except ReaderError:
            _envs[key] = None
    return _envs[key]


def _said(label: str, o: Outcome) -> ClaimSide:
    bad = o.first_failure()
    if bad is not None:
        return ClaimSide(label, "fails", f">>> {bad.source.strip()}\n{bad.got.rstrip()}")
    if o.error:
        return ClaimSide(label, "fails", o.error)
    last = o.examples[-1] if o.examples else None
    return ClaimSide(label, "passes" if o.ok else "fails",
                     f">>> {last.source.strip()}\n{last.got.rstrip()}" if last else "")
