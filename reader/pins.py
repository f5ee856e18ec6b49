"""Pins (`pins.toml`) and their lock (`pins.lock`): which upstream commit, which paths, which blobs."""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from reader.atomic import finish_interrupted
from reader.errors import Location, PinError, UnsafeSourceError
from reader.inputs import read_input, shown

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
PIN_KEYS = {"repo", "commit", "tag", "release", "date", "paths", "context", "history"}
RELEASE_RE = re.compile(r"^[A-Za-z0-9._-]+==[A-Za-z0-9.+!-]+$")
SCP_RE = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^-].*$")


@dataclass(frozen=True)
class Pin:
    """One upstream repository at one commit, restricted to `paths`."""

    name: str
    repo: str
    commit: str
    paths: tuple[str, ...]
    release: str = ""
    """A pip requirement (`jax==0.10.2`) whose archives carry the same files."""
    tag: str = ""
    date: str = ""
    where: Location | None = field(default=None, compare=False, repr=False)
    """Where pins.toml defines this pin (its table's line), for errors about the pin."""
    history: tuple[str, ...] = field(default=(), compare=False)
    """Earlier releases (`jax==0.10.2`, oldest first) whose lowering rules `reader rules --history`
    reads from their archives; `reader pin` appends the release it moves away from."""
    context: tuple[str, ...] = ()
    """More paths, pinned and paged like `paths` so that the names of the pinned files link to
    their definitions (the modules they import), but not read by the track: not searched line by
    line, not compared by a move, not read from the `history` releases."""

    @property
    def short(self) -> str:
        return self.commit[:7]

    @property
    def dist_name(self) -> str:
        return self.release.split("==")[0].strip() if self.release else ""

    @property
    def dist_version(self) -> str:
        return self.release.split("==")[1].strip() if "==" in self.release else ""

    def permalink(self, path: str, start: int | None = None, end: int | None = None) -> str:
        """The GitHub-style blob URL of `path` at this pin, optionally with a line range."""
        url = f"{self.repo.removesuffix('.git')}/blob/{self.commit}/{path}"
        if start is not None:
            url += f"#L{start}" + (f"-L{end}" if end is not None and end != start else "")
        return url

    @property
    def all_paths(self) -> tuple[str, ...]:
        """`paths`, then `context`."""
        return (*self.paths, *self.context)

    def covers(self, path: str) -> bool:
        return _under(path, self.all_paths)

    def in_context(self, path: str) -> bool:
        """Whether `path` is pinned for its names only (`context`), not by `paths`."""
        return _under(path, self.context) and not _under(path, self.paths)


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    """Whether `path` is one of `prefixes` or inside one: each of its heads looked up."""
    heads = _heads(prefixes)
    if path in heads:
        return True
    at = path.find("/")
    while at >= 0:
        if path[:at] in heads:
            return True
        at = path.find("/", at + 1)
    return False


@functools.lru_cache(maxsize=64)
def _heads(prefixes: tuple[str, ...]) -> frozenset[str]:
    return frozenset(prefixes)


@dataclass(frozen=True)
class LockEntry:
    """The blob sha of every pinned `.py` file of one pin at its commit."""

    name: str
    commit: str
    files: dict[str, str] = field(default_factory=dict)
    source: str = ""
    """Where the blob shas came from when not from git: `archive jax==0.10.1` (archives omit files)."""


def check_url(url: str, where: Location | None = None) -> str:
    """Refuse anything but https://, ssh://, file://, scp-style git@host:path and local paths."""
    bad = url.startswith("-") or "::" in url.split("/")[0] or any(c in url for c in "\n\r\0")
    if not bad:
        if re.match(r"^(https|ssh|file)://[^\s]+$", url) or SCP_RE.match(url):
            return url
        if ":" not in url.split("/")[0]:
            return url  # a local path
    raise UnsafeSourceError(
        f"refusing git source {url!r}",
        where,
        "use an https://, ssh://, file:// URL, git@host:path or a local path",
    )


