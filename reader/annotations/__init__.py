"""Annotations: the note format, loading with YAML lines, anchoring to pinned code, check, accept.

The API later stages use:

    articles = load_articles(root)                 # list[Article], raises InputError if invalid
    resolved = resolve(article, corpus)            # tuple[ResolvedNote, ...] (or one Note)
    anchor = resolve_text(note, text)              # pure: run it on old and new text to compare
"""

from reader.annotations.anchor import fingerprint, resolve_text
from reader.annotations.load import load_articles
from reader.annotations.model import (
    Anchor,
    Article,
    Note,
    Quote,
    ReadSpec,
    ResolvedNote,
    Section,
    Status,
)
from reader.annotations.resolve import resolve

__all__ = ["Anchor", "Article", "Note", "Quote", "ReadSpec", "ResolvedNote", "Section", "Status",
           "fingerprint", "load_articles", "resolve", "resolve_text"]
