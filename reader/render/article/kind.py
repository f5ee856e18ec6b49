"""Article pages: an annotation file's prose, the code it reads and its notes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

from reader.annotations import Article
from reader.claims.env import label
from reader.render.article.content import article_doc
from reader.render.article.page import render_article
from reader.render.common.model import NoteView, Page, SourceDoc, TitledPage
from reader.render.common.urls import lab_page
from reader.render.kind import World

Lowered = tuple[TitledPage, ...]
"""The canonical kernels' pages whose kernel a file holds."""


class FileKernels(NamedTuple):
    """A file an article shows that holds a canonical kernel, with the kernel's pages."""

    path: str
    pages: Lowered


@dataclass(frozen=True)
class ArticleInputs:
    article: Article
    notes: tuple[NoteView, ...]
    commit: str
    """The commit of the pin its first read file is in ('' when it reads none)."""
    lowered: tuple[FileKernels, ...] = ()
    """The files it shows that hold a canonical kernel, with the kernel's pages."""


class ArticleKind:
    name = "article"

    def collect(self, world: World) -> World:
        return world

    def pages(self, world: World, artifacts: bool) -> Iterable[str]:
        """An article that reads a canonical kernel's file links the kernel's page: it waits for
        the artifacts."""
        ir = world.ir
        return [slug for slug, a in world.content.articles.items() if ir.reads_kernel(a) == artifacts]

    def inputs(self, world: World, name: str) -> ArticleInputs:
        content, ir = world.content, world.ir
        a, notes = content.articles[name], tuple(content.notes[name])
        shown = sorted({r.path for r in a.reads} | {n.path for n in notes})
        pin = world.corpus.pin_of(a.reads[0].path) if a.reads else None
        lowered = tuple(FileKernels(p, ir.kernels[p]) for p in shown if p in ir.kernels) if ir.reads_kernel(a) else ()
        # its margins show its own notes alone: another article's note on a file it shows is no input
        return ArticleInputs(a, notes, world.corpus.pins[pin].commit if pin else "", lowered)

    def render(self, world: World, inputs: ArticleInputs) -> Page:
        links = {n: TitledPage(lab_page(n), lab.heading) for n, lab in world.labs.by_name.items()}
        docs = _Shown(world.docs, dict(inputs.lowered))
        doc = article_doc(inputs.article, inputs.notes, docs, world.index, links, inputs.commit,
                          label(world.corpus.pins))
        return render_article(doc, world.cache, world.prose)

    def prose(self, world: World, inputs: ArticleInputs) -> Iterable[str]:
        return [text for text, _ in inputs.article.prose()]


class _Shown(Mapping[str, SourceDoc]):
    """The pinned files' docs with the kernels' pages an article's inputs give them."""

    def __init__(self, docs: Mapping[str, SourceDoc], lowered: Mapping[str, Lowered]):
        self.docs, self.lowered = docs, lowered

    def __getitem__(self, path: str) -> SourceDoc:
        doc = self.docs[path]
        return replace(doc, lowered=self.lowered[path]) if path in self.lowered else doc

    def __iter__(self) -> Iterator[str]:
        return iter(self.docs)

    def __len__(self) -> int:
        return len(self.docs)

    def __contains__(self, path: object) -> bool:
        return path in self.docs


ARTICLE = ArticleKind()
