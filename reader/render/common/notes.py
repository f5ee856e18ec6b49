"""Notes as pages show them: each resolved note where it sits at its pin, with a link to its lines."""

from __future__ import annotations

from collections.abc import Sequence

from reader.annotations import Article, ResolvedNote
from reader.claims.env import label
from reader.corpus import Corpus
from reader.render.common.model import NoteView


def note_views(article: Article, resolved: Sequence[ResolvedNote], corpus: Corpus) -> tuple[NoteView, ...]:
    """Each note of `article` where it sits at the pin, with a GitHub link to its lines."""
    out = []
    for r in resolved:
        span = r.span
        permalink = corpus.permalink(r.pin, r.path, span.start, span.end) if span and r.pin else ""
        claim = r.note.claim
        out.append(NoteView(r.note.id, article.slug, article.title, r.path,
                            span.start if span else None, span.end if span else None,
                            r.status.value, r.note.body, permalink,
                            claim.text if claim else "",
                            article.claim_setup.text if claim and article.claim_setup else "",
                            label(corpus.project.pins) if claim else ""))
    return tuple(out)
