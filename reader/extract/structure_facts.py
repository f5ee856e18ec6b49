"""The facts read from jax's Pallas structures (`structures.Structures`): `pallas_call.**`, the
classes and enums of the three `core.py` modules, `memory_spaces.**` and the TPU pipeline's
`pipeline.**`, each at its definition's line."""

from __future__ import annotations

from reader.extract.fact import Fact
from reader.extract.index import Index
from reader.extract.structures import (
    BACKEND_REGISTRAR,
    PALLAS_CALL_P,
    ClassInfo,
    PrimitiveRule,
    Structures,
)

_CORE = "jax/_src/pallas/core.py"
_TPU = "jax/_src/pallas/mosaic/core.py"
_GPU = "jax/_src/pallas/mosaic_gpu/core.py"
_CLASSES = {
    "blockspec": (_CORE, "BlockSpec"), "gridspec": (_CORE, "GridSpec"),
    "blockmapping": (_CORE, "BlockMapping"), "gridmapping": (_CORE, "GridMapping"),
    "buffered": (_CORE, "Buffered"), "costestimate": (_CORE, "CostEstimate"),
    "tpu.compilerparams": (_TPU, "CompilerParams"),
    "tpu.prefetchscalargridspec": (_TPU, "PrefetchScalarGridSpec"),
    "gpu.compilerparams": (_GPU, "CompilerParams"), "gpu.blockspec": (_GPU, "BlockSpec"),
}
_ENUMS = {
    "memory_spaces.core": (_CORE, "MemorySpace"), "memory_spaces.tpu": (_TPU, "MemorySpace"),
    "memory_spaces.gpu": (_GPU, "MemorySpace"), "tpu.core_types": (_TPU, "CoreType"),
    "tpu.semaphore_types": (_TPU, "SemaphoreType"),
    "tpu.grid_dimension_semantics": (_TPU, "GridDimensionSemantics"),
    "gpu.semaphore_types": (_GPU, "SemaphoreType"),
    "gpu.primitive_semantics": (_GPU, "PrimitiveSemantics"),
}
_STANDARD_KINDS = ("impl", "abstract_eval", "jvp", "transpose", "batching", "lowering", "dce",
                   "typecheck", "discharge")


def structure_facts(s: Structures, index: Index) -> list[Fact]:
    return [*_pallas_call_facts(s, index), *_class_facts(s), *_pipeline_facts(s)]


def _source(index: Index, module: str, qualname: str) -> tuple[str, int]:
    sym = index.symbol(module, qualname)
    return (index.files[module][1], sym.line) if sym else ("", 0)


def _pallas_call_facts(s: Structures, index: Index) -> list[Fact]:
    sig = s.pallas_call
    if sig is None:
        return []
    prim_at = _source(index, *PALLAS_CALL_P)
    backend_at = _source(index, *BACKEND_REGISTRAR)
    out = [Fact("pallas_call.line", sig.line, "where pallas_call is defined", sig.path, sig.line),
           Fact("pallas_call.params.count", len(sig.params), "pallas_call's parameters",
                sig.path, sig.line),
           Fact("pallas_call.params.names", [p.name for p in sig.params], "pallas_call's parameters",
                sig.path, sig.line),
           Fact("pallas_call.params.keyword_only.count",
                sum(p.kind == "keyword" for p in sig.params), "keyword-only parameters",
                sig.path, sig.line)]
    registered = [r for r in s.pallas_call_rules if r.registry != "mlir.lower_per_platform"]
    out.append(Fact("pallas_call.rules.count", len(registered), "rules registered for pallas_call_p",
                    *prim_at))
    out.append(Fact("pallas_call.rules.kinds", sorted({r.kind for r in registered}),
                    "kinds of rules registered for pallas_call_p", *prim_at))
    for kind in _STANDARD_KINDS:
        rules = [r for r in registered if r.kind == kind]
        first = rules[0] if rules else None
        out.append(Fact(f"pallas_call.rules.{kind}.count", len(rules), f"{kind} rules of pallas_call_p",
                        *(_at(first) if first else prim_at)))
        if first:
            out.append(Fact(f"pallas_call.rules.{kind}", first.rule, f"the {kind} rule of pallas_call_p",
                            first.path, first.line))
    platforms = [r for r in s.pallas_call_rules if r.registry == "mlir.lower_per_platform"]
    out += [Fact("pallas_call.platforms.count", len(platforms), "platforms pallas_call lowers for",
                 *(_at(platforms[0]) if platforms else ("", 0))),
            Fact("pallas_call.platforms.names", [r.platform for r in platforms],
                 "platforms pallas_call lowers for", *(_at(platforms[0]) if platforms else ("", 0))),
            Fact("pallas_call.backends.count", len(s.backend_lowerings),
                 "CompilerParams classes registered with a backend lowering", *backend_at),
            Fact("pallas_call.backends.names", [r.kind for r in s.backend_lowerings],
                 "CompilerParams classes registered with a backend lowering", *backend_at)]
    return out


def _at(r: PrimitiveRule) -> tuple[str, int]:
    return r.path, r.line


def _class_facts(s: Structures) -> list[Fact]:
    out = []
    for name, (path, qual) in _CLASSES.items():
        c = s.find(path, qual)
        if c is None:
            continue
        out += [Fact(f"{name}.line", c.line, f"where {qual} is defined", c.path, c.line),
                Fact(f"{name}.fields.count", len(c.fields), f"fields of {qual}", c.path, c.line),
                Fact(f"{name}.fields.names", [f.name for f in c.fields], f"fields of {qual}",
                     c.path, c.line),
                Fact(f"{name}.methods.count", len(c.methods), f"methods of {qual}", c.path, c.line)]
    for name, (path, qual) in _ENUMS.items():
        e = s.find(path, qual)
        out += _enum_facts(name, e) if e else []
    return out


def _enum_facts(name: str, c: ClassInfo) -> list[Fact]:
    members = [m.name for m in c.members if not m.name.startswith("_")]
    return [Fact(f"{name}.count", len(members), f"members of {c.qualname}", c.path, c.line),
            Fact(f"{name}.names", members, f"members of {c.qualname}", c.path, c.line)]


def _pipeline_facts(s: Structures) -> list[Fact]:
    if not s.pipeline_classes:
        return []
    preds = s.schedule_predicates
    path = s.pipeline_classes[0].path if s.pipeline_classes else ""
    out = [Fact("pipeline.predicates.count", len(preds), "the Scheduler's predicates", path,
                preds[0].line if preds else 0),
           Fact("pipeline.predicates.names", [p.name for p in preds], "the Scheduler's predicates",
                path, preds[0].line if preds else 0),
           Fact("pipeline.classes.count", len(s.pipeline_classes), "classes of pipeline.py", path),
           Fact("pipeline.classes.names", [c.qualname for c in s.pipeline_classes],
                "classes of pipeline.py", path),
           Fact("pipeline.functions.count", len(s.pipeline_functions),
                "module-level functions of pipeline.py", path)]
    for c in s.pipeline_classes:
        out.append(Fact(f"pipeline.{c.qualname.lower()}.methods.count", len(c.methods),
                        f"methods of {c.qualname}", c.path, c.line))
    return out
