"""The lowering rule tables as data: each backend's table, its entries and where they come from
(`rules.py` reads them from the pinned source), and the tables of a corpus from the cache."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Backend:
    """Where a backend keeps its table and the function that registers into it."""

    name: str
    module: str
    table: str
    registrar: str
    prim_param: str
    key_params: tuple[str, ...]
    """The registrar's parameters that choose the table's key (none: a single table)."""
    keys_are_a_collection: bool = False
    """True when the one key parameter holds several keys (TPU's `kernel_types`)."""


BACKENDS = (
    Backend("tpu", "jax._src.pallas.mosaic.lowering", "lowering_rules",
            "register_lowering_rule", "prim", ("kernel_types",), True),
    Backend("triton", "jax._src.pallas.triton.lowering", "triton_lowering_rules",
            "register_lowering", "primitive", ()),
    Backend("mosaic_gpu", "jax._src.pallas.mosaic_gpu.lowering", "mosaic_lowering_rules",
            "register_lowering_rule", "primitive", ("lowering_semantics", "primitive_semantics")),
)
BACKEND_NAMES = tuple(b.name for b in BACKENDS)


@dataclass(frozen=True)
class PrimRef:
    """A primitive by its defining module and variable (`jax._src.pallas.primitives.load_p`)."""

    module: str
    """The defining module for a corpus primitive; for one outside the corpus, the module it was
    imported through (`jax.lax`), since its definition is not in the pins."""
    var: str
    name: str
    """The primitive's own name (`load`), which two primitives may share."""
    in_corpus: bool

    @property
    def key(self) -> str:
        """Identity across the tables: module + variable in the corpus; outside it, the variable
        (jax re-exports one primitive under several modules, always as the same variable)."""
        return f"{self.module}.{self.var}" if self.in_corpus else f"<external>.{self.var}"

    @property
    def dotted(self) -> str:
        return f"{self.module}.{self.var}"


@dataclass(frozen=True)
class RuleRef:
    """The rule as registered: its text and the function it comes down to."""

    text: str
    """As written: `_add_lowering_rule`, `functools.partial(_cmp_lowering_rule, prim)`, `lambda`."""
    kind: str
    """`function`, `partial` (of `qualname`), `lambda`, `call` (what a call to the factory
    `qualname` returned), `variable` (an object held by `qualname`, e.g. a dispatch table)."""
    module: str
    path: str
    qualname: str
    """The function (or variable) behind the rule; a factory's name for a factory call."""
    line: int
    """The line of its `def` (or assignment, or lambda)."""
    start: int
    """Its first line, decorators included."""


@dataclass(frozen=True)
class RuleEntry:
    backend: str
    key: str
    primitive: PrimRef
    rule: RuleRef
    path: str
    line: int
    """Where the registration happens (a decorator's line, a call's, an assignment's)."""
    form: str
    """`decorator`, `call`, `store` (`table[p] = f`) or `update` (`table.update({...})`)."""


@dataclass(frozen=True)
class RuleTable:
    """One backend's table for one key, as it stands once every registering module ran."""

    backend: str
    key: str
    entries: tuple[RuleEntry, ...]
    overridden: tuple[RuleEntry, ...] = ()
    """Registrations replaced by a later one for the same primitive."""

    def primitives(self) -> set[str]:
        return {e.primitive.key for e in self.entries}

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> RuleTable:
        def entry(d: dict) -> RuleEntry:
            return RuleEntry(**{**d, "primitive": PrimRef(**d["primitive"]),
                                "rule": RuleRef(**d["rule"])})
        return cls(data["backend"], data["key"], tuple(entry(e) for e in data["entries"]),
                   tuple(entry(e) for e in data["overridden"]))
