"""`Change` records: one frozen dataclass per kind of difference a pin move makes, each with `explain()`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from reader.errors import Location
from reader.model import Span
from reader.move.place import Proposal


def span_text(span: Span | None) -> str:
    if span is None:
        return "-"
    return f"{span.start}" if span.start == span.end else f"{span.start}-{span.end}"


@dataclass(frozen=True)
class Change(ABC):
    """One difference between two pin sets. Printers group records by `section`."""

    section: ClassVar[str] = ""
    status: str

    @property
    def needs_person(self) -> bool:
        """Whether a person must re-read something before the move is done."""
        return False

    @abstractmethod
    def explain(self) -> str:
        """One line saying what changed, where, and what to do about it."""

    def to_json(self) -> dict[str, Any]:
        data = {"section": self.section, **asdict(self)}
        data["explain"] = self.explain()
        data["needs_person"] = self.needs_person
        return data


@dataclass(frozen=True)
class PinChange(Change):
    """A pin whose commit differs: `moved`, or `added`/`removed` when only one side has it."""

    section: ClassVar[str] = "pins"
    pin: str
    repo: str
    old: str
    new: str
    old_label: str = ""
    new_label: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "compare_url": self.compare_url}

    @property
    def compare_url(self) -> str:
        """The upstream compare view (`<repo>/compare/<old>...<new>`), for web-hosted repositories."""
        if self.status != "moved" or not self.repo.startswith(("https://", "http://")):
            return ""
        return f"{self.repo.removesuffix('.git').rstrip('/')}/compare/{self.old}...{self.new}"

    def explain(self) -> str:
        if self.status != "moved":
            return f"pin {self.pin} {self.status} ({(self.new or self.old)[:12]})"
        old = f"{self.old[:7]}" + (f" ({self.old_label})" if self.old_label else "")
        new = f"{self.new[:7]}" + (f" ({self.new_label})" if self.new_label else "")
        return f"pin {self.pin} moved {old} -> {new}"


@dataclass(frozen=True)
class FileChange(Change):
    """A pinned file `added` or `removed`; `unknown` when the side lacking it was locked from an
    archive, which omits files git has, so whether it exists there cannot be told."""

    section: ClassVar[str] = "files"
    pin: str
    path: str
    detail: str = ""

    def explain(self) -> str:
        what = {"added": "new file", "removed": "file removed",
                "unknown": "only one lock lists this file"}[self.status]
        return f"{self.path}: {what}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class SymbolChange(Change):
    """A definition `added`, `removed`, with its `signature` changed, or (annotated ones) its `body`."""

    section: ClassVar[str] = "symbols"
    pin: str
    path: str
    qualname: str
    kind: str
    old_line: int | None = None
    new_line: int | None = None
    old_signature: str = ""
    new_signature: str = ""
    diff: str = ""
    """For `body`: a unified diff of the symbol's code, old to new."""
    annotated: bool = False

    def explain(self) -> str:
        where = f"{self.path}::{self.qualname}"
        if self.status == "added":
            return f"{where}: new {self.kind} at line {self.new_line}"
        if self.status == "removed":
            return f"{where}: {self.kind} removed (was line {self.old_line})"
        if self.status == "signature":
            return f"{where}: signature changed: {self.old_signature} -> {self.new_signature}"
        return f"{where}: body changed (lines {self.old_line} -> {self.new_line})"


@dataclass(frozen=True)
class NoteChange(Change):
    """What a pin move does to one note: `unchanged`, `moved`, `changed`, `orphaned` or `ambiguous`."""

    section: ClassVar[str] = "notes"
    note: str
    where: Location
    """The note in its annotation file."""
    pin: str
    path: str
    old: Span | None = None
    new: Span | None = None
    diff: str = ""
    """For `changed`: a unified diff of the anchored code, old to new."""
    detail: str = ""
    context: str = ""
    """For `unchanged`/`moved`: the symbol around the note whose other code changed (re-read advised:
    the note's words may rest on it), or empty."""
    proposal: Proposal | None = None
    """Where the note goes at the new pins (`reader diff --apply` writes it), how sure, and why."""

    @property
    def needs_person(self) -> bool:
        if self.proposal is not None:
            return self.proposal.marked
        return self.status in ("changed", "orphaned", "ambiguous")

    def explain(self) -> str:
        head = f"{self.where}: note {self.note!r} on {self.path}"
        around = (f"; the code around it in {self.context} changed: re-read the note"
                  if self.context else "")
        if self.status == "unchanged":
            return f"{head}: unchanged (lines {span_text(self.new)}){around}"
        if self.status == "moved":
            return (f"{head}: moved, lines {span_text(self.old)} -> {span_text(self.new)}, code "
                    f"unchanged{around}")
        if self.status == "changed":
            what = "the anchored code changed" if self.diff else (self.detail or "its anchor changed")
            return (f"{head}: {what} (lines {span_text(self.old)} -> {span_text(self.new)}); "
                    f"{self.placed()}")
        tail = f" ({self.detail})" if self.detail else ""
        return f"{head}: {self.status}{tail}; {self.placed()}"

    def placed(self) -> str:
        """What the move proposes for the note, and what is left to a person."""
        p = self.proposal
        if p is None:
            fix = ("re-read the note, fix it if needed, then 'reader accept "
                   f"{self.note}'") if self.status == "changed" else "rewrite its anchor or remove it"
            return fix
        if p.span is None:
            near = "; nearest: " + ", ".join(map(str, p.candidates)) if p.candidates else ""
            return f"no place proposed: {p.reason}{near}; rewrite its anchor or remove it"
        where = (f"{p.path}:" if p.path != self.path else "lines ") + span_text(p.span)
        return (f"proposed {where} ({p.how}, {p.confidence:.0%} sure: {p.reason})"
                + ("; re-read it there" if p.marked else ""))


