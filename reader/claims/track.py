"""The track's claims: every note's and section's example with its page's setup, and what a
failing one means for `reader check --run` (a finding at the example's YAML line)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from reader.annotations.model import Article, Claim, Problem, Severity
from reader.cache import Cache
from reader.claims.env import Pythons, environment, label
from reader.claims.run import Outcome, Spec, kept, pins_digest, run_claims
from reader.corpus import Project
from reader.errors import Location


@dataclass(frozen=True)
class TrackClaim:
    """A claim where the track holds it."""

    owner: str
    """The note's id, or `<slug>: section 'title'`."""
    claim: Claim
    setup: str

    @property
    def spec(self) -> Spec:
        return Spec(self.owner, self.setup, self.claim.text)


def claims_of(articles: Sequence[Article]) -> list[TrackClaim]:
    """Every claim of the track, page by page, sections before notes."""
    out = []
    for a in articles:
        setup = a.claim_setup.text if a.claim_setup else ""
        out += [TrackClaim(f"{a.slug}: section {s.title!r}", s.claim, setup)
                for s in a.sections if s.claim]
        out += [TrackClaim(n.id, n.claim, setup) for n in a.notes if n.claim]
    return out


def _line(claim: Claim, offset: int) -> Location:
    return Location(claim.where.path, (claim.where.line or 1) + offset)


def _short(text: str, limit: int = 300) -> str:
    text = text.rstrip("\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def failure(c: TrackClaim, outcome: Outcome, label: str) -> Problem | None:
    """The finding a failed claim makes, at its first failing example's line (None if it passed)."""
    if outcome.ok:
        return None
    bad = outcome.first_failure()
    hint = "run its lines at the pins, then fix the text or the claim"
    if bad is None:
        return Problem(c.claim.where, f"the claim of {c.owner} does not run at {label}: "
                                      f"{outcome.error or 'no example ran'}", hint,
                       Severity.FINDING, note=c.owner)
    source = bad.source.strip().replace("\n", " ")
    return Problem(_line(c.claim, bad.line),
                   f"the claim of {c.owner} fails at {label}: >>> {_short(source, 120)}: "
                   f"expected {_short(bad.want)!r}, got {_short(bad.got)!r}", hint,
                   Severity.FINDING, note=c.owner)


class ClaimResult(NamedTuple):
    """A claim of the track and what running it gave."""

    claim: TrackClaim
    outcome: Outcome


@dataclass(frozen=True)
class Checked:
    """What `reader check --run` found: each claim's outcome, and how many came from the cache."""

    label: str
    results: tuple[ClaimResult, ...]
    ran: int
    seconds: float

    def problems(self) -> list[Problem]:
        return [p for c, o in self.results if (p := failure(c, o, self.label)) is not None]

    def summary(self) -> str:
        failed = sum(1 for _c, o in self.results if not o.ok)
        n = len(self.results)
        return (f"reader check --run: {n} claim{'s' if n != 1 else ''} at {self.label}: "
                f"{n - failed} passed, {failed} failed ({self.ran} run in {self.seconds:.1f} s, "
                f"{n - self.ran} from the cache)")


def run_track(articles: Sequence[Article], project: Project, cache: Cache, timeout: float,
              jobs: int, pythons: Pythons) -> Checked:
    """Every claim of the track run at the project's pins (from the cache when it can; else in the
    child processes `pythons` starts)."""
    started = time.monotonic()
    claims = claims_of(articles)
    if not claims:
        return Checked(label(project.pins), (), 0, 0.0)
    env = environment(project.pins, cache, pythons)
    digest = pins_digest(project.locks)
    specs = [c.spec for c in claims]
    misses = sum(1 for s in dict.fromkeys(specs) if kept(s, env, digest, cache) is None)
    outcomes = run_claims(specs, env, digest, cache, timeout, pythons, jobs)
    return Checked(env.label, tuple(map(ClaimResult._make, zip(claims, outcomes, strict=True))), misses,
                   time.monotonic() - started)
