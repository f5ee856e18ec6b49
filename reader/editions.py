"""The site's editions: the current track at the site's root, and the track as it was before each
recorded pin move (`moves/*.json`) under a folder named for the release it read (`0.10.2/`), with
the version switcher and the older edition's banner that every page of the site carries."""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from reader.cache import Cache, atomic_write
from reader.errors import GitError, InputError, Location
from reader.move.record import MoveRecord
from reader.pins import Pin, load_pins
from reader.render.changes.page import load_moves

EDITION_FILES = ("pins.toml", "pins.lock", "track.yaml")
EDITION_FOLDERS = ("annotations",)
"""What an older edition reads from the project's git history; its labs are the current ones."""

VERSIONS_JSON = "versions.json"


@dataclass(frozen=True)
class Edition:
    """One edition of the track: its version (the first pin's release), its title and where it lives."""

    version: str
    title: str
    folder: str
    """"" for the current edition, else `<version>/` under the site's root."""
    rev: str = ""
    """The project commit an older edition is read from ("" for the current one)."""


def _title(pins: list[tuple[str, str, str]]) -> str:
    """'jax 0.10.2 · tokamax 0.0.12' from (name, release, commit) of each pin."""
    return " · ".join(release.replace("==", " ") if release else f"{name} {commit[:7]}"
                      for name, release, commit in pins)


def current_edition(pins: Mapping[str, Pin]) -> Edition:
    """The edition at the pins: named for the first pin's release, else its commit."""
    first = next(iter(pins.values()), None)
    version = (first.dist_version or first.short) if first is not None else "current"
    return Edition(version, _title([(n, p.release, p.commit) for n, p in pins.items()]), "")


def older_edition(record: MoveRecord) -> Edition:
    """The edition before a move: named for the first pin's old release (`jax==0.10.2` -> 0.10.2),
    else its old commit."""
    first = record.pins[0] if record.pins else None
    version = "" if first is None else (first.old_release.partition("==")[2] or first.old[:7])
    version = version or record.old_rev[:7]
    return Edition(version, _title([(p.name, p.old_release, p.old) for p in record.pins]),
                   f"{version}/", record.old_rev)


def editions(root: Path) -> tuple[Edition, ...]:
    """The current edition, then the older ones, newest move first (one per version)."""
    out = [current_edition(load_pins(root / "pins.toml"))]
    for _stem, record in reversed(load_moves(root)):
        older = older_edition(record)
        if all(e.version != older.version for e in out):
            out.append(older)
    return tuple(out)


def checkout(root: Path, edition: Edition, cache: Cache) -> Path:
    """The project as it was at `edition.rev` (pins, lock, outline, annotations: read through
    git), written under the cache's `editions/<rev>/` once; its labs are left to the current edition."""
    from reader import gitio  # GitPython: only when there is an older edition

    folder = cache.root / "editions" / edition.rev
    done = folder / ".complete"
    if done.is_file():
        return folder
    try:
        texts = {name: gitio.show_at(root, edition.rev, root / name) for name in EDITION_FILES}
        for sub in EDITION_FOLDERS:
            texts |= {f"{sub}/{name}": text
                      for name, text in gitio.folder_at(root, edition.rev, root / sub).items()
                      if name.endswith(".yaml")}
    except GitError as e:
        raise InputError(f"the edition {edition.version} cannot be read from commit "
                         f"{edition.rev[:12]}: {e.message}", Location("moves"),
                         "build from a git checkout that has the commit the move record names") from None
    for rel, text in texts.items():
        atomic_write(folder / rel, text.encode("utf-8"), durable=False)
    atomic_write(done, edition.rev.encode(), durable=False)
    return folder


def versions_json(all_editions: tuple[Edition, ...]) -> bytes:
    """mike's `versions.json`: [{"version", "title", "aliases"}], the current edition first."""
    rows = [{"version": e.version, "title": e.title, "aliases": [] if e.folder else ["latest"]}
            for e in all_editions]
    return json.dumps(rows, indent=1).encode()


@dataclass(frozen=True)
class Switcher:
    """What the pages of one edition carry: the version switcher (material's `md-version` markup)
    opening the same page in each other edition (its home when it lacks the page) and, on an older
    edition, a banner saying so, with the same page in the current edition."""

    here: Edition
    editions: tuple[Edition, ...]
    pages: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Edition version -> the output paths (`articles/x.html`) of its pages."""
    renamed: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Edition version -> {the outline's path for an article: its path in that edition}, where an
    article's file was named otherwise than the outline's slug (`Generated.renamed`)."""

    def href(self, url: str, to: Edition) -> str:
        """From page `url` of this edition to the same page of `to` (or `to`'s home); an article
        renamed between them is the same page, found through the outline's name for it."""
        target = url if to == self.here else self._same(url, to)
        start = posixpath.dirname(self.here.folder + url) or "."
        return posixpath.relpath(to.folder + target, start)

    def _same(self, url: str, to: Edition) -> str:
        outline = {v: k for k, v in self.renamed.get(self.here.version, {}).items()}.get(url, url)
        target = self.renamed.get(to.version, {}).get(outline, outline)
        return target if target in self.pages.get(to.version, ()) else "index.html"

    def selector(self, url: str) -> str:
        items = "".join(
            f'<li class="md-version__item"><a href="{html.escape(self.href(url, e))}" '
            f'class="md-version__link{" rd-edition-here" if e == self.here else ""}" '
            f'title="{html.escape(e.title)}">{html.escape(e.version)}'
            f'{" (current)" if not e.folder else ""}</a></li>'
            for e in self.editions)
        return (f'<div class="md-version rd-editions"><button class="md-version__current" '
                f'aria-label="Edition {html.escape(self.here.version)}: choose another" '
                f'title="{html.escape(self.here.title)}">'
                f'{html.escape(self.here.version)}</button>'
                f'<ul class="md-version__list">{items}</ul></div>')

    def banner(self, url: str) -> str:
        """The older edition's notice ("" on the current edition)."""
        if not self.here.folder:
            return ""
        now = self.editions[0]
        return (f'<aside class="md-banner rd-edition-banner"><div class="md-banner__inner md-grid '
                f'md-typeset">An older edition: the track as it read {html.escape(self.here.title)}, '
                f'before the move to {html.escape(now.title)}. '
                f'<a href="{html.escape(self.href(url, now))}">This page in the current edition</a>. '
                f'Its labs are the current edition\'s (this edition runs none of its own).'
                f'</div></aside>')

    def mark(self, output: str, url: str) -> str:
        """`output` (a page of this edition at `url`) with the switcher in its header and the banner
        above it."""
        output = _TOPIC.sub(lambda m: m.group(0) + self.selector(url), output, count=1)
        banner = self.banner(url)
        return output.replace('<header class="md-header', banner + '<header class="md-header', 1) \
            if banner else output


_TOPIC = re.compile(r'<div class="md-header__topic">\s*<span class="md-ellipsis">.*?</span>', re.S)
