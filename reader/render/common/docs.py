"""The pinned files as pages show them (`SourceDoc`): definitions with their uses in the corpus,
references linked; built when first asked for. The labs' uses of them (`lab_uses`, `labs_by_file`)
are the source pages' own inputs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from reader.corpus import Corpus
from reader.extract import Index
from reader.model import QualName, SourceFile, module_of
from reader.render.common.links import definitions, linked_refs, target_of
from reader.render.common.model import PageLink, SourceDoc, UseView
from reader.render.common.prose import SourceResolver
from reader.render.common.urls import source_page as source_uri


class Docs(Mapping[str, SourceDoc]):
    """Every pinned file's `SourceDoc` by path, each built when first asked for (a page read
    back from the cache needs none). No notes, no labs' uses: a page's own inputs."""

    def __init__(self, index: Index, corpus: Corpus, files: Sequence[SourceFile]):
        self.index, self.corpus = index, corpus
        self.files = {f.path: f for f in files}
        self._built: dict[str, SourceDoc] = {}
        self._lines: dict[str, list[str]] = {}

    def __getitem__(self, path: str) -> SourceDoc:
        doc = self._built.get(path)
        if doc is None:
            f = self.files[path]
            doc = source_doc(self.index, f, self.corpus.permalink(f.pin, f.path), {})
            self._built[path] = doc
        return doc

    def line(self, path: str, number: int) -> str:
        """Line `number` (1-based) of a pinned file; "" past its end."""
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = self.files[path].text.splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else ""

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, path: object) -> bool:
        return path in self.files

    def prepare(self) -> None:
        """Compute what every doc shares (the corpus's where-used lists) once."""
        self.index.where_used("", "")


def source_doc(index: Index, f: SourceFile, permalink: str,
               extra_uses: dict[QualName, list[UseView]]) -> SourceDoc:
    """A pinned file with its definitions, their uses, and its references resolved to pages."""
    module = module_of(f.path)
    summary = index.summaries.get(module)
    symbols = summary.symbols if summary is not None else ()
    heads = summary.heads if summary is not None else ()
    return SourceDoc(f.pin, f.path, f.blob, f.text, source_uri(f.path), permalink,
                     definitions=definitions(index, module, symbols, extra_uses, heads),
                     refs=linked_refs(index, index.references(f.pin, f.path)) if summary else (),
                     docstring=summary.doc if summary is not None else "")


def source_resolver(index: Index, docs: Mapping[str, SourceDoc]) -> SourceResolver:
    """`[[path::symbol]]` -> the definition's line on its source page (the page for `[[path]]`)."""

    def resolve_source(path: str, qualname: str) -> PageLink | None:
        if path not in docs:
            return None
        if not qualname:
            return PageLink(source_uri(path))
        return target_of(index, module_of(path), qualname)
    return resolve_source
