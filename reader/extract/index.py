"""The corpus index: where each pinned module lives, its scan (cached by blob), its references
and the where-used lists; name resolution itself is `names.Resolver`."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from reader.cache import Cache
from reader.corpus import Corpus, PinnedPath
from reader.errors import InputError, Location
from reader.extract.names import Resolver
from reader.extract.parse import located, no_gc, parse_ast
from reader.extract.references import Use, references_of, uses_by_target
from reader.extract.scan import FileSummary, summarize
from reader.model import QualName, Reference, Symbol, module_of
from reader.progress import counted
from reader.providers import (
    Blob,
    Keyed,
    Provider,
    as_json,
    how,
    is_kept,
    keep,
    kept,
    provide,
    running_cache,
)
from reader.workers import Workers

SCAN_VERSION = "3"
"""Bump when `FileSummary`'s JSON changes (2: each symbol's `Head`, for the hover cards; 3: the
outline's signature and listing in each `Head`, the module's docstring line)."""


@dataclass(frozen=True)
class Definition:
    """Where a definition lives: its pin, path and symbol (None for a whole module)."""

    pin: str
    path: str
    symbol: Symbol | None


class Place(NamedTuple):
    """A definition's pinned path and line (None: the module itself)."""

    path: str
    line: int | None


class Index(Resolver):
    """Every pinned module's summary and where it lives; names resolved across them (`Resolver`),
    each file's references and the corpus's where-used lists."""

    def __init__(self, summaries: Mapping[str, FileSummary], files: dict[str, PinnedPath],
                 store: CorpusStore | None = None):
        super().__init__(summaries)
        self.files = files
        """module -> its pinned file."""
        self._refs: dict[str, list[Reference]] = {}
        self._store = store
        self._uses_of: dict[str, dict[str, list[Use]]] = {}
        self._lines: dict[str, dict[str, int]] | None = None

    def loaded_summary(self, module: str) -> FileSummary | None:
        """The module's summary when it is in memory already (scanned by this build), else None."""
        loaded = self.summaries.loaded if isinstance(self.summaries, _Summaries) else self.summaries
        return loaded.get(module)

    def definition_of(self, module: str, qualname: str) -> Definition | None:
        """(pin, path, Symbol) of `module`'s `qualname`; symbol None for `qualname` ""."""
        if module not in self.files:
            return None
        pin, path = self.files[module]
        if not qualname:
            return Definition(pin, path, None)
        sym = self.symbol(module, qualname)
        return Definition(pin, path, sym) if sym else None

    def defined_at(self, module: str, qualname: str) -> Place | None:
        """Where `definition_of(module, qualname)` is: its path, and its symbol's line (None for
        the module, `qualname` ""). Read from the corpus's table of lines (`LINES_KIND`) when
        the module's scan is not in memory and the table is kept: a page linking a definition
        loads no other module's scan."""
        where = self.files.get(module)
        if where is None:
            return None
        if not qualname:
            return Place(where.path, None)
        if module not in self._symbols and self.loaded_summary(module) is None and self._store is not None:
            if self._lines is None:
                self._lines = self._store.load_lines() or {}
            lines = self._lines.get(module)
            if lines is not None:
                line = lines.get(qualname)
                return Place(where.path, line) if line is not None else None
        sym = self.symbol(module, qualname)
        return Place(where.path, sym.line) if sym is not None else None

    # references ------------------------------------------------------------------
    def references_of(self, fs: FileSummary) -> list[Reference]:
        """The references of a scanned file (a pinned one or any other, e.g. a lab)."""
        return references_of(self, fs)

    def references(self, pin: str, path: str) -> list[Reference]:
        """Every identifier occurrence of a pinned file that resolves to a corpus definition."""
        module = module_of(path)
        if self.files.get(module) != (pin, path):
            raise InputError(f"{path!r} is not an indexed .py file of pin {pin!r}", Location(path),
                             "name a file that `reader fetch --status` lists")
        if module not in self._refs:
            self._refs[module] = self.references_of(self.summaries[module]) if self._store is None \
                else provide(REFS, Share(self._store.corpus, module, self), self._store.cache)
        return self._refs[module]

    def references_in(self, text: str, path: str, blob: str = "") -> list[Reference]:
        """References of code outside the pins (a lab in `kernels/`, an older edition's file),
        resolved against the corpus; `blob`: the text's, whose scan the cache may hold (an older
        edition's build scanned its files)."""
        module = module_of(path)
        data = kept(SCAN, Scan(module, path.endswith("__init__.py"), Blob(blob, lambda: text)),
                    self._store.cache) if blob and self._store is not None else None
        summary = FileSummary.from_json(data) if data is not None else \
            summarize(text, module, path.endswith("__init__.py"), path)
        return self.references_of(summary)

    @cached_property
    def _uses(self) -> dict[QualName, list[Use]]:
        if self._store is None:
            return _where_used(Share(None, "", self))
        found = self._store.load_uses()
        if found is None:
            found = provide(USES, Share(self._store.corpus, "", self), self._store.cache)
            self._store.save_shares(found, self.files)
            # every module's scan is in memory now (its references needed it)
            keep(LINES, Share(self._store.corpus), _lines(Share(None, "", self)), self._store.cache)
        return found

    def where_used(self, module: str, qualname: str) -> list[Use]:
        """Every place in the corpus that references `module`'s `qualname` ("" for the module):
        from the module's share of the lists alone while the whole is not loaded (a warm build
        rendering a page or two; `where_used("", "")` loads the whole)."""
        if "_uses" not in self.__dict__ and self._store is not None and module:
            share = self._uses_of.get(module)
            if share is None:
                share = self._store.load_uses_of(module)
            if share is not None:
                self._uses_of[module] = share
                return share.get(qualname, [])
        return self._uses.get(QualName(module, qualname), [])


