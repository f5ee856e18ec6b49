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
from reader.atomic import atomic_write_all
from reader.cache import Cache, blob_sha
from reader.errors import ReaderError
from reader.pins import LockEntry, load_lock, load_pins
from reader.review.anchoring import Refusal, accepted, reanchored
from reader.review.model import Review, Screen

ACTIONS = ("accept", "edit", "reanchor")
MAX_BODY = 64 * 1024
"""The longest note body the review writes (characters)."""
MAX_NOTES = 5000
"""The most notes one Accept names."""

CONFLICT, REFUSED = 409, 422


@dataclass(frozen=True)
class Action:
    """What the page asks: an action on a note, as the screen with `digest` showed it; or Accept
    on several notes at once (`notes`: the moved ones, whose code is unchanged), each as the
    review last read its file."""

    kind: str
    note: str
    digest: str
    body: str = ""
    lines: tuple[int, int] | None = None
    notes: tuple[str, ...] = ()


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
    kind, note, digest = data.get("action"), data.get("note", ""), data.get("digest", "")
    if kind not in ACTIONS:
        raise ValueError(f"`action` must be one of {', '.join(ACTIONS)}")
    notes = data.get("notes", [])
    if kind == "accept" and notes:
        if not (isinstance(notes, list) and all(isinstance(n, str) for n in notes)
                and len(notes) <= MAX_NOTES):
            raise ValueError(f"`notes` must be a list of at most {MAX_NOTES} note ids")
        return Action(kind, "", "", notes=tuple(dict.fromkeys(notes)))
    if not isinstance(note, str) or not note or not isinstance(digest, str):
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
        by_id = {s.id: s for s in review.screens}
        wanted = action.notes or (action.note,)
        missing = [n for n in wanted if n not in by_id]
        if missing:
            return Done(CONFLICT, f"note {missing[0]!r} is not under review now; reload")
        with self._lock:
            try:
                return self._act([by_id[n] for n in wanted], action)
            except Refusal as e:
                return Done(REFUSED, str(e))
            except ReaderError as e:
                return Done(CONFLICT, str(e))

    def _act(self, screens: list[Screen], action: Action) -> Done:
        """The action on every screen's note, their files written together (all or none)."""
        by_file: dict[str, list[Screen]] = {}
        for screen in screens:
            by_file.setdefault(screen.file, []).append(screen)
        files: dict[Path, bytes] = {}
        lines: dict[str, int] = {}
        pins = load_pins(self.root / "pins.toml")
        lock = load_lock(self.root / "pins.lock", pins)
        for file, group in by_file.items():
            path = self._file(file)
            data = path.read_bytes()
            now = blob_sha(data)
            shown = action.digest if not action.notes else group[0].digest
            if now != shown and now not in self._ours.get(path, set()):
                return Done(CONFLICT, f"{file} changed on disk since the review read it; the "
                                      "review is read-only until reader serve has read it again")
            notes = self._notes(path, file)
            edits = {}
            for screen in group:
                note = self._note(notes, screen)
                edits[screen.index], lines[screen.id] = self._changes(
                    note, action, self._new_text(screen, lock))
            files[path] = edit_notes(data.decode("utf-8"), edits, file).encode("utf-8")
        atomic_write_all(files)
        for path, out in files.items():
            self._ours.setdefault(path, set()).add(blob_sha(out))
        if action.notes:
            n = len(screens)
            return Done(200, f"accepted {n} note{'' if n == 1 else 's'} in {len(files)} "
                             f"file{'' if len(files) == 1 else 's'}")
        screen, [out] = screens[0], files.values()
        said = {"accept": "accepted", "edit": "saved", "reanchor": "re-anchored"}[action.kind]
        line = lines[screen.id]
        where = f"line {line}" if line else "still flagged: its code does not anchor it"
        return Done(200, f"{said} {screen.id} ({screen.file}; {where})", blob_sha(out))

    @staticmethod
    def _changes(note: Note, action: Action, new_text: str) -> tuple[dict[str, Any], int]:
        """The note's keys to write, and the line it is stamped at (0: not stamped)."""
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
                return changes, 0  # the words are saved; the note stays flagged
        changes.update(Stamp(fingerprint, line).edit(), review=DELETE)
        return changes, line

    def _file(self, display: str) -> Path:
        """An annotation file of the project (nothing else is ever written)."""
        path = (self.root / display).resolve()
        if path.parent != self.root / ANNOTATIONS_DIR or path.suffix != ".yaml":
            raise Refusal(f"{display} is not an annotation file")
        return path

    def _notes(self, path: Path, display: str) -> tuple[Note, ...]:
        loaded = load_file(path, display, self.root)
        if loaded.problems or loaded.article is None:
            first = loaded.problems[0] if loaded.problems else None
            raise Refusal(f"{display} does not load ({first}); fix it first")
        return loaded.article.notes

    def _note(self, notes: tuple[Note, ...], screen: Screen) -> Note:
        if screen.index >= len(notes) or notes[screen.index].id != screen.id:
            raise Refusal(f"note {screen.id!r} is no longer note {screen.index + 1} of "
                          f"{screen.file}; reload")
        return notes[screen.index]

    def _new_text(self, screen: Screen, lock: dict[str, LockEntry]) -> str:
        """The note's file at the pins on disk now (`lock`: they must be those the review
        showed)."""
        if screen.new is None:
            raise Refusal(f"the new pins have no {screen.old.path if screen.old else 'file'} for "
                          f"note {screen.id!r}; move it by hand")
        entry = lock.get(screen.new.pin)
        if entry is None or entry.files.get(screen.new.path) != screen.new.blob:
            raise Refusal("the pins changed since the review read them; reload")
        data = self.cache.get_blob(screen.new.blob)
        if data is None:
            raise Refusal(f"{screen.new.path} is not in the cache; run 'reader fetch'")
        return data.decode("utf-8")
