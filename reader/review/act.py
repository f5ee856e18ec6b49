"""The review's writes: Accept, Edit and Re-anchor on one note of one annotation file, through the
journaled writer, and nothing else. A file that changed on disk since the review read it (by
anything but the review's own writes) is refused: the review goes read-only until reader serve
has read the files again."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reader.annotations.accept import DELETE, Stamp, edit_notes
from reader.annotations.load import ANNOTATIONS_DIR, load_file
from reader.annotations.model import Note
from reader.cache import Cache, atomic_write_all, blob_sha
from reader.errors import ReaderError
from reader.pins import load_lock, load_pins
from reader.review.anchoring import Refusal, accepted, reanchored
from reader.review.model import Review, Screen

ACTIONS = ("accept", "edit", "reanchor")
MAX_BODY = 64 * 1024
"""The longest note body the review writes (characters)."""

CONFLICT, REFUSED = 409, 422


@dataclass(frozen=True)
class Action:
    """What the page asks: an action on a note, as the screen with `digest` showed it."""

    kind: str
    note: str
    digest: str
    body: str = ""
    lines: tuple[int, int] | None = None


@dataclass(frozen=True)
class Done:
    """The answer: an HTTP status, a sentence, and the file's digest after a write."""

    status: int
    message: str
    digest: str = ""


def parse_action(data: Any) -> Action:
    """The `Action` of a request's JSON body; ValueError names what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("the body must be a JSON object")
    kind, note, digest = data.get("action"), data.get("note"), data.get("digest")
    if kind not in ACTIONS:
        raise ValueError(f"`action` must be one of {', '.join(ACTIONS)}")
    if not isinstance(note, str) or not isinstance(digest, str):
        raise ValueError("`note` and `digest` must be strings")
    body = data.get("body", "")
    if kind == "edit" and (not isinstance(body, str) or not body.strip() or len(body) > MAX_BODY):
        raise ValueError(f"`body` must be a text of 1 to {MAX_BODY} characters")
    lines = data.get("lines")
    if kind == "reanchor":
        if not (isinstance(lines, list) and len(lines) == 2 and all(type(n) is int for n in lines)
                and 1 <= lines[0] <= lines[1]):
            raise ValueError("`lines` must be [first, last], line numbers of the new code")
        return Action(kind, note, digest, lines=(lines[0], lines[1]))
    return Action(kind, note, digest, body if kind == "edit" else "")


class Desk:
    """Where the review writes: the project's annotation files, one action at a time."""

    def __init__(self, root: Path, cache: Cache | None = None):
        self.root = root.resolve()
        self.cache = cache or Cache()
        self._lock = threading.Lock()
        self._ours: dict[Path, set[str]] = {}
        """Per file, the digests the review's own writes left (a screen read before them is
        still good: the review changes no note but the one it acts on)."""

    def act(self, review: Review, action: Action) -> Done:
        screen = next((s for s in review.screens if s.id == action.note), None)
        if screen is None:
            return Done(CONFLICT, f"note {action.note!r} is not under review now; reload")
        with self._lock:
            try:
                return self._act(screen, action)
            except Refusal as e:
                return Done(REFUSED, str(e))
            except ReaderError as e:
                return Done(CONFLICT, str(e))

    def _act(self, screen: Screen, action: Action) -> Done:
        path = self._file(screen.file)
        data = path.read_bytes()
        now = blob_sha(data)
        if now != action.digest and now not in self._ours.get(path, set()):
            return Done(CONFLICT, f"{screen.file} changed on disk since the review read it; the "
                                  "review is read-only until reader serve has read it again")
        note = self._note(path, screen)
        new_text = self._new_text(screen)
        changes: dict[str, Any] = {}
        if action.kind == "edit":
            body = action.body.replace("\r\n", "\n").rstrip()
            changes["body"] = body + "\n" if note.body.endswith("\n") else body
        if action.kind == "reanchor":
            assert action.lines is not None
            fields, fingerprint, line = reanchored(note, new_text, *action.lines)
            changes.update(fields)
        else:
            try:
                fingerprint, line = accepted(note, new_text)
            except Refusal:
                if action.kind != "edit":
                    raise
                fingerprint, line = "", 0  # the words are saved; the note stays flagged
        if fingerprint:
            changes.update(Stamp(fingerprint, line).edit(), review=DELETE)
        out = edit_notes(data.decode("utf-8"), {screen.index: changes}, screen.file).encode("utf-8")
        atomic_write_all({path: out})
        digest = blob_sha(out)
        self._ours.setdefault(path, set()).add(digest)
        said = {"accept": "accepted", "edit": "saved", "reanchor": "re-anchored"}[action.kind]
        where = f"line {line}" if fingerprint else "still flagged: its code does not anchor it"
        return Done(200, f"{said} {screen.id} ({screen.file}; {where})", digest)

    def _file(self, display: str) -> Path:
        """An annotation file of the project (nothing else is ever written)."""
        path = (self.root / display).resolve()
        if path.parent != self.root / ANNOTATIONS_DIR or path.suffix != ".yaml":
            raise Refusal(f"{display} is not an annotation file")
        return path

    def _note(self, path: Path, screen: Screen) -> Note:
        loaded = load_file(path, screen.file, self.root)
        if loaded.problems or loaded.article is None:
            first = loaded.problems[0] if loaded.problems else None
            raise Refusal(f"{screen.file} does not load ({first}); fix it first")
        notes = loaded.article.notes
        if screen.index >= len(notes) or notes[screen.index].id != screen.id:
            raise Refusal(f"note {screen.id!r} is no longer note {screen.index + 1} of "
                          f"{screen.file}; reload")
        return notes[screen.index]

    def _new_text(self, screen: Screen) -> str:
        """The note's file at the pins on disk now (which must be those the review showed)."""
        if screen.new is None:
            raise Refusal(f"the new pins have no {screen.old.path if screen.old else 'file'} for "
                          f"note {screen.id!r}; move it by hand")
        pins = load_pins(self.root / "pins.toml")
        lock = load_lock(self.root / "pins.lock", pins)
        entry = lock.get(screen.new.pin)
        if entry is None or entry.files.get(screen.new.path) != screen.new.blob:
            raise Refusal("the pins changed since the review read them; reload")
        data = self.cache.get_blob(screen.new.blob)
        if data is None:
            raise Refusal(f"{screen.new.path} is not in the cache; run 'reader fetch'")
        return data.decode("utf-8")