def index_from_sources(sources: dict[str, str], pin: str = "src") -> Index:
    """An index over in-memory files (path -> text), e.g. small fixtures; no cache involved."""
    summaries = {module_of(p): summarize(t, module_of(p), p.endswith("__init__.py"), located(pin, p))
                 for p, t in sources.items()}
    return Index(summaries, {module_of(p): PinnedPath(pin, p) for p in sources})


Beside = Callable[[str, str, ast.Module], object]
"""What else a scan computes from a file's tree while it has it: (text, path, tree) -> JSON data,
kept in the cache by the file's blob (a page's scopes: `render.code.scopes.scope_data`)."""


def _scan_job(job: tuple[str, str, bool, str]) -> dict:
    """One file's summary as JSON; `job` is (text, module, is_package, `pin:path` for errors)."""
    text, module, is_package, where = job
    with no_gc():  # a tree and its summary: a million objects, no cycles
        return summarize(text, module, is_package, where).to_json()


def _scan_beside(job: tuple[str, str, bool, str, Beside]) -> tuple[dict, object]:
    """`_scan_job`, and `beside`'s data from the same tree."""
    text, module, is_package, where, beside = job
    with no_gc():
        tree = parse_ast(text, where)
        return (summarize(text, module, is_package, where, tree).to_json(),
                beside(text, where.split(":", 1)[-1], tree))


@dataclass(frozen=True)
class Scan:
    """What a file's scan reads: its module, whether it is a package's `__init__`, its text (by
    blob); `where` (`pin:path`) only names it in an error."""

    module: str
    is_package: bool
    text: Blob
    where: str = how("")
    version: str = SCAN_VERSION


def _scan(inputs: Scan) -> dict:
    return _scan_job((inputs.text.text, inputs.module, inputs.is_package, inputs.where or inputs.module))


