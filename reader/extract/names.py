"""Name resolution: what a name read in a module means, through imports, aliases, re-exports,
star imports and class bases, over the modules' scanned summaries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from reader.extract.scan import Binding, Chain, FileSummary, Part
from reader.model import Symbol


@dataclass(frozen=True)
class Target:
    """What a name means: a definition in the corpus, a module, or something outside the corpus."""

    kind: str
    """`def` (a symbol of a corpus module), `module`, or `external` (outside the corpus)."""
    module: str
    """For `def`: the defining module; for `module`: the module; for `external`: the dotted path."""
    qualname: str = ""


class Resolver:
    """Resolves names across the modules of `summaries` (each name's answer memoised)."""

    def __init__(self, summaries: Mapping[str, FileSummary]):
        self.summaries = summaries
        """module -> its FileSummary."""
        self._prefixes = {m.rsplit(".", i)[0] for m in summaries for i in range(m.count(".") + 1)}
        self._symbols: dict[str, dict[str, Symbol]] = {}
        self._memo: dict[tuple[str, str, int], Target | None] = {}
        self._active: set[tuple[str, str]] = set()

    def forget(self) -> None:
        """Drop the memoised answers (the next resolution reads every module it needs again)."""
        self._memo.clear()

    def symbol(self, module: str, qualname: str) -> Symbol | None:
        symbols = self._symbols.get(module)
        if symbols is None:
            fs = self.summaries.get(module)
            symbols = {s.qualname: s for s in fs.symbols} if fs is not None else {}
            self._symbols[module] = symbols
        return symbols.get(qualname)

    def resolve_name(self, module: str, name: str, line: int | None = None,
                     summary: FileSummary | None = None) -> Target | None:
        """What module-level `name` of `module` means at `line` (None: after the whole module
        ran)."""
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

    def names_for(self, qualname: str) -> set[str]:
        """The identifiers a read of a module-level definition named `qualname` can go through:
        the name itself and every name an import binds it to (`from m import x as y`, and
        `from n import y as z` after it), in any module (a superset: the modules are not compared)."""
        names = {qualname}
        grew = True
        while grew:
            found = {b.name for fs in self.summaries.values() for bs in fs.bindings.values()
                     for b in bs if b.kind == "from" and b.attr in names}
            grew = not found <= names
            names |= found
        return names

    def linkable(self, target: Target | None) -> bool:
        """Whether `target` is a definition (or a module) inside the pinned corpus."""
        if target is None or target.module not in self.summaries:
            return False
        return target.kind == "module" or self.symbol(target.module, target.qualname) is not None

    def _module_target(self, dotted: str) -> Target:
        return Target("module" if dotted in self._prefixes else "external", dotted)

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
            return self._module_target(b.module)
        if b.kind == "from":
            if self._unbound_while_importing(b.module, b.attr, module):
                return Target("module", f"{b.module}.{b.attr}")
            return self.resolve_attr(self._module_target(b.module), b.attr)
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


def _pick(bindings: tuple[Binding, ...], line: int | None) -> Binding:
    """The binding in effect at `line` (the last one before it), or the module's last binding."""
    if line is not None:
        before = [b for b in bindings if b.line < line]
        if before:
            return before[-1]
    return bindings[-1]


class ResolvedPart(NamedTuple):
    """A part of a chain and the definition it resolves to."""

    part: Part
    target: Target


def resolve_chain(resolver: Resolver, fs: FileSummary, chain: Chain) -> list[ResolvedPart]:
    """Each part of `chain` (read in the module of `fs`) with what it resolves to, for the parts
    that resolve."""
    parts = list(chain.parts)
    target: Target | None
    out: list[ResolvedPart] = []
    if chain.head == "global":
        first = parts.pop(0)
        target = resolver.resolve_name(fs.module, first.name,
                                       first.line if chain.at_module else None, fs)
    elif chain.head == "member":
        parts.pop(0)  # `self` itself
        if not parts:
            return []
        first = parts.pop(0)
        target = resolver.member(fs.module, chain.owner, first.name)
    else:
        first = parts.pop(0)
        qual = f"{chain.owner}.{first.name}"
        target = Target("def", fs.module, qual) if any(
            s.qualname == qual for s in fs.symbols) else None
    if target is not None:
        out.append(ResolvedPart(first, target))
    for part in parts:
        if target is None:
            break
        target = resolver.resolve_attr(target, part.name)
        if target is not None:
            out.append(ResolvedPart(part, target))
    return out