_PLAIN_PATH = re.compile(r"[A-Za-z0-9_][\w.+=@,-]*(?:/[A-Za-z0-9_][\w.+=@,-]*)*\Z", re.ASCII)
"""A relative path of plain names (none `.`, `..` or `-`-led): what a lock names, checked at once."""


def check_rel_path(path: str, where: Location | None = None) -> str:
    """A pinned path must be relative and stay inside the repository."""
    if _PLAIN_PATH.match(path):
        return path
    p = PurePosixPath(path)
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in path):
        raise PinError(f"path {path!r} holds a control or invisible character", where,
                       "name the file with visible characters only")
    if not path or p.is_absolute() or ".." in p.parts or "\\" in path or path.startswith("-"):
        raise PinError(f"path {path!r} must be relative and inside the repository", where,
                       "write it like 'jax/_src/pallas'")
    return str(p)


def _line_of(text: str, needle: str) -> int | None:
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    return None


def _key_line(text: str, key: str, start: int | None) -> int | None:
    """The line of `key = ...` at or after line `start` (a table's header), else `start`."""
    pattern = re.compile(rf'^\s*["\']?{re.escape(key)}["\']?\s*=')
    for i, line in enumerate(text.splitlines()[(start or 1) - 1:], start or 1):
        if pattern.match(line):
            return i
    return start


def _key_given_twice(text: str) -> tuple[str, int] | None:
    """The first `key = ...` line that repeats a key of its table, with its line, else None."""
    seen: set[str] = set()
    for i, line in enumerate(text.splitlines(), 1):
        if re.match(r"^\s*\[", line):
            seen = set()
        elif m := re.match(r'^\s*(?:"([^"]+)"|\'([^\']+)\'|([A-Za-z0-9_-]+))\s*=', line):
            key = m.group(1) or m.group(2) or m.group(3)
            if key in seen:
                return key, i
            seen.add(key)
    return None


def _read_text(path: Path) -> str:
    return read_input(path, error=PinError)


def _parse_toml(text: str, label: str) -> dict[str, Any]:
    """The TOML as plain data: the standard library's parser (fast) when the file is valid,
    tomlkit (whose errors carry lines) to word the problem when it is not."""
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        pass
    import tomlkit  # only to word an error, or to write a lock: reading uses tomllib
    from tomlkit.exceptions import ParseError, TOMLKitError

    try:
        return dict(tomlkit.parse(text))
    except TOMLKitError as e:
        twice = _key_given_twice(text)
        if twice is not None:  # found in the text: tomlkit's wording and line vary by release
            key, line = twice
            raise PinError(f"malformed TOML: key {key!r} given twice in one table",
                           Location(label, line), "keep one of them") from None
        if isinstance(e, ParseError):
            raise PinError(f"malformed TOML: {e}", Location(label, e.line),
                           "fix the syntax") from None
        raise PinError(f"malformed TOML: {e}", Location(label, 1), "fix the syntax") from None
    except RecursionError:
        raise PinError("malformed TOML: nested too deeply", Location(label, 1),
                       "fix the syntax") from None


def load_pins(path: Path) -> dict[str, Pin]:
    """Read and validate `pins.toml`; every problem is reported with its line. A `reader pin` killed
    while it replaced pins.toml and pins.lock is completed first (both new, never one of each)."""
    finish_interrupted(path.parent)
    return parse_pins(_read_text(path), shown(path))


def parse_pins(text: str, path: str) -> dict[str, Pin]:
    """Validate the text of a pins file; `path` names it in errors (a path or `REV:pins.toml`)."""
    doc = _parse_toml(text, path)
    for key in doc:
        if key != "pins":
            raise PinError(f"unknown table or key {key!r}", Location(path, _header_line(text, key)),
                           "pins.toml holds only [pins.NAME] tables")
    table = doc.get("pins")
    if not isinstance(table, dict) or not table:
        raise PinError("no [pins.NAME] tables", Location(str(path), 1), "add one per upstream")
    pins = {}
    for name, raw in table.items():
        where = Location(str(path), _header_line(text, "pins", name))
        if not NAME_RE.match(name):
            raise PinError(f"pin name {name!r} is not lower-case letters, digits, '-' or '_'", where,
                           "rename the table, e.g. [pins.jax]")
        if not isinstance(raw, dict):
            raise PinError(f"[pins.{name}] must be a table", where,
                           "write it as a [pins.NAME] table with repo, commit and paths")
        unknown = set(raw) - PIN_KEYS
        if unknown:
            key = sorted(unknown)[0]
            raise PinError(f"unknown key {key!r} in [pins.{name}]",
                           Location(str(path), _key_line(text, key, where.line)),
                           f"known keys: {', '.join(sorted(PIN_KEYS))}")
        pins[name] = _pin_from(name, raw, text, path, where)
    return pins


