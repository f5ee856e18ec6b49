"""The track's outline (`track.yaml`): its phases and, in order, each phase's articles, labs and files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reader.cache import Cache
from reader.errors import InputError, Location
from reader.inputs import parse_yaml, read_input, shown
from reader.providers import Provider, how, pickled, provide

ENTRY_KINDS = ("article", "lab", "source")


@dataclass(frozen=True)
class Entry:
    """One line of the outline: an article (by title), a lab (by module name) or a pinned file."""

    kind: str
    """article | lab | source"""
    ref: str
    """The article's title, the lab's module name, or the file's pinned path."""
    title: str
    summary: str = ""
    slug: str = ""
    """For an article: its slug when the outline names one."""
    line: int = 0


@dataclass(frozen=True)
class Phase:
    number: int
    title: str
    summary: str
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class Track:
    title: str
    summary: str
    phases: tuple[Phase, ...]


@dataclass(frozen=True)
class Outlined:
    """What the track's outline reads: `track.yaml`'s text; its path only names it in an error."""

    text: str
    path: Path = how()


def _outlined(inputs: Outlined) -> Track:
    return _track(inputs.path, inputs.text)


TRACK: Provider[Outlined, Track] = Provider("track", Outlined, _outlined, pickled(Track))
"""The track's outline, checked."""


def load_track(path: Path, cache: Cache | None = None) -> Track:
    """Read and check `track.yaml`; a problem is reported with its line. With a `cache`, the
    outline of the same bytes is read back (no YAML parser loaded)."""
    text = read_input(path)
    return provide(TRACK, Outlined(text, path), cache)


def _track(path: Path, text: str) -> Track:
    data = parse_yaml(text, shown(path))
    path = Path(shown(path))  # as messages name it
    if not isinstance(data, dict) or not isinstance(data.get("phases"), list):
        raise InputError("expected 'title', 'summary' and a list of 'phases'", Location(str(path), 1),
                         "start the outline with `title:`, `summary:` and `phases:`")
    phases = tuple(_phase(path, n, raw) for n, raw in enumerate(data["phases"], 1))
    return Track(str(data.get("title", "")), str(data.get("summary", "")), phases)


def _line(raw: object) -> int:
    lc = getattr(raw, "lc", None)
    return lc.line + 1 if lc is not None else 1


def _phase(path: Path, number: int, raw: object) -> Phase:
    if not isinstance(raw, dict) or "title" not in raw:
        raise InputError(f"phase {number} needs a 'title'", Location(str(path), _line(raw)),
                         "write each phase as a mapping with `title:` and `entries:`")
    entries = raw.get("entries") or []
    if not isinstance(entries, list):
        raise InputError(f"'entries' of phase {number} must be a list", Location(str(path), _line(raw)),
                         "write each entry as `- article: ...`, `- lab: ...` or `- source: ...`")
    return Phase(number, str(raw["title"]), str(raw.get("summary", "")),
                 tuple(_entry(path, e) for e in entries))


def _entry(path: Path, raw: object) -> Entry:
    where = Location(str(path), _line(raw))
    if not isinstance(raw, dict):
        raise InputError("an entry must be a mapping", where,
                         "write it as `- article: ...`, `- lab: ...` or `- source: ...`")
    kinds = [k for k in ENTRY_KINDS if k in raw]
    if len(kinds) != 1:
        raise InputError("an entry names exactly one of 'article', 'lab', 'source'", where,
                         f"found {', '.join(kinds) or 'none'}")
    kind = kinds[0]
    ref = str(raw[kind])
    title = str(raw.get("title", ref))
    return Entry(kind, ref, title, str(raw.get("summary", "")).strip(), str(raw.get("slug", "")),
                 where.line or 0)