@dataclass(frozen=True)
class ClaimChange(Change):
    """A claim whose outcome differs between the two sides' releases (status `changed`): the
    behaviour the note states may have changed even where its code did not."""

    section: ClassVar[str] = "claims"
    note: str
    where: Location
    """The claim's example in its annotation file."""
    source: str
    """The first example whose outcome differs."""
    old: str
    new: str
    old_label: str = ""
    new_label: str = ""

    @property
    def needs_person(self) -> bool:
        return True

    def explain(self) -> str:
        return (f"{self.where}: note {self.note!r}: re-read: behaviour changed: >>> {self.source} "
                f"gives {self.old!r} at {self.old_label}, {self.new!r} at {self.new_label}")


@dataclass(frozen=True)
class RuleChange(Change):
    """A lowering rule table entry `added`, `removed`, or `moved` (same primitive, rule elsewhere)."""

    section: ClassVar[str] = "rules"
    backend: str
    key: str
    primitive: str
    old_rule: str = ""
    """`path:line function` of the rule before, empty when added."""
    new_rule: str = ""

    def explain(self) -> str:
        table = f"{self.backend}[{self.key}]" if self.key else self.backend
        if self.status == "added":
            return f"{table}: {self.primitive} added ({self.new_rule})"
        if self.status == "removed":
            return f"{table}: {self.primitive} removed (was {self.old_rule})"
        return f"{table}: {self.primitive} moved, {self.old_rule} -> {self.new_rule}"


@dataclass(frozen=True)
class FactChange(Change):
    """A computed fact whose value changed, and the prose that cites it (`{{fact:NAME}}`)."""

    section: ClassVar[str] = "facts"
    name: str
    old: str
    new: str
    cited_by: tuple[Location, ...] = field(default=())

    def explain(self) -> str:
        cites = ", ".join(str(c) for c in self.cited_by) or "no prose"
        return f"fact {self.name}: {self.old} -> {self.new} (cited by {cites})"


@dataclass(frozen=True)
class Uncomputed(Change):
    """What an extractor cannot compute at one side's pins (status `unknown`): it no longer
    understands that code, so the section is incomplete until a person updates it."""

    side: str
    """The label of the side whose code it could not read."""
    what: str
    """What is missing: `facts tokamax.sm90.**`, `the lowering rule tables`."""
    where: Location
    """The pinned code the extractor could not read."""
    reason: str
    cited_by: tuple[Location, ...] = field(default=())
    """The prose citing a fact (or figure) it costs."""
    fix: ClassVar[str] = "update the extractor"
    """What a person does about it."""

    @property
    def needs_person(self) -> bool:
        return True

    def explain(self) -> str:
        cites = f"; cited by {', '.join(str(c) for c in self.cited_by)}" if self.cited_by else ""
        return (f"{self.what} cannot be computed at {self.side} ({self.where}: {self.reason})"
                f"{cites}; {self.fix}")


@dataclass(frozen=True)
class FactsUncomputed(Uncomputed):
    """Facts one side's extractor cannot compute."""

    section: ClassVar[str] = "facts"


@dataclass(frozen=True)
class FiguresUncomputed(Uncomputed):
    """A computed figure whose maker cannot read one side's pinned code (listed with the facts:
    the page shows it "not computed at these pins")."""

    section: ClassVar[str] = "facts"
    fix: ClassVar[str] = "update the figure's maker (reader/render/figures/)"


@dataclass(frozen=True)
class RulesUncomputed(Uncomputed):
    """Lowering rule tables one side's extractor cannot read."""

    section: ClassVar[str] = "rules"


@dataclass(frozen=True)
class ClaimsUncomputed(Uncomputed):
    """Claims that cannot be run at one side (no environment with its releases)."""

    section: ClassVar[str] = "claims"


SECTIONS = ("pins", "notes", "claims", "files", "symbols", "rules", "facts")


@dataclass(frozen=True)
class DiffReport:
    """Every change between two pin sets, in section order, with the labels of both sides."""

    old: str
    new: str
    changes: tuple[Change, ...]

    def of(self, section: str) -> list[Change]:
        return [c for c in self.changes if c.section == section]

    @property
    def needs_person(self) -> list[Change]:
        return [c for c in self.changes if c.needs_person]

    def uncomputed(self, section: str) -> list[Uncomputed]:
        """What the extractors could not compute in `section`, on either side."""
        return [c for c in self.of(section) if isinstance(c, Uncomputed)]

    @property
    def exit_code(self) -> int:
        """0 when nothing needs a person, 1 otherwise."""
        return 1 if self.needs_person else 0
