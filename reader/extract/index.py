"""The corpus index: module -> symbols and bindings, name resolution, references and where-used."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from functools import cached_property

from reader.cache import Cache
from reader.corpus import Corpus
from reader.errors import InputError, Location
from reader.extract.references import Definition, Target, Use, references_of, uses_by_target
from reader.extract.scan import Binding, FileSummary, summarize
from reader.model import Reference, Symbol, module_of

USES_KIND = "uses-v1"
"""Cache kind of the corpus's where-used lists, keyed by every pinned blob."""
REFS_KIND = "refs-v1"
"""Cache kind of one file's resolved references, keyed by every pinned blob and the module."""
SCAN_KIND = "scan-v1"
"""Cache kind of per-file summaries; bump it when `FileSummary` or the scanner changes."""


class Index:
    """Every pinned module's summary, and the resolution of names across them."""

    def __init__(self, summaries: Mapping[str, FileSummary], files: dict[str, tuple[str, str]],
                 store: CorpusStore | None = None):
        self.summaries = summaries
        """module -> its FileSummary (read from the cache when first asked for, see `build_index`)."""
        self.files = files
        """module -> (pin, path)."""
        self._prefixes = {m.rsplit(".", i)[0] for m in summaries for i in range(m.count(".") + 1)}
        self._symbols: dict[str, dict[str, Symbol]] = {}
        self._memo: dict[tuple[str, str, int], Target | None] = {}
        self._active: set[tuple[str, str]] = set()
        self._refs: dict[str, list[Reference]] = {}
        self._store = store

    def loaded_summary(self, module: str) -> FileSummary | None:
        """The module's summary when it is in memory already (scanned by this build), else None."""
        loaded = self.summaries.loaded if isinstance(self.summaries, _Summaries) else self.summaries
        return loaded.get(module)

    # definitions ---------------------------------------------------------------
    def symbol(self, module: str, qualname: str) -> Symbol | None:
        symbols = self._symbols.get(module)
        if symbols is None:
            fs = self.summaries.get(module)
            symbols = {s.qualname: s for s in fs.symbols} if fs is not None else {}
            self._symbols[module] = symbols
        return symbols.get(qualname)

    def definition_of(self, module: str, qualname: str) -> Definition | None:
        """(pin, path, Symbol) of `module`'s `qualname`; symbol None for `qualname` ""."""
        if module not in self.files:
            return None
        pin, path = self.files[module]
        if not qualname:
            return Definition(pin, path, None)
        sym = self.symbol(module, qualname)
        return Definition(pin, path, sym) if sym else None

    # resolution ------------------------------------------------------------------
    def resolve_name(self, module: str, name: str, line: int | None = None,
                     summary: FileSummary | None = None) -> Target | None:
        """What module-level `name` of `module` means at `line` (None: after the whole module ran)."""
        fs = summary or self.summaries.get(module)
        if fs is None:
            return None
        bindings = fs.bindings.get(name)
        if not bindings:
            for star in fs.stars:
                found = self.resolve_attr(Target("module", star), name)
                if found and found.kind != "external":
                    return found
            return None
        return self._binding_target(module, _pick(bindings, line))

    def resolve_attr(self, target: Target, attr: str) -> Target | None:
        """`target.attr`: a module's name or submodule, a class's member; None when unknown."""
        if target.kind == "external":
            return Target("external", f"{target.module}.{attr}")
        if target.kind == "def":
            sym = self.symbol(target.module, target.qualname)
            if sym is None or sym.kind != "class":
                return None
            return self.member(target.module, target.qualname, attr)
        found = self.resolve_name(target.module, attr) if target.module in self.summaries else None
        if found is not None:
            return found
        sub = f"{target.module}.{attr}"
        if sub in self._prefixes:
            return Target("module", sub)
        if target.module in self.summaries:
            return None
        return Target("external", sub)

    def resolve_dotted(self, module: str, dotted: str, line: int | None = None) -> Target | None:
        """A dotted name as read in `module` at `line` (`pallas_core.BlockSpec`)."""
        head, *rest = dotted.split(".")
        target = self.resolve_name(module, head, line)
        for attr in rest:
            if target is None:
                return None
            target = self.resolve_attr(target, attr)
        return target

    def resolve_module(self, dotted: str) -> Target | None:
        """An absolute dotted path (`jax.experimental.pallas.BlockSpec`) from the top."""
        head, *rest = dotted.split(".")
        target: Target | None = Target("module" if head in self._prefixes else "external", head)
        for attr in rest:
            if target is None:
                return None
            target = self.resolve_attr(target, attr)
        return target

    def member(self, module: str, cls: str, attr: str, depth: int = 0) -> Target | None:
        """`cls.attr` through the class's bases, while each base on the way is known."""
        if self.symbol(module, f"{cls}.{attr}"):
            return Target("def", module, f"{cls}.{attr}")
        fs = self.summaries.get(module)
        csym = self.symbol(module, cls)
        if fs is None or csym is None or depth > 20:
            return None
        for base in fs.bases.get(cls, ()):
            if base == "object":
                continue
            t = self.resolve_dotted(module, base, csym.line) if base else None
            if t is None or t.kind != "def":
                return None  # an unknown base may define `attr`: not unambiguous
            bsym = self.symbol(t.module, t.qualname)
            if bsym is None or bsym.kind != "class":
                return None
            found = self.member(t.module, t.qualname, attr, depth + 1)
            if found is not None:
                return found
        return None

    def _binding_target(self, module: str, b: Binding) -> Target | None:
        key = (module, b.name, b.line)
        if key in self._memo:
            return self._memo[key]
        if (module, b.name) in self._active:
            return None
        self._active.add((module, b.name))
        try:
            result = self._resolve_binding(module, b)
        finally:
            self._active.discard((module, b.name))
        self._memo[key] = result
        return result

    def _resolve_binding(self, module: str, b: Binding) -> Target | None:
        if b.kind == "def":
            return Target("def", module, b.name)
        if b.kind == "module":
            return Target("module" if b.module in self._prefixes else "external", b.module)
        if b.kind == "from":
            source = Target("module" if b.module in self._prefixes else "external", b.module)
            if self._unbound_while_importing(b.module, b.attr, module):
                return Target("module", f"{b.module}.{b.attr}")
            return self.resolve_attr(source, b.attr)
        return None

    def _unbound_while_importing(self, package: str, name: str, importer: str) -> bool:
        """Whether `from package import name`, run in `importer`, finds the submodule `name`
        because `package` binds `name` only after importing `importer` (a circular import)."""
        fs = self.summaries.get(package)
        if fs is None or f"{package}.{name}" not in self.summaries or name not in fs.bindings:
            return False
        first = fs.bindings[name][0].line
        return any(b.kind in ("from", "module") and b.line <= first and b.module == importer
                   for bs in fs.bindings.values() for b in bs)

    def linkable(self, target: Target | None) -> bool:
        """Whether `target` is a definition (or a module) inside the pinned corpus."""
        if target is None or target.module not in self.summaries:
            return False
        return target.kind == "module" or self.symbol(target.module, target.qualname) is not None

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
            found = self._store.load_refs(module) if self._store is not None else None
            if found is None:
                found = self.references_of(self.summaries[module])
                if self._store is not None:
                    self._store.save_refs(module, found)
            self._refs[module] = found
        return self._refs[module]

    def references_in(self, text: str, path: str) -> list[Reference]:
        """References of code outside the pins (a lab in `kernels/`), resolved against the corpus."""
        return self.references_of(summarize(text, module_of(path), path.endswith("__init__.py")))

    @cached_property
    def _uses(self) -> dict[tuple[str, str], list[Use]]:
        found = self._store.load_uses() if self._store is not None else None
        if found is None:
            found = uses_by_target(self)
            if self._store is not None:
                self._store.save_uses(found)
        return found

    def where_used(self, module: str, qualname: str) -> list[Use]:
        """Every place in the corpus that references `module`'s `qualname` ("" for the module)."""
        return self._uses.get((module, qualname), [])


