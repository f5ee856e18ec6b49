"""What the commands open, at their end of the work: for `reader build`, the project once
(`open_project`): each older edition's project read from the project's git history into the cache
(`checkout`), every edition's files fetched where the cache lacks them; the earlier releases'
archives (`releases.Archives`), the project's git history (`GitHistory`) and the child processes a
build starts (`children.Children`) handed down as sources.
For `reader diff` and serve's review, a side's pins and lock (`load_side`) and the annotations at a
commit (`articles_at`), from a file or the project's git history. The stages below receive what
these opened: none of them reads git, fetches or asks the package index."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from reader.annotations import Article, load_articles
from reader.annotations.load import ANNOTATIONS_DIR
from reader.atomic import atomic_write
from reader.cache import Cache
from reader.children import Children
from reader.corpus import Corpus, Project
from reader.editions.listing import Edition, editions
from reader.editions.opened import OpenEdition, OpenedProject
from reader.errors import GitError, InputError, Location
from reader.labs.colab import project_colab
from reader.move.sides import Side, is_rev_spec, lock_path_of
from reader.pins import LockEntry, Pin, load_lock, load_pins, parse_lock, parse_pins
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
    return OpenedProject(opened, Archives(root, cache), GitHistory(root, cache), project_colab(root, built_commits),
                         Children())


def built_commits(root: Path) -> tuple[str, str | None]:
    """The commit the checkout at `root` is at, and the newest commit of its history that a remote's
    branch holds (None: no remote's branches to tell; "": none holds one), read through git."""
    from reader import gitio  # GitPython: only for a Colab link on GitHub

    return gitio.commit_of(root, "HEAD"), gitio.pushed_commit(root)


@dataclass(frozen=True)
class GitHistory:
    """The project's own git history (`editions.opened.ProjectHistory`): an older edition's project
    as committed, pins and lock at a revision."""

    root: Path
    cache: Cache

    def checkout(self, edition: Edition) -> Path:
        return checkout(self.root, edition, self.cache)

    def side(self, spec: str) -> tuple[dict[str, Pin], dict[str, LockEntry]]:
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


def load_side(root: Path, spec: str) -> Side:
    """A side from a pins file path (its lock beside it) or `REV:path` read through git at `root`."""
    if not is_rev_spec(spec):
        path = Path(spec)
        pins = load_pins(path)
        return Side(spec, pins, load_lock(Path(lock_path_of(path)), pins))
    rev, _, rel = spec.partition(":")
    lock_rel = lock_path_of(PurePosixPath(rel))
    pins = parse_pins(_show(root, rev, rel, spec), spec)
    lock_label = f"{rev}:{lock_rel}"
    return Side(spec, pins, parse_lock(_show(root, rev, str(lock_rel), lock_label), lock_label, pins))


def _show(root: Path, rev: str, rel: str, label: str) -> str:
    from reader import gitio

    try:
        return gitio.show_at(root, rev, root / rel)
    except GitError as e:
        raise InputError(f"cannot read it from git: {e.message}", Location(label),
                         "name a pins file, or REV:pins.toml for a commit of this project that "
                         "has pins.toml and pins.lock") from None


def articles_at(root: Path, rev: str) -> list[Article]:
    """The project's articles as committed at `rev`."""
    from reader import gitio  # GitPython: only when a move is recorded (0.1 s to import)

    try:
        files = gitio.folder_at(root, rev, root / ANNOTATIONS_DIR)
    except GitError as e:
        raise InputError(f"cannot read the annotations at {rev!r}: {e.message}",
                         Location(ANNOTATIONS_DIR), "name a commit of this project") from None
    with tempfile.TemporaryDirectory(prefix="reader-history-") as tmp:
        folder = Path(tmp) / ANNOTATIONS_DIR
        folder.mkdir()
        for name, text in files.items():
            if name.endswith(".yaml"):
                (folder / name).write_text(text, encoding="utf-8")
        return load_articles(Path(tmp))
