"""Extraction: what the pinned source defines, references and registers.

The public API other stages use:

    index = build_index(corpus)                 # per-file scans cached by blob sha
    index.definition_of(module, qualname)       # -> Definition(pin, path, symbol)
    index.references(pin, path)                 # -> [Reference], sorted by line, col
    index.references_in(text, "kernels/x.py")   # the same for code outside the pins
    index.where_used(module, qualname)          # -> [Use(pin, path, line, col, length)]
    index.resolve_attr(Target("module", "jax.experimental.pallas"), "BlockSpec")   # -> Target

    providers.load_rules(corpus, index)         # -> [RuleTable] per backend and key (kept)
    structures.structures(index, read)          # -> pallas_call, classes, pipeline predicates
    providers.load_facts(corpus)                # -> Facts: [Fact(name, value, about, path, line)]
                                                #    and an Unknown per group it cannot compute
"""

from reader.extract.index import Definition, Index, build_index, index_from_sources
from reader.extract.names import Target
from reader.extract.references import Use

__all__ = ["Definition", "Index", "Target", "Use", "build_index", "index_from_sources"]