def _pick(bindings: tuple[Binding, ...], line: int | None) -> Binding:
    """The binding in effect at `line` (the last one before it), or the module's last binding."""
    if line is not None:
        before = [b for b in bindings if b.line < line]
        if before:
            return before[-1]
    return bindings[-1]


def index_from_sources(sources: dict[str, str], pin: str = "src") -> Index:
    """An index over in-memory files (path -> text), e.g. small fixtures; no cache involved."""
    summaries = {module_of(p): summarize(t, module_of(p), p.endswith("__init__.py"))
                 for p, t in sources.items()}
    return Index(summaries, {module_of(p): (pin, p) for p in sources})


def _scan_job(job: tuple[str, str, bool]) -> dict:
    text, module, is_package = job
    return summarize(text, module, is_package).to_json()


def corpus_key(corpus: Corpus, kind: str) -> str:
    """A cache key for a result derived from the whole corpus: every pinned blob, and `kind`."""
    h = hashlib.sha1(kind.encode())
    for pin, path in corpus.all_files():
        h.update(f"\0{pin}\0{path}\0{corpus.blob(pin, path)}".encode())
    return h.hexdigest()


def _cache_key(blob: str, module: str) -> str:
    return hashlib.sha1(f"{module}\0{blob}".encode()).hexdigest()