SCAN: Provider[Scan, dict] = Provider("scan", Scan, _scan, as_json(dict))
"""A file's `FileSummary` as JSON (`scan.summarize`)."""


def _scan_of(corpus: Corpus, module: str, pin: str, path: str) -> Scan:
    return Scan(module, path.endswith("__init__.py"), Blob(corpus.blob(pin, path), lambda: corpus.read_text(pin, path)),
                located(pin, path))


@dataclass(frozen=True)
class Share:
    """What a result resolving names across the corpus reads: every pinned blob (`corpus`), and
    the module whose share it is ("": the whole); `index` is the corpus's, the producer's way in."""

    corpus: Keyed | None
    module: str = ""
    index: Index | None = how()


def _references(inputs: Share) -> list[Reference]:
    index = inputs.index
    assert index is not None
    return index.references_of(index.summaries[inputs.module])


REFS: Provider[Share, list[Reference]] = Provider(
    "refs", Share, _references, as_json(list, lambda refs: [
        [r.line, r.col, r.length, r.target_module, r.target_qualname] for r in refs],
        lambda data: [Reference(*r) for r in data]), (SCAN,))
"""One file's resolved references."""


def _where_used(inputs: Share) -> dict[QualName, list[Use]]:
    index = inputs.index
    assert index is not None
    return uses_by_target(sorted(index.files.values()), index.references)


def _use_rows(uses: list[Use]) -> list[list[object]]:
    return [[u.pin, u.path, u.line, u.col, u.length] for u in uses]


USES: Provider[Share, dict[QualName, list[Use]]] = Provider(
    "uses", Share, _where_used, as_json(
        list, lambda uses: [[module, qualname, _use_rows(found)] for (module, qualname), found in uses.items()],
        lambda data: {QualName(module, qualname): [Use(*u) for u in uses] for module, qualname, uses in data}),
    (SCAN, REFS))
"""The corpus's where-used lists (every file's references)."""


def _uses_of(inputs: Share) -> dict[str, list[Use]]:
    uses = provide(USES, Share(inputs.corpus, "", inputs.index), running_cache())
    return {qualname: found for (module, qualname), found in uses.items() if module == inputs.module}


USES_OF: Provider[Share, dict[str, list[Use]]] = Provider(
    "uses-of", Share, _uses_of, as_json(dict, lambda share: {q: _use_rows(found) for q, found in share.items()},
                                        lambda data: {q: [Use(*u) for u in found] for q, found in data.items()}),
    (SCAN, REFS, USES))
"""One module's share of the where-used lists (a page of it reads that alone)."""


def _lines(inputs: Share) -> dict[str, dict[str, int]]:
    index = inputs.index
    assert index is not None
    return {m: {s.qualname: s.line for s in index.summaries[m].symbols} for m in index.files}


LINES: Provider[Share, dict[str, dict[str, int]]] = Provider("def-lines", Share, _lines, as_json(dict), (SCAN,))
"""Every module's definitions' lines (module -> qualname -> line): a page linking a definition
finds its line without reading the module's scan."""


def build_index(corpus: Corpus, cache: Cache | None = None, workers: Workers | None = None,
                pool: Executor | None = None) -> Index:
    """Scan every pinned `.py` file (a cache hit per unchanged blob) and index them; the scans
    run on `pool` when given (else on `workers`, default two processes)."""
    return start_index(corpus, cache, workers, pool)()


def lazy_index(corpus: Corpus, cache: Cache | None = None) -> Index:
    """The index with each file scanned (or read from the cache) when a lookup first needs it: for
    a reader of a few modules, as the rule tables of a release read about half of its files."""
    cache = cache or corpus.cache
    files = {module_of(f.path): f for f in corpus.all_files() if f.path.endswith(".py")}
    return Index(_Summaries(corpus, cache, files), files, CorpusStore(cache, corpus))


