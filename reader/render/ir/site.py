"""The site's lowered views: which pages show lowered modules (the labs' `lowered.json`, a page per
canonical kernel under `ir/`), the pinned files whose rules emitted their ops, and coverage.

The source pages of the files holding lowering rules say which views hold ops their rules
emitted, so they are rendered with the labs' pages, once the labs' artifacts are known (their
page keys hold that list).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from markupsafe import Markup

from reader.annotations import Article
from reader.cache import Cache
from reader.corpus import Corpus
from reader.errors import Location
from reader.extract import Index
from reader.extract.index import LINES, REFS, SCAN, USES, USES_OF
from reader.extract.providers import RULES, load_rules
from reader.labs import LabArtifacts, LabInfo
from reader.model import SourceFile
from reader.providers import Provider, how, pickled, provide
from reader.render.code.annotated import page_markdown, with_prose
from reader.render.common.model import Page, TitledPage
from reader.render.common.urls import lab_page
from reader.render.ir.lowered import LOWERED, FileKey, Lowered, Rules, coverage, parse_lowered
from reader.render.ir.view import IrSite, ProjectFile, render_lowered

CANONICAL = "canonical"
"""The artifact run's pseudo-lab whose files are the canonical kernels' modules (`<kernel>.json`)."""
CANONICAL_FILES = ("jax/experimental/pallas/ops/tpu/flash_attention.py",)
"""A pinned file the canonical run needs: a project without it (a test's) does not run it."""
KERNEL_FILES = frozenset({
    "jax/experimental/pallas/ops/tpu/flash_attention.py",
    "jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_kernel.py",
    "tokamax/_src/ops/attention/pallas_mosaic_gpu_kernel_sm90.py"})
"""The files of the canonical kernels (reader/ir/canonical.py): their pages link the kernels'
`ir/` pages, so they wait for the artifacts like the rules' files. (Another file holding most of
a canonical kernel's ops gets its link only when the artifacts were cached at the build's start.)"""


def ir_page(kernel: str) -> str:
    return f"ir/{kernel}.md"


class PageDigest(NamedTuple):
    """A canonical kernel's page and the digest of its lowered JSON."""

    page: str
    digest: str


class ViewsOfFile(NamedTuple):
    """The IR views a source page links: those holding ops its file's rules emitted, and the
    canonical kernels' pages whose kernel it holds."""

    emitted: tuple[TitledPage, ...]
    kernels: tuple[TitledPage, ...]


@dataclass(frozen=True)
class IrSummary:
    """What the site shows of the views besides their pages."""

    emitted: dict[str, tuple[TitledPage, ...]]
    """Pinned path -> the views holding ops its rules emitted."""
    kernels: dict[str, tuple[TitledPage, ...]]
    """Pinned path -> the canonical pages whose kernel it holds (most of their located ops)."""
    coverage: tuple[str, ...]
    """`IrPages.coverage`'s lines."""
    pages: tuple[PageDigest, ...]
    """Each canonical kernel's page."""
    reads: dict[str, tuple[str, ...]]
    """Page -> the project files besides its own that its modules locate ops in (another lab's
    kernel, as autotuned_op runs flash_attention's): the labs' texts it shows."""


@dataclass(frozen=True)
class View:
    """A page's lowered modules: the page, its title, where the JSON came from."""

    page: str
    title: str
    lowered: Lowered
    own: str
    """The project file the page shows as its own ('' for a canonical kernel's page)."""


@dataclass(frozen=True)
class Summarised:
    """What the IR views' summary reads: the pinned blobs (the rule tables, the kernels' files),
    each view's page, title, whether it is a lab's own and its lowered JSON's digest, and the labs'
    names and paths; the producer's way to them: the views parsed (`IrPages`)."""

    corpus: Corpus | None
    views: tuple[tuple[str, str, str, str], ...]
    labs: tuple[tuple[str, str], ...]
    site: IrPages | None = how()


def _summarised(inputs: Summarised) -> IrSummary:
    assert inputs.site is not None
    return inputs.site._summary([digest for _, _, _, digest in inputs.views])


SUMMARY: Provider[Summarised, IrSummary] = Provider("ir-summary", Summarised, _summarised, pickled(IrSummary),
                                                    (RULES, SCAN, REFS, USES, USES_OF, LINES))
"""What every build shows of the lowered views (`IrPages.summary`)."""


class IrPages:
    def __init__(self, corpus: Corpus, index: Index, files: Mapping[str, SourceFile],
                 labs: Mapping[str, LabInfo], results: Callable[[], Mapping[str, LabArtifacts]]):
        self.corpus, self.index, self.files, self.labs, self.results = corpus, index, files, labs, results

    @cached_property
    def rules(self) -> Rules:
        return Rules(load_rules(self.corpus, self.index))

    @cached_property
    def rule_files(self) -> frozenset[str]:
        """The pinned files holding a lowering rule: their pages wait for the labs' artifacts."""
        return frozenset(e.rule.path for t in self.rules.tables for e in t.entries if e.rule.path)

    @cached_property
    def deferred(self) -> frozenset[str]:
        """The source pages rendered once the artifacts are in: the rules' and kernels' files."""
        return self.rule_files | KERNEL_FILES

    @cached_property
    def site(self) -> IrSite:
        return IrSite(self.rules, self._pinned, self._project)

    def _project(self, path: str) -> ProjectFile | None:
        """A lab's file (another lab's kernel, as autotuned_op runs flash_attention's) and its page."""
        lab = next((lab for lab in self.labs.values() if lab.path == path), None)
        return ProjectFile(lab.text, lab_page(lab.name)) if lab is not None else None

    def _pinned(self, pin: str, path: str) -> SourceFile | None:
        f = self.files.get(path)
        return f if f is not None and f.pin == pin else None

    @cached_property
    def _sources(self) -> list[tuple[str, str, str, bytes, Location]]:
        """(page, title, own file, lowered JSON, where it came from) of every view."""
        ready, out = self.results(), []
        for name, lab in self.labs.items():
            data = next((a.data for a in ready.get(name, LabArtifacts()).files if a.name == LOWERED), None)
            if data is not None:
                out.append((lab_page(name), lab.heading, lab.path, data, Location(lab.path)))
        for a in ready.get(CANONICAL, LabArtifacts()).files:
            kernel = a.name.removesuffix(".json")
            out.append((ir_page(kernel), f"{kernel} lowered", "", a.data, Location(f"canonical/{a.name}")))
        return out

    @cached_property
    def views(self) -> list[View]:
        """Every page's lowered modules, once the artifacts are in."""
        return [View(page, title, parse_lowered(data, where), own)
                for page, title, own, data, where in self._sources]

    @cached_property
    def summary(self) -> IrSummary:
        """What every build shows of the views (`IrSummary`), read back from the cache while the
        views and the pinned sources are unchanged: the modules are parsed only to render them."""
        digests = [hashlib.sha1(data).hexdigest() for _, _, _, data, _ in self._sources]
        cache = self.corpus.cache if self.corpus is not None else None
        return provide(SUMMARY, Summarised(
            self.corpus, tuple((page, title, own, d) for (page, title, own, _, _), d in zip(self._sources, digests, strict=True)),
            tuple(sorted((lab.name, lab.path) for lab in self.labs.values())), self), cache)

    def _summary(self, digests: Sequence[str]) -> IrSummary:
        return IrSummary(
            self._emitted(), self._kernels(), tuple(self._coverage()),
            tuple(PageDigest(v.page, d) for v, d in zip(self.views, digests, strict=True) if not v.own),
            {v.page: self._reads(v) for v in self.views})

    @property
    def emitted(self) -> dict[str, tuple[TitledPage, ...]]:
        """Pinned path -> the views holding ops its rules emitted."""
        return self.summary.emitted

    @property
    def kernels(self) -> dict[str, tuple[TitledPage, ...]]:
        """Pinned path -> the canonical pages whose kernel it holds (most of their located ops)."""
        return self.summary.kernels

    @staticmethod
    def _reads(view: View) -> tuple[str, ...]:
        files = {op.loc.file for m in view.lowered.modules for op in m.ops if op.loc and not op.loc.pin}
        return tuple(sorted(files - {view.own}))

    def _emitted(self) -> dict[str, tuple[TitledPage, ...]]:
        out: dict[str, set[TitledPage]] = defaultdict(set)
        for v in self.views:
            for m in v.lowered.modules:
                for op in m.ops:
                    e = self.rules.emitter(m, op.primitive)
                    if e is not None and e.path:
                        out[e.path].add(TitledPage(v.page, v.title))
        return {path: tuple(sorted(pages)) for path, pages in out.items()}

    def _kernels(self) -> dict[str, tuple[TitledPage, ...]]:
        out: dict[str, set[TitledPage]] = defaultdict(set)
        for v in self.views:
            if v.own:
                continue
            files = [op.loc.file for m in v.lowered.modules for op in m.ops if op.loc and op.loc.pin]
            if files:
                out[max(set(files), key=files.count)].add(TitledPage(v.page, v.title))
        return {path: tuple(sorted(pages)) for path, pages in out.items()}

    def labs_digest(self, page: str) -> str:
        """A hash of the labs' files that the page's lowered view shows besides its own
        (`IrSummary.reads`): rewording one lab's docstring renders the pages showing its file only."""
        reads = set(self.summary.reads.get(page, ()))
        return hashlib.sha1(repr(sorted((lab.path, lab.text) for lab in self.labs.values()
                                        if lab.path in reads)).encode()).hexdigest()

    def reads_kernel(self, article: Article) -> bool:
        """Whether an article reads a canonical kernel's file (its page links the kernel's view)."""
        return any(r.path in KERNEL_FILES for r in article.reads)

    def source_inputs(self, path: str) -> ViewsOfFile:
        """What a source page shows of the views: `emitted` and `kernels` on its file."""
        return ViewsOfFile(self.emitted.get(path, ()), self.kernels.get(path, ()))

    def render(self, page: str, cache: Cache | None) -> Page:
        v = next(v for v in self.views if v.page == page)
        view = render_lowered(v.lowered, page, self.rules, self.site.file_of({}, cache))
        html = Markup('<div id="rd-lowered">') + view.html + Markup("</div>")
        intro = (f"<p>A pinned kernel lowered on a host without an accelerator (jax {v.lowered.jax}): "
                 "each op beside the kernel line it comes from, and linked to the lowering rule "
                 "that emitted it.</p>")
        return Page(page, v.title, page_markdown(v.title, ["toc"]), with_prose(str(html), intro),
                    view.parts)

    def coverage(self) -> list[str]:
        """One line per module: `page module: located/ops, linked/ops; what lacks a location or rule`."""
        return list(self.summary.coverage)

    def _coverage(self) -> Iterator[str]:
        shown = {FileKey("", lab.path) for lab in self.labs.values()}
        for v in self.views:
            for m in v.lowered.modules:
                if m.error:
                    yield f"{v.page} {m.id}: refused ({m.error[:100]})"
                    continue
                keys = {op.loc.key for op in m.ops if op.loc and op.loc.pin and self._pinned(*op.loc.key)}
                yield f"{v.page} {m.id}: {coverage(m, self.rules, shown | keys).line()}"


def wanted(corpus: Corpus) -> bool:
    """Whether the canonical kernels are lowered for this project (it pins their files)."""
    return all(corpus.pin_of(p) is not None and corpus.has(corpus.pin_of(p) or "", p) for p in CANONICAL_FILES)


def canonical_failure(ready: Mapping[str, LabArtifacts]) -> Sequence[str]:
    """The canonical run's failure as a build warning (its pages are then missing)."""
    r = ready.get(CANONICAL)
    return [f"the canonical kernels could not be lowered: {r.error}"] if r is not None and r.error else []
