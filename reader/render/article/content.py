"""The authored content as pages see it: articles from annotations/ with their notes at the pins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reader.annotations import Article
from reader.errors import InputError
from reader.extract import Index
from reader.model import module_of
from reader.render.article.page import ArticleDoc, ReadView, SectionText
from reader.render.code.view import LineSpan
from reader.render.common.model import NoteView, SourceDoc, TitledPage


def article_doc(article: Article, notes: Sequence[NoteView], docs: Mapping[str, SourceDoc],
                index: Index, labs: Mapping[str, TitledPage], commit: str,
                checked: str = "") -> ArticleDoc:
    """What the article's page shows: its reads (and any other file its notes are on), its labs."""
    reads = [_read_view(spec.path, spec.symbols, spec.where, docs, index) for spec in article.reads]
    shown = {r.doc.path for r in reads}
    for note in notes:
        if note.path not in shown and note.path in docs and note.start is not None:
            spans = tuple(LineSpan(n.start, n.end if n.end is not None else n.start) for n in notes
                          if n.path == note.path and n.start is not None)
            reads.append(ReadView(docs[note.path], spans))
            shown.add(note.path)
    return ArticleDoc(article.slug, article.title, article.phase, article.summary, article.intro,
                      tuple(SectionText(s.title, s.body, s.claim.text if s.claim else "") for s in article.sections),
                      article.outro, tuple(reads), tuple(notes),
                      tuple(labs[k] for k in article.kernels if k in labs), commit,
                      article.claim_setup.text if article.claim_setup else "", checked)


def _read_view(path: str, symbols: Sequence[str], where, docs: Mapping[str, SourceDoc],
               index: Index) -> ReadView:
    if path not in docs:
        raise InputError(f"the page reads {path!r}, which is not a fetched pinned file", where,
                         "run 'reader check' for the details")
    spans: list[LineSpan] = []
    for name in symbols:
        symbol = index.symbol(module_of(path), name)
        if symbol is None:
            raise InputError(f"symbol {name!r} not found in {path}", where, "run 'reader check'")
        spans.append(LineSpan(symbol.span.start, symbol.span.end))
    return ReadView(docs[path], tuple(spans), tuple(symbols))
