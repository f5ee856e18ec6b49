"""The qualified names search resolves (`pl.program_id`, `pltpu.emit_pipeline`): each public
module's names under the aliases the pinned files import it by, and under its own dotted path,
resolved through its re-exports to where they are defined."""

from __future__ import annotations

from collections import Counter, defaultdict

from reader.extract.index import Index
from reader.extract.scan import FileSummary


def module_aliases(index: Index) -> dict[str, str]:
    """Each name the pinned files bind a public module of the corpus to (`import jax.numpy as jnp`,
    `from jax.experimental import pallas as pl`), to the module most of them bind it to."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for module in index.files:
        fs = index.summaries.get(module)
        for bindings in fs.bindings.values() if fs is not None else ():
            for b in bindings:
                bound = b.module if b.kind == "module" else f"{b.module}.{b.attr}" if b.kind == "from" else ""
                if bound in index.files and _public(bound):
                    seen[b.name][bound] += 1
    return {alias: counts.most_common(1)[0][0] for alias, counts in sorted(seen.items())}


def qualified_names(index: Index) -> dict[str, tuple[str, int]]:
    """`alias.name` and `module.name` (lowercased) -> the path and line of its definition, for each
    public name of each public module an alias binds (`module_aliases`)."""
    aliases = module_aliases(index)
    out: dict[str, tuple[str, int]] = {}
    for module in sorted(set(aliases.values())):
        found = _defined(index, module)
        for alias in [module, *(a for a, m in aliases.items() if m == module)]:
            out.update({f"{alias}.{name}".lower(): place for name, place in found.items()})
    return out


def _defined(index: Index, module: str) -> dict[str, tuple[str, int]]:
    """The public names of `module` (its own bindings and those of the modules it star-imports)
    that resolve to a definition of the corpus: where each is defined."""
    fs = index.summaries.get(module)
    names = set(_names(fs)) | {n for star in (fs.stars if fs else ()) for n in _names(index.summaries.get(star))}
    out = {}
    for name in sorted(names):
        target = index.resolve_name(module, name)
        place = index.defined_at(target.module, target.qualname) if target and target.kind == "def" else None
        if place is not None and place.line is not None:
            out[name] = (place.path, place.line)
    return out


def _names(fs: FileSummary | None) -> list[str]:
    return [n for n in (fs.bindings if fs is not None else ()) if not n.startswith("_")]


def _public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split("."))