def _header_line(text: str, *keys: str) -> int:
    """The line of the table `[a.b]` (or `[[a.b]]`, or the key `b = ` of an inline table), else 1."""
    dotted = r"\s*\.\s*".join(rf'["\']?{re.escape(k)}["\']?' for k in keys)
    header = re.compile(rf"^\s*\[\[?\s*{dotted}\s*\]")
    for i, line in enumerate(text.splitlines(), 1):
        if header.match(line):
            return i
    return _key_line(text, keys[-1], 1) or 1


def _pin_from(name: str, raw: dict, text: str, path: str, where: Location) -> Pin:
    def loc(key: str) -> Location:
        return Location(str(path), _key_line(text, key, where.line) if key in raw else where.line)

    for key in ("repo", "commit", "paths"):
        if key not in raw:
            raise PinError(f"[pins.{name}] lacks {key!r}", loc(key), f"add `{key} = ...` to it")
    for key in ("repo", "commit", "tag", "release", "date"):
        if key in raw and not isinstance(raw[key], str):
            raise PinError(f"{key!r} of pin {name!r} must be a string", loc(key),
                           f'quote it: {key} = "..."')
    commit = str(raw["commit"])
    if not SHA_RE.match(commit):
        raise PinError(f"commit {commit!r} of pin {name!r} is not a full 40-hex sha",
                       loc("commit"), "write the full lower-case sha; keep a tag in 'tag'")
    paths = raw["paths"]
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        raise PinError(f"'paths' of pin {name!r} must be a non-empty list of strings", loc("paths"),
                       'write e.g. paths = ["jax/_src/pallas"]')
    context = raw.get("context", [])
    if not isinstance(context, list) or not all(isinstance(p, str) for p in context):
        raise PinError(f"'context' of pin {name!r} must be a list of strings", loc("context"),
                       'write e.g. context = ["jax/_src/core.py"]')
    release = str(raw.get("release", ""))
    paths_at, context_at = loc("paths"), loc("context")  # once: a paths list may name 900 files
    if release and not RELEASE_RE.match(release):
        raise PinError(f"release {release!r} is not 'name==version'", loc("release"),
                       'write e.g. release = "jax==0.10.2"')
    return Pin(
        name=name,
        repo=check_url(str(raw["repo"]), loc("repo")),
        commit=commit,
        paths=tuple(check_rel_path(str(p), paths_at) for p in paths),
        release=release,
        tag=str(raw.get("tag", "")),
        date=str(raw.get("date", "")),
        where=where,
        history=_history(name, raw.get("history", []), release, loc("history")),
        context=tuple(check_rel_path(str(p), context_at) for p in context),
    )


def _history(name: str, raw: Any, release: str, where: Location) -> tuple[str, ...]:
    """A pin's `history`: releases of the pin's own package, each `name==version` once."""
    if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
        raise PinError(f"'history' of pin {name!r} must be a list of strings", where,
                       'write e.g. history = ["jax==0.10.1", "jax==0.10.2"]')
    package = release.split("==")[0]
    for spec in raw:
        if not RELEASE_RE.match(spec) or (package and spec.split("==")[0] != package):
            raise PinError(f"history release {spec!r} of pin {name!r} is not "
                           f"'{package or 'name'}==version'", where,
                           f'write e.g. "{package or "jax"}==0.10.2"')
    if len(set(raw)) != len(raw):
        raise PinError(f"'history' of pin {name!r} names a release twice", where, "keep one of them")
    return tuple(raw)