def build_index(corpus: Corpus, cache: Cache | None = None, workers: int | None = None,
                pool: Executor | None = None) -> Index:
    """Scan every pinned `.py` file (a cache hit per unchanged blob) and index them; the scans
    run on `pool` when given (else on `workers` processes of their own)."""
    return start_index(corpus, cache, workers, pool)()


def start_index(corpus: Corpus, cache: Cache | None = None, workers: int | None = None,
                pool: Executor | None = None) -> Callable[[], Index]:
    """`build_index` in two steps: the scans start on `pool` now, and the returned function
    waits for them and gives the Index (the caller works in between)."""
    cache = cache or corpus.cache
    files = {module_of(path): (pin, path) for pin, path in corpus.all_files() if path.endswith(".py")}
    summaries = _Summaries(corpus, cache, files)
    missing: list[tuple[str, str, str, str]] = []
    for module, (pin, path) in files.items():
        key = _cache_key(corpus.blob(pin, path), module)
        if not cache.has(SCAN_KIND, key):
            missing.append((module, pin, path, key))
    jobs = [(corpus.read_text(pin, path), module, path.endswith("__init__.py"))
            for module, pin, path, _ in missing]
    started = pool.map(_scan_job, jobs, chunksize=4) if pool is not None and len(jobs) >= 8 else None

    def finish() -> Index:
        results = started if started is not None else _run(jobs, workers)
        for (module, _, _, key), data in zip(missing, results, strict=True):
            cache.put_json(SCAN_KIND, key, data)
            summaries.loaded[module] = FileSummary.from_json(data)
        return Index(summaries, files, CorpusStore(cache, corpus_key(corpus, USES_KIND)))
    return finish


@dataclass(frozen=True)
class CorpusStore:
    """Results that resolve names across the whole corpus, in the cache under the corpus's key:
    each file's references, and the where-used lists (which need every file's references)."""

    cache: Cache
    key: str

    def load_uses(self) -> dict[tuple[str, str], list[Use]] | None:
        data = self.cache.get_json(USES_KIND, self.key)
        if not isinstance(data, list):
            return None
        return {(module, qualname): [Use(*u) for u in uses] for module, qualname, uses in data}

    def save_uses(self, uses: dict[tuple[str, str], list[Use]]) -> None:
        self.cache.put_json(USES_KIND, self.key, [
            [module, qualname, [[u.pin, u.path, u.line, u.col, u.length] for u in found]]
            for (module, qualname), found in uses.items()])

    def _refs_key(self, module: str) -> str:
        return hashlib.sha1(f"{self.key}\0{module}".encode()).hexdigest()

    def load_refs(self, module: str) -> list[Reference] | None:
        data = self.cache.get_json(REFS_KIND, self._refs_key(module))
        return [Reference(*r) for r in data] if isinstance(data, list) else None

    def save_refs(self, module: str, refs: list[Reference]) -> None:
        self.cache.put_json(REFS_KIND, self._refs_key(module), [
            [r.line, r.col, r.length, r.target_module, r.target_qualname] for r in refs])


class _Summaries(Mapping[str, FileSummary]):
    """Every module's FileSummary, read from the cache when first asked for: a build that shows
    only a few files again resolves names in a few modules, not in all of them."""

    def __init__(self, corpus: Corpus, cache: Cache, files: dict[str, tuple[str, str]]):
        self.corpus, self.cache, self.files = corpus, cache, files
        self.loaded: dict[str, FileSummary] = {}

    def __getitem__(self, module: str) -> FileSummary:
        found = self.loaded.get(module)
        if found is None:
            pin, path = self.files[module]
            key = _cache_key(self.corpus.blob(pin, path), module)
            data = self.cache.get_json(SCAN_KIND, key)
            if data is None:  # removed since (a prune by another build): scan it again
                data = _scan_job((self.corpus.read_text(pin, path), module, path.endswith("__init__.py")))
                self.cache.put_json(SCAN_KIND, key, data)
            found = self.loaded[module] = FileSummary.from_json(data)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, module: object) -> bool:
        return module in self.files


def _run(jobs: list[tuple[str, str, bool]], workers: int | None) -> Iterable[dict]:
    workers = workers or min(2, os.cpu_count() or 1)
    if workers < 2 or len(jobs) < 8:
        return [_scan_job(j) for j in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_scan_job, jobs, chunksize=4))
