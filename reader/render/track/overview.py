"""The pages around the reading: home (the track and its pins), phases, the source index, placeholders."""

from __future__ import annotations

import html
import posixpath
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reader.pins import Pin
from reader.render.code.annotated import page_markdown, with_prose
from reader.render.common.model import Page, TitledPage
from reader.render.common.templates import render
from reader.render.common.urls import (
    HOME,
    LABS_INDEX,
    RULES,
    SOURCE_INDEX,
    phase_page,
    rel,
    source_page,
)
from reader.track import Phase, Track

KIND_LABELS = {"article": "article", "lab": "", "source": "source"}
"""An entry's kind as its list shows it; a lab's title says so already (`LAB·1.2 · Tiled matmul`)."""


@dataclass(frozen=True)
class EntryLink:
    """An outline entry as the site resolved it: the page it links and what is missing, if anything."""

    kind: str
    title: str
    summary: str
    page: str
    missing: str = ""
    """Why the page is a placeholder ('' when the entry is written)."""


@dataclass(frozen=True)
class FileInfo:
    pin: str
    path: str
    lines: int
    notes: int = 0


def home_page(track: Track, pins: Sequence[Pin], file_counts: dict[str, int],
              has_rules: bool = False, changes: Sequence[TitledPage] = ()) -> Page:
    here = HOME
    pin_rows = [{"name": p.name, "repo": p.repo, "commit": p.commit, "tag": p.tag,
                 "commit_url": f"{p.repo.removesuffix('.git')}/tree/{p.commit}", "release": p.release,
                 "date": p.date, "files": file_counts.get(p.name, 0),
                 "files_href": rel(here, SOURCE_INDEX, f"pin-{p.name}")} for p in pins]
    phases = [{"title": ph.title, "summary": ph.summary, "href": rel(here, phase_page(ph.number))}
              for ph in track.phases]
    moves = [{"title": c.title, "href": rel(here, c.page)} for c in changes]
    body = render("home.j2", track=track, pins=pin_rows, phases=phases, rules_href=rel(here, RULES) if has_rules else "",
                  labs_href=rel(here, LABS_INDEX), source_href=rel(here, SOURCE_INDEX), moves=moves)
    return Page(HOME, track.title, page_markdown(track.title), with_prose(body, f"<p>{_esc(track.summary)}</p>"))


def phase_title(phase: Phase) -> str:
    return f"{phase.number} · {phase.title}"


def phase_overview(phase: Phase, entries: Sequence[EntryLink]) -> Page:
    here = phase_page(phase.number)
    rows = [{"kind": e.kind, "label": KIND_LABELS[e.kind], "title": e.title, "summary": e.summary,
             "href": rel(here, e.page), "missing": e.missing} for e in entries]
    body = render("phase.j2", entries=rows)
    title = f"Phase {phase_title(phase)}"
    return Page(here, title, page_markdown(title), with_prose(body, f"<p>{_esc(phase.summary)}</p>"))


def placeholder_page(src_uri: str, title: str, summary: str, missing: str, phase: Phase) -> Page:
    body = render("placeholder.j2", summary=summary, missing=missing, phase_number=phase.number,
                  phase_title=phase.title, phase_href=rel(src_uri, phase_page(phase.number)))
    return Page(src_uri, title, page_markdown(title), with_prose(body, f"<p>{_esc(summary)}</p>" if summary else ""))


def labs_index(labs: Sequence[EntryLink]) -> Page:
    here = LABS_INDEX
    rows = [{"kind": e.kind, "label": "", "title": e.title, "summary": e.summary,
             "href": rel(here, e.page), "missing": e.missing} for e in labs]
    text = ("<p>Each lab is a runnable module in <code>kernels/</code>: <code>python -m kernels.NAME</code>. "
            "<code>LAB·x.y</code> labs are the outline's, under its own numbers (its gaps too); "
            "<code>EXTRA·A</code>, <code>EXTRA·B</code>, ... are the track's own.</p>")
    body = render("phase.j2", entries=rows)
    return Page(here, "Labs", page_markdown("Labs"), with_prose(body, text))


def source_index(pins: Sequence[Pin], files: Sequence[FileInfo],
                 missing: Mapping[str, Sequence[str]] | None = None) -> Page:
    """Every pinned file by pin and folder; `missing`: per pin, the locked files no source served."""
    here = SOURCE_INDEX
    pinned = {p.name: p for p in pins}
    # (pin, whether the file is the pin's `context`) -> folder -> its files
    by_pin: dict[tuple[str, bool], dict[str, list[dict[str, object]]]] = defaultdict(lambda: defaultdict(list))
    for f in files:
        context = f.pin in pinned and pinned[f.pin].in_context(f.path)
        by_pin[f.pin, context][posixpath.dirname(f.path)].append(
            {"name": posixpath.basename(f.path), "href": rel(here, source_page(f.path)),
             "lines": f.lines, "notes": f.notes})
    rows = [{"name": p.name, "short": p.short, "release": p.release,
             "files": [f for f in files if f.pin == p.name and not p.in_context(f.path)],
             "missing": (missing or {}).get(p.name, ()),
             "folders": sorted(by_pin[p.name, False].items()), "context": sorted(by_pin[p.name, True].items()),
             "context_count": sum(len(fs) for fs in by_pin[p.name, True].values())} for p in pins]
    body = render("source_index.j2", pins=rows)
    text = "<p>Every pinned source file, highlighted, linked and annotated.</p>"
    return Page(here, "Source files", page_markdown("Source files"), with_prose(body, text))


def _esc(text: str) -> str:
    return html.escape(text, quote=False)