def start_index(corpus: Corpus, cache: Cache | None = None, workers: Workers | None = None,
                pool: Executor | None = None,
                beside: tuple[Provider[Any, Any], Beside] | None = None) -> Callable[[], Index]:
    """`build_index` in two steps: the scans start on `pool` now, and the returned function
    waits for them and gives the Index (the caller works in between). `beside`: (cache kind,
    function) computed from each scanned file's tree too, kept by the file's blob."""
    cache = cache or corpus.cache
    files = {module_of(f.path): f for f in corpus.all_files() if f.path.endswith(".py")}
    summaries = _Summaries(corpus, cache, files)
    missing: list[tuple[str, str, str, Scan]] = []
    for module, (pin, path) in files.items():
        scan_of = _scan_of(corpus, module, pin, path)
        if not is_kept(SCAN, scan_of, cache):
            missing.append((module, pin, path, scan_of))
    jobs = [(corpus.read_text(pin, path), module, path.endswith("__init__.py"), located(pin, path),
             *([beside[1]] if beside else []))
            for module, pin, path, _ in missing]
    scan: Callable[[Any], Any] = _scan_beside if beside else _scan_job
    started = pool.map(scan, jobs, chunksize=4) if pool is not None and len(jobs) >= 8 else None

    def finish() -> Index:
        if started is not None:
            results = list(counted("scanning files", started, len(jobs)))
        else:
            results = (workers or Workers(2)).map(scan, jobs, "scanning files", chunk=4, least=8)
        with no_gc():  # every summary read stays: the collector would rescan them all
            for (module, _pin, path, scan_of), result in zip(missing, results, strict=True):
                data = result
                if beside:
                    data, also = result
                    keep(beside[0], beside[0].inputs(scan_of.text, path), also, cache)
                keep(SCAN, scan_of, data, cache)
                summaries.loaded[module] = FileSummary.from_json(data)
        return Index(summaries, files, CorpusStore(cache, corpus))
    return finish


@dataclass(frozen=True)
class CorpusStore:
    """Where the results that resolve names across the whole corpus are kept (`REFS`, `USES`,
    `USES_OF`, `LINES`): the cache, and the corpus they are keyed by."""

    cache: Cache
    corpus: Keyed

    def load_uses(self) -> dict[QualName, list[Use]] | None:
        return kept(USES, Share(self.corpus), self.cache)

    def save_shares(self, uses: dict[QualName, list[Use]], modules: Iterable[str]) -> None:
        """Each of `modules`' share of the lists (`load_uses_of`)."""
        shares: dict[str, dict[str, list[Use]]] = {module: {} for module in modules}
        for (module, qualname), found in uses.items():
            if module in shares:
                shares[module][qualname] = found
        for module, share in shares.items():
            keep(USES_OF, Share(self.corpus, module), share, self.cache)

    def load_uses_of(self, module: str) -> dict[str, list[Use]] | None:
        """`module`'s share of the lists (qualname -> its uses), or None when not kept."""
        return kept(USES_OF, Share(self.corpus, module), self.cache)

    def load_lines(self) -> dict[str, dict[str, int]] | None:
        return kept(LINES, Share(self.corpus), self.cache)


class _Summaries(Mapping[str, FileSummary]):
    """Every module's FileSummary, read from the cache when first asked for: a build that shows
    only a few files again resolves names in a few modules, not in all of them."""

    def __init__(self, corpus: Corpus, cache: Cache, files: dict[str, PinnedPath]):
        self.corpus, self.cache, self.files = corpus, cache, files
        self.loaded: dict[str, FileSummary] = {}

    def __getitem__(self, module: str) -> FileSummary:
        found = self.loaded.get(module)
        if found is None:
            pin, path = self.files[module]
            # a scan removed since (a prune by another build) is made again
            data = provide(SCAN, _scan_of(self.corpus, module, pin, path), self.cache)
            found = self.loaded[module] = FileSummary.from_json(data)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, module: object) -> bool:
        return module in self.files
