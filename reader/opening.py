"""`reader build`'s first step, at the command's end of the build: the project opened once
(`open_project`): each older edition's project read from the project's git history into the cache
(`checkout`), every edition's files fetched where the cache lacks them; the earlier releases'
archives (`releases.Archives`) and the project's git history (`GitHistory`) handed down as sources.
The stages below receive what this opened: none of them reads git, fetches or asks the package index."""

from __future__ import annotations

from pathlib import Path

from reader.atomic import atomic_write
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.editions.listing import Edition, editions
from reader.editions.opened import OpenEdition, OpenedProject
from reader.errors import GitError, InputError, Location
from reader.pins import LockEntry, Pin
from reader.progress import unsaid
from reader.releases import Archives

EDITION_FILES = ("pins.toml", "pins.lock", "track.yaml")
EDITION_FOLDERS = ("annotations",)
"""What an older edition reads from the project's git history; its labs are the current ones."""


def open_project(root: Path, cache: Cache) -> OpenedProject:
    """Open every edition of the project at `root` once: its pins and lock read, its files fetched
    where the cache lacks them and each cached blob verified; quietly (a file an edition's sources
    lack is named by the build's report)."""
    listed = editions(root)
    folders = [root, *(checkout(root, e, cache) for e in listed[1:])]
    with unsaid():
        opened = tuple(OpenEdition(edition, Corpus.open(Project.load(folder), cache, verify=True))
                       for edition, folder in zip(listed, folders, strict=True))
    return OpenedProject(opened, Archives(root, cache), GitHistory(root, cache))


class GitHistory:
    """The project's own git history (`editions.opened.ProjectHistory`): an older edition's project
    as committed, pins and lock at a revision."""

    def __init__(self, root: Path, cache: Cache) -> None:
        self.root, self.cache = root, cache

    def checkout(self, edition: Edition) -> Path:
        return checkout(self.root, edition, self.cache)

    def side(self, spec: str) -> tuple[dict[str, Pin], dict[str, LockEntry]]:
        from reader.move.sides import load_side

        side = load_side(self.root, spec)
        return side.pins, side.locks


def checkout(root: Path, edition: Edition, cache: Cache) -> Path:
    """The project as it was at `edition.rev` (pins, lock, outline, annotations: read through
    git), written under the cache's `editions/<rev>/` once; its labs are left to the current edition."""
    folder = cache.root / "editions" / edition.rev
    done = folder / ".complete"
    if done.is_file():
        return folder
    # GitPython (0.1 s to import, and a `git version` run): only for an edition not checked out yet
    from reader import gitio

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


def older_corpora(root: Path, cache: Cache) -> list[Corpus]:
    """Each older edition's pinned files (its project as `checkout` reads it), newest move first;
    opened quietly (a file an edition's sources lack is its own build's to name)."""
    with unsaid():
        return [Corpus.open(Project.load(checkout(root, e, cache)), cache) for e in editions(root)[1:]]
