"""A note's words as its page renders them: the body of `#note-ID` read from the built article
page (the site's sanitised HTML, so the review shows exactly what a reader sees)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

BODY_CLASS = "rd-note-body"


class _Bodies(HTMLParser):
    """The inner HTML of each note's body on a page: note id -> HTML."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=False)
        self.text = text
        self._starts = [0]
        for line in text.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(line))
        self.found: dict[str, str] = {}
        self._note = ""
        self._depth = 0
        """Open divs inside the body being read (0: none being read)."""
        self._from = 0

    def _offset(self) -> int:
        line, col = self.getpos()
        return self._starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self._depth:
            self._depth += tag == "div"
        elif (values.get("id") or "").startswith("note-"):
            self._note = (values["id"] or "").removeprefix("note-")
        elif tag == "div" and self._note and BODY_CLASS in (values.get("class") or "").split():
            self._depth = 1
            self._from = self._offset() + len(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        if self._depth and tag == "div":
            self._depth -= 1
            if not self._depth:
                self.found.setdefault(self._note, self.text[self._from:self._offset()].strip())
                self._note = ""


def note_bodies(page: Path) -> dict[str, str]:
    """Every note's rendered body on the built page `page` (empty when the page is not there)."""
    try:
        text = page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    parser = _Bodies(text)
    parser.feed(text)
    parser.close()
    return parser.found
