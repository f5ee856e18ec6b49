"""What a pin move does to the claims: each run with the old and the new releases installed."""

from __future__ import annotations

from collections.abc import Sequence

from reader.annotations.model import Article
from reader.cache import Cache
from reader.claims.env import Env, Pythons, environment
from reader.claims.run import Outcome, pins_digest, run_claims
from reader.claims.track import TrackClaim, claims_of
from reader.errors import Location, ReaderError
from reader.move.changes import Change, ClaimChange, ClaimsUncomputed
from reader.move.sides import Side


def diff_claims(articles: Sequence[Article], old: Side, new: Side, cache: Cache, timeout: float,
                jobs: int, pythons: Pythons) -> list[Change]:
    """A `ClaimChange` for every claim whose outcome differs between the sides' releases (run in
    the child processes `pythons` starts)."""
    claims = claims_of(articles)
    if not claims:
        return []
    runs: list[tuple[Env, list[Outcome]]] = []
    for side in (old, new):
        try:
            env = environment(side.pins, cache, pythons)
        except ReaderError as e:
            return [ClaimsUncomputed(status="unknown", side=side.label, what="the claims",
                                     where=e.location or Location(side.label), reason=e.message)]
        runs.append((env, run_claims([c.spec for c in claims], env, pins_digest(side.locks), cache,
                                     timeout, pythons, jobs)))
    (a_env, before), (b_env, after) = runs
    return [_change(c, a, b, a_env.label, b_env.label)
            for c, a, b in zip(claims, before, after, strict=True) if a.behaviour() != b.behaviour()]


def _said(o: Outcome, index: int) -> str:
    if index < len(o.examples):
        return o.examples[index].got.rstrip("\n")
    return o.error or "(did not run)"


def _change(c: TrackClaim, a: Outcome, b: Outcome, old: str, new: str) -> ClaimChange:
    pairs = list(zip(a.examples, b.examples, strict=False))
    index = next((i for i, (x, y) in enumerate(pairs) if (x.source, x.got) != (y.source, y.got)),
                 len(pairs))
    example = (a.examples or b.examples)[min(index, len(a.examples or b.examples) - 1)] \
        if (a.examples or b.examples) else None
    line = (c.claim.where.line or 1) + (example.line if example else 0)
    source = example.source.strip().replace("\n", " ") if example else "(setup)"
    return ClaimChange(status="changed", note=c.owner, where=Location(c.claim.where.path, line),
                       source=source, old=_said(a, index), new=_said(b, index), old_label=old,
                       new_label=new)
