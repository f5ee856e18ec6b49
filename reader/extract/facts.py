"""Computed facts for `{{fact:NAME}}`: flat dotted names -> numbers, text or lists, each with the
pinned file and line it comes from. `reader facts` lists them; `reader check` validates names.

This module is their catalogue and their run: the names (`NAMES`), then each group of facts from
its extractor (`rule_facts.py`, `structure_facts.py`, `tokamax_facts.py`, `tpu_facts.py`, the
sm90 barriers and the corpus's counts below), on two processes, a group whose extractor cannot read
the pins an `Unknown`.

Every name is documented in `NAMES` below (a test keeps the two in step): `{a|b}` is one of the
alternatives, `*` one dotted component, `**` the rest of the name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import libcst as cst

from reader.corpus import Corpus
from reader.errors import BuildError, Location
from reader.extract.fact import (
    ExtractError,
    Fact,
    Facts,
    Unknown,
)
from reader.extract.index import Index, build_index
from reader.extract.parse import ParseError
from reader.extract.rule_facts import rule_facts
from reader.extract.rules import rule_tables
from reader.extract.ruletable import RuleTable
from reader.extract.sm90_source import (
    ARG_SPECS_PATH,
    COMMON_PATH,
    MGPU_CORE_PATH,
    SM90_PATH,
    bound_name,
    source,
)
from reader.extract.structure_facts import structure_facts
from reader.extract.structures import structures
from reader.extract.tokamax_facts import hopper_facts, load_sm90_params, sm90_facts
from reader.extract.tpu_facts import load_tpu_facts
from reader.model import QualName, module_of
from reader.workers import Workers

SM90_MODULE = "tokamax._src.ops.attention.pallas_mosaic_gpu_kernel_sm90"
BARRIER = QualName("jax._src.pallas.mosaic_gpu.core", "Barrier")


class FactName(NamedTuple):
    """A pattern of fact names (`{a|b}` one of, `*` a component, `**` any) and what they are."""

    pattern: str
    what: str


NAMES: tuple[FactName, ...] = tuple(FactName(*n) for n in (
    # rule tables (rules.py)
    ("rules.tpu.{tc|sc_scalar|sc_vector}.count",
     "primitives with a rule for each TPU core type: TensorCore, SparseCore scalar and vector"),
    ("rules.tpu.union.count", "distinct TPU primitives over the three core types"),
    ("rules.tpu.union.names.count", "distinct names among them (two primitives may share one)"),
    ("rules.tpu.all_cores.{count|names}", "primitives with a rule on all three core types"),
    ("rules.triton.count", "primitives in the Triton table"),
    ("rules.mosaic_gpu.{lane_warpgroup|lane_warp|warpgroup_warpgroup|warpgroup_warp}.count",
     "primitives per Mosaic GPU (lowering semantics, primitive semantics) key"),
    ("rules.mosaic_gpu.union.count", "distinct Mosaic GPU primitives over the four keys"),
    ("rules.mosaic_gpu.union.names.count", "distinct names among them"),
    ("rules.{tpu|triton|mosaic_gpu}.registrations.{decorator|call|store|update}.count",
     "how a backend's final rules were registered"),
    ("rules.{tpu|triton|mosaic_gpu}.modules.{count|names}", "files registering a backend's rules"),
    ("rules.only.{tpu|triton|mosaic_gpu}.{count|names}",
     "primitive names only that backend lowers"),
    ("rules.all_backends.{count|names}", "primitive names all three backends lower"),
    ("rules.shared_names.{count|names}", "names that belong to two different primitives"),
    # pallas_call (structures.py)
    ("pallas_call.line", "the line of `def pallas_call`"),
    ("pallas_call.params.{count|names}", "its parameters"),
    ("pallas_call.params.keyword_only.count", "its keyword-only parameters"),
    ("pallas_call.rules.{count|kinds}", "rules registered for `pallas_call_p`, and their kinds"),
    ("pallas_call.rules.{impl|abstract_eval|jvp|transpose|batching|lowering|dce|typecheck|"
     "discharge}.count",
     "rules of that kind in the pinned source; 0 says none: `transpose` is 0, and at runtime "
     "that slot holds `HiPrimitive.transpose` (jax/_src/hijax.py, outside the pins), which "
     "asserts 'must override'"),
    ("pallas_call.rules.{impl|abstract_eval|jvp|batching|lowering|dce|typecheck|discharge}",
     "the rule function of that kind"),
    ("pallas_call.platforms.{count|names}", "the platforms its lowering rule dispatches to"),
    ("pallas_call.backends.{count|names}", "`CompilerParams` classes with a backend lowering"),
    # classes and enums (structures.py)
    ("{blockspec|gridspec|blockmapping|gridmapping|buffered|costestimate}.{line|methods.count}",
     "where the class of `core.py` is defined, how many methods it has"),
    ("{blockspec|gridspec|blockmapping|gridmapping|buffered|costestimate}.fields.{count|names}",
     "its (dataclass) fields"),
    ("{tpu|gpu}.{compilerparams|prefetchscalargridspec|blockspec}.{line|methods.count}",
     "the same for classes of `mosaic/core.py` (tpu) and `mosaic_gpu/core.py` (gpu)"),
    ("{tpu|gpu}.{compilerparams|prefetchscalargridspec|blockspec}.fields.{count|names}",
     "their fields"),
    ("memory_spaces.{core|tpu|gpu}.{count|names}", "members of each `MemorySpace` enum"),
    ("tpu.{core_types|semaphore_types|grid_dimension_semantics}.{count|names}",
     "members of `CoreType`, `SemaphoreType`, `GridDimensionSemantics` (mosaic/core.py)"),
    ("gpu.{semaphore_types|primitive_semantics}.{count|names}",
     "members of `SemaphoreType`, `PrimitiveSemantics` (mosaic_gpu/core.py)"),
    # the TPU pipeline (structures.py)
    ("pipeline.predicates.{count|names}", "the Scheduler's predicates: its schedule"),
    ("pipeline.classes.{count|names}", "classes of mosaic/pipeline.py"),
    ("pipeline.*.methods.count", "methods of each of its classes (lower-case name)"),
    ("pipeline.functions.count", "its module-level functions"),
    # tokamax
    ("tokamax.sm90.barriers.{count|names}",
     "`Barrier(...)` allocations in the sm90 attention kernel (calls resolved to the Mosaic GPU "
     "`Barrier` class), and the name each is bound to"),
    ("tokamax.sm90.**", "the sm90 kernel facts of tokamax_facts.py (its docstrings say which)"),
    ("hopper.**", "Hopper hardware limits, from NVIDIA's guides (tokamax_facts.py)"),
    ("mosaic_gpu.{smem_alignment|reduction_scratch_bytes}", "Mosaic GPU constants (tokamax_facts.py)"),
    # the TPU chips (tpu_facts.py)
    ("tpu.chips.{count|names}", "chip versions `jax/_src/tpu_info.py` describes (`v5e`, `7x`, ...)"),
    ("tpu.chip.*.**", "one chip's `TpuInfo` keyword as read (per TensorCore), `cores`, `vmem_mib`, "
     "`smem_kib`, `hbm_gb`, `hbm_gbps`, `bf16_tflops`, and `matmul`: its native operand formats"),
    # the corpus
    ("corpus.{files|lines|symbols}.count", "pinned files, their lines, their symbols"),
    ("corpus.{jax|tokamax}.files.count", "pinned files per pin"),
    ("lines.**", "the line count of a pinned module (`lines.jax._src.pallas.mosaic.lowering`)"),
))


_STRUCTURE_NAMES = ("pallas_call.**", "{blockspec|gridspec|blockmapping|gridmapping|buffered|"
                    "costestimate}.**", "{tpu|gpu}.**", "memory_spaces.**", "pipeline.**")
_SM90_NAMES = ("tokamax.sm90.**", "mosaic_gpu.{smem_alignment|reduction_scratch_bytes}")


def compute_facts(corpus: Corpus, index: Index | None = None, workers: Workers | None = None,
                  rules: Callable[[Index], list[RuleTable]] | None = None) -> Facts:
    """Every fact (`providers.FACTS`, which keeps them), computed on two of `workers` (default:
    two processes when there are two cores); without an `index` it builds one; `rules` gives the
    rule tables through an index (`providers.RULES`, the provider's declared input)."""
    workers = workers or Workers(2)
    index = index if index is not None else build_index(corpus, workers=workers)
    return all_facts(corpus, index, workers, (lambda: rules(index)) if rules is not None else None)


@dataclass(frozen=True)
class _Group:
    """Facts computed together: the `NAMES` patterns they cost when their extractor fails."""

    patterns: tuple[str, ...]
    compute: Callable[[], list[Fact]]
    apart: bool = False
    """Computed on the second process when there are two (about half the work: the structures
    and the sm90 kernel, against the rules)."""

    def outcome(self) -> tuple[list[Fact], Unknown | None]:
        try:
            return self.compute(), None
        except (ExtractError, ParseError) as e:
            return [], Unknown(self.patterns, e.location or Location(""), e.message, e.hint)


def all_facts(corpus: Corpus, index: Index, workers: Workers | None = None,
              rules: Callable[[], list[RuleTable]] | None = None) -> Facts:
    """Each group of facts, or an `Unknown` per name pattern of a group whose extractor could
    not read the pinned code; only `ExtractError` is caught, any other error is a bug. `rules`
    gives the rule tables (default: read from the pinned code here, uncached)."""
    def read(m: str) -> str:
        return corpus.read_text(*index.files[m])

    tables = rules or (lambda: rule_tables(index, read))

    groups = [
        _Group(("rules.**",), lambda: rule_facts(tables(), index)),
        _Group(_STRUCTURE_NAMES, lambda: structure_facts(structures(index, read), index), True),
        _Group(("tokamax.sm90.barriers.{count|names}",), lambda: barrier_facts(index, read), True),
        _Group(_SM90_NAMES, lambda: tokamax_facts(corpus), True),
        _Group(("hopper.**",), hopper_facts),
        _Group(("tpu.chips.{count|names}", "tpu.chip.**"), lambda: load_tpu_facts(corpus)),
        _Group(("corpus.**", "lines.**"), lambda: corpus_facts(corpus, index)),
    ]
    outcomes = _two_processes(groups, workers or Workers(1), len(index.files) >= MIN_SPLIT)
    found = [f for facts, _ in outcomes for f in facts]
    unknown = [u for _, u in outcomes if u is not None]
    names = Counter(f.name for f in found)
    if duplicates := sorted(n for n, k in names.items() if k > 1):
        raise BuildError(f"fact names computed twice: {duplicates}", Location(__file__),
                         "give each fact its own name")
    return Facts(tuple(sorted(found, key=lambda f: f.name)), tuple(unknown))


MIN_SPLIT = 100
"""Fewer modules than this: the facts are computed here (a fork would cost more than it saves)."""


def _two_processes(groups: list[_Group], workers: Workers,
                   split: bool) -> list[tuple[list[Fact], Unknown | None]]:
    """Each group's outcome, in order: the `apart` ones beside (on a forked process when the
    workers may fork now), the rest here."""
    apart = [g for g in groups if g.apart] if split else []
    there = workers.beside(lambda: [g.outcome() for g in apart]) if apart else list
    here = {id(g): g.outcome() for g in groups if not (split and g.apart)}
    here.update(zip(map(id, apart), there(), strict=True))
    return [here[id(g)] for g in groups]


# tokamax ---------------------------------------------------------------------------------------
def barrier_facts(index: Index, read: Callable[[str], str]) -> list[Fact]:
    """`Barrier(...)` allocations in tokamax's sm90 attention kernel, found through references
    (so `plgpu.Barrier` counts, and a local named `Barrier` would not)."""
    if SM90_MODULE not in index.files:
        return []
    pin, path = index.files[SM90_MODULE]
    at = {(r.line, r.col) for r in index.references(pin, path)
          if r.target == BARRIER}
    src = source(read(SM90_MODULE), path)
    parents = src.parents
    found: list[tuple[int, str]] = []
    for call in src.calls(src.tree, "Barrier"):
        name = call.func.attr if isinstance(call.func, cst.Attribute) else call.func
        if src.position(name) in at:
            found.append((src.line(call), bound_name(call, parents)))
    found.sort()
    first = found[0][0] if found else 0
    return [Fact("tokamax.sm90.barriers.count", len(found), "Barrier allocations in the sm90 kernel",
                 path, first),
            Fact("tokamax.sm90.barriers.names", [b for _, b in found],
                 "what each Barrier allocation is bound to", path, first)]


def tokamax_facts(corpus: Corpus) -> list[Fact]:
    """The sm90 kernel facts of `tokamax_facts.py`, when the three files they read are pinned."""
    if not all(corpus.has(pin, p) for pin, p in (
            ("tokamax", SM90_PATH), ("tokamax", COMMON_PATH), ("tokamax", ARG_SPECS_PATH),
            ("jax", MGPU_CORE_PATH))):
        return []
    return sm90_facts(load_sm90_params(corpus))


# corpus ------------------------------------------------------------------------------------------
def corpus_facts(corpus: Corpus, index: Index) -> list[Fact]:
    files = corpus.all_files()
    out = [Fact("corpus.files.count", len(files), "pinned files"),
           Fact("corpus.symbols.count", sum(len(fs.symbols) for fs in index.summaries.values()),
                "symbols in the pinned files")]
    total = 0
    for pin in sorted(corpus.pins):
        out.append(Fact(f"corpus.{pin}.files.count", len(corpus.files(pin)), f"pinned files of {pin}"))
    for pin, path in files:
        n = len(corpus.read_text(pin, path).splitlines())
        total += n
        out.append(Fact(f"lines.{module_of(path)}", n, f"lines of {path}", path, 1))
    out.append(Fact("corpus.lines.count", total, "lines in the pinned files"))
    return out