def load_lock(path: Path, pins: dict[str, Pin]) -> dict[str, LockEntry]:
    """Read `pins.lock`; it must cover every pin at the pinned commit."""
    return parse_lock(_read_text(path), shown(path), pins)


def parse_lock(text: str, path: str, pins: dict[str, Pin]) -> dict[str, LockEntry]:
    """Validate the text of a lock against `pins`; `path` names it in errors."""
    doc = _parse_toml(text, path)
    locks = {}
    for name, raw in doc.items():
        where = Location(str(path), _header_line(text, name))
        if name not in pins:
            raise PinError(f"lock entry {name!r} names no pin in pins.toml", where,
                           "run 'reader lock' to rewrite the lock")
        if not isinstance(raw, dict) or not isinstance(raw.get("files"), dict):
            raise PinError(f"lock entry {name!r} lacks a [{name}.files] table", where,
                           "run 'reader lock' to rewrite the lock")
        files = _lock_files(raw["files"], pins[name], text, path)
        locks[name] = LockEntry(name, str(raw.get("commit", "")), files, str(raw.get("source", "")))
    for name, pin in pins.items():
        if name not in locks:
            raise PinError(f"pin {name!r} is not in the lock", Location(str(path), 1),
                           "run 'reader lock'")
        if locks[name].commit != pin.commit:
            raise PinError(f"the lock of {name!r} is for {locks[name].commit[:12]!r}, the pin is "
                           f"{pin.short!r}", Location(str(path), _header_line(text, name)),
                           "run 'reader lock' after moving a pin")
    return locks


def _lock_files(table: dict, pin: Pin, text: str, path: str) -> dict[str, str]:
    files = {}
    for rel, blob in table.items():
        if not isinstance(blob, str) or not SHA_RE.match(blob):
            raise PinError(f"blob sha of {rel!r} is not 40 hex digits", _file_line(text, path, rel),
                           "run 'reader lock'")
        try:
            safe = check_rel_path(rel)
        except PinError as e:
            raise PinError(e.message, _file_line(text, path, rel), e.hint) from None
        if not pin.covers(safe):
            raise PinError(f"{rel!r} is outside the paths of pin {pin.name!r} "
                           f"({', '.join(pin.paths)})", _file_line(text, path, rel),
                           "run 'reader lock' to rewrite the lock")
        files[safe] = blob
    return files


def _file_line(text: str, path: str, rel: str) -> Location:
    """Where the lock names `rel` (found only for an error: a scan of the text per file)."""
    return Location(str(path), _line_of(text, f'"{rel}"') or _line_of(text, rel))


def dump_lock(locks: dict[str, LockEntry]) -> str:
    """The text of `pins.lock`, sorted so that it diffs well."""
    import tomlkit

    doc = tomlkit.document()
    doc.add(tomlkit.comment("Written by `reader lock` / `reader pin`: the git blob sha of every pinned .py file."))
    for name in sorted(locks):
        entry = locks[name]
        t = tomlkit.table()
        t.add("commit", entry.commit)
        if entry.source:
            t.add("source", entry.source)
        files = tomlkit.table()
        for rel in sorted(entry.files):
            files.add(rel, entry.files[rel])
        t.add("files", files)
        doc.add(name, t)
    return tomlkit.dumps(doc)


@dataclass(frozen=True)
class Listing:
    """A `git ls-tree -r -l` listing as in `shared/upstream/*.tsv`."""

    repo: str
    commit: str
    tree: str
    date: str
    release: str
    blobs: dict[str, str]


def read_listing(path: Path) -> Listing:
    lines = path.read_text().splitlines()
    head = dict(re.findall(r"(\w+): (\S+)", lines[0]))
    blobs = {}
    for line in lines[3:]:
        mode, kind, sha, _size, rel = line.split("\t")
        if kind == "blob" and mode != "120000":  # a symbolic link's blob is a path, not code
            blobs[rel] = sha
    return Listing(head.get("repo", ""), head["commit"], head.get("tree", ""), head.get("date", ""),
                   head.get("release", ""), blobs)
