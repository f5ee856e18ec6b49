"""Patching a built site instead of running mkdocs: when what changed is only some pages' HTML
(the code and notes put in a page's slot), those pages are written into the site.

mkdocs never reads a page's HTML: it renders the page's Markdown into the theme's layout with a
slot, and the plugin puts the HTML there afterwards (`reader.mkdocs_plugin`). So the layout, the
sitemap and every other page depend only on the pages' titles and Markdown, the
nav, the assets, the configuration and the theme, and on a page's HTML only through its table of
contents. A full build records, beside the site (`.site.state`), where each page's HTML sits in
its output file and a digest of all the rest (`SiteState`); the next build, when nothing but
pages' HTML changed and their tables of contents did not, swaps the new HTML in at those offsets
(`plan`, `patched`): the bytes a full build writes. Anything else runs mkdocs.

The state names the site folder it describes by its inode: it is written before the swap, so a
build killed before or after it, or a site replaced by other means, is never patched from it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from reader.atomic import atomic_write
from reader.packed import read_part
from reader.render.common.model import SLOT, Slot
from reader.render.common.toc import toc_tokens
from reader.render.search.index import SEARCH_DIR
from reader.render.track.navigation import Generated
from reader.versions import code_version

_ENCODING = ("utf-8", "xmlcharrefreplace")
"""How mkdocs writes a page (`mkdocs.commands.build._build_page`)."""
_FORMAT = 6


class FolderId(NamedTuple):
    """A folder's device and inode: the same site folder, not another at its path."""

    device: int
    inode: int


class FileStat(NamedTuple):
    """A file's size and modification time (ns): what tells a site's files unchanged."""

    size: int
    mtime_ns: int


@dataclass(frozen=True)
class PageState:
    """One generated page of a built site: where its HTML sits in its output file."""

    dest: str
    """The output file, relative to the site (`source/pkg/core.py.html`)."""
    url: str
    source: str
    """sha1 of the page's title and Markdown: what mkdocs reads of it."""
    body: str
    """sha1 of its HTML (what the slot holds)."""
    slot: int
    """Byte offset of the HTML in the output file."""
    length: int
    """The HTML's length in bytes."""
    content: str
    """mkdocs' HTML of the Markdown, with the slot, when the page shows a table of contents
    (built from the whole HTML); '' when it hides it."""
    toc: str
    """The table of contents' tokens (repr) when the page shows one."""
    output: str
    """sha1 of the output file (the link check's key)."""
    key: str = ""
    """The page's page-cache key (`Generated.keys`), if it has one: the same key, the same HTML."""


@dataclass(frozen=True)
class SiteState:
    """What a build wrote into a site folder, and what it was built from besides the pages."""

    folder: FolderId
    """The site folder this describes."""
    files: Mapping[str, FileStat]
    """Every file of the site: (size, mtime) by relative path (a file changed by hand, added or
    removed means a full build)."""
    setup: str
    """`setup_key`: the configuration, the docs folder, the theme, reader's code, the date."""
    track: str
    docs: str
    frame: str
    """`frame_key`: the nav, the pages and their order, the assets' names."""
    assets: Mapping[str, str]
    """Each asset (a file served as it is, the search index's pieces among them) by `src_uri`:
    sha1 of its bytes."""
    html: int
    """HTML files in the site (`BuildReport.pages`)."""
    pages: Mapping[str, PageState]
    """By `src_uri`."""
    older_notes: tuple[str, ...] = ()
    """The older editions' notes for the track's author (`BuildReport.notes`): a patched build,
    which leaves those editions as they were, reports them as the full build did."""
    older_missing: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The older editions' locked files that no source served (`BuildReport.missing`), reported
    by a patched build as the full build did."""

    def digests(self) -> dict[str, str]:
        """Output file -> sha1 of its bytes, for every generated page."""
        return {p.dest: p.output for p in self.pages.values()}


@dataclass(frozen=True)
class Patch:
    """A page whose HTML changed: its state before, and the new HTML."""

    src_uri: str
    before: PageState
    html: bytes
    toc: str
    key: str = ""


@dataclass(frozen=True)
class Plan:
    """What a patch writes: pages' HTML, and assets by `src_uri` (their output file)."""

    pages: list[Patch]
    assets: dict[str, bytes]
    """By output file (an asset's is its `src_uri`)."""
    removed: tuple[str, ...] = ()
    """The search index's files the site has and the build no longer makes (`_loose`)."""


def state_path(site_dir: Path) -> Path:
    """`.site.state` beside `site/`."""
    return site_dir.parent / f".{site_dir.name}.state"


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def source_key(title: str, markdown: str) -> str:
    return _sha(f"{title}\0{markdown}".encode())


def _toc(content: str, body: str) -> str:
    return repr(toc_tokens(content.replace(SLOT, body, 1))) if content else ""


def frame_key(generated: Generated) -> str:
    """The nav, the pages in order and the assets' names but the search index's: what a patch
    cannot change (an edit may repack the index into more or fewer files, which nothing but
    search.js names: a patch adds and removes those)."""
    h = hashlib.sha1(repr(generated.nav).encode())
    for page in generated.pages:
        h.update(b"\0" + page.src_uri.encode())
    for asset in generated.assets:
        if not _loose(asset.src_uri):
            h.update(b"\1" + asset.src_uri.encode())
    return h.hexdigest()


def _loose(src_uri: str) -> bool:
    """Whether an asset is the search index's (its files come and go with a patch)."""
    return src_uri.startswith(f"{SEARCH_DIR}/")


def setup_key(root: Path, docs: str) -> str:
    """What a build reads besides the generated pages: mkdocs.yml, the docs folder (names, sizes,
    times), reader's code and the versions of mkdocs, the theme, Markdown and jinja (both in
    `code_version`: `versions.SHAPING`), the environment mkdocs.yml reads, and the build date (the
    sitemap's)."""
    h = hashlib.sha1(f"{_FORMAT}\0{code_version()}\0{sys.version_info[:2]}".encode())
    h.update((root / "mkdocs.yml").read_bytes())
    for folder, _dirs, names in sorted(os.walk(root / docs)):
        for name in sorted(names):
            st = os.stat(os.path.join(folder, name))
            h.update(f"\0{folder}/{name}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    for name in ("READER_SITE_URL", "SOURCE_DATE_EPOCH"):
        h.update(f"\0{name}={os.environ.get(name)}".encode())
    h.update(_build_date().encode())
    return h.hexdigest()


def _build_date() -> str:
    """mkdocs' build date (`mkdocs.utils.get_build_date`), without importing mkdocs."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = datetime.fromtimestamp(int(epoch), UTC) if epoch else datetime.now(UTC)
    return when.strftime("%Y-%m-%d")


def record(root: Path, folder: Path, track: str, docs: str, generated: Generated,
           slots: Mapping[str, Slot], contents: Mapping[str, str],
           digests: Mapping[str, str], older_notes: tuple[str, ...] = (),
           older_missing: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> SiteState:
    """The state of a site mkdocs just built into `folder`: `slots` (src_uri -> `Slot`) and `contents` (src_uri -> mkdocs' HTML, for pages with a toc) from
    the plugin, `digests` (output file -> sha1) from the link check."""
    pages = {}
    for page in generated.pages:
        if page.src_uri not in slots:
            continue
        dest, url, slot = slots[page.src_uri]
        body = page.html.encode(*_ENCODING)
        content = contents.get(page.src_uri, "")
        pages[page.src_uri] = PageState(dest, url, source_key(page.title, page.markdown),
                                        _sha(body), slot, len(body), content,
                                        _toc(content, page.html), digests.get(dest, ""),
                                        generated.keys.get(page.src_uri, ""))
    st = folder.stat()
    assets = {a.src_uri: _sha(a.data) for a in generated.assets}
    return SiteState(FolderId(st.st_dev, st.st_ino), listing(folder), setup_key(root, docs), track, docs,
                     frame_key(generated), assets,
                     sum(1 for name in digests if name.endswith(".html")), pages, older_notes,
                     older_missing)


def save(site_dir: Path, state: SiteState) -> None:
    atomic_write(state_path(site_dir), pickle.dumps(state, pickle.HIGHEST_PROTOCOL), durable=False)


def load(root: Path, site_dir: Path) -> SiteState | None:
    """The state of the site in `site_dir`, if it was recorded for that folder and the site's
    setup (`setup_key`) is unchanged; else None (a full build)."""
    try:
        state = pickle.loads(state_path(site_dir).read_bytes())
        st = site_dir.stat()
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError):
        return None
    if not isinstance(state, SiteState) or state.folder != FolderId(st.st_dev, st.st_ino):
        return None
    try:
        same = state.setup == setup_key(root, state.docs) and state.files == listing(site_dir)
    except OSError:
        return None
    return state if same else None


def listing(folder: Path) -> dict[str, FileStat]:
    """The size and mtime of every file under `folder`, by relative path."""
    out: dict[str, FileStat] = {}
    todo = [("", str(folder))]
    while todo:
        prefix, where = todo.pop()
        with os.scandir(where) as entries:
            for entry in entries:
                if entry.is_dir():  # os.walk's way: a link to a folder is neither listed nor entered
                    if not entry.is_symlink():
                        todo.append((f"{prefix}{entry.name}/", entry.path))
                else:
                    st = entry.stat()
                    out[prefix + entry.name] = FileStat(st.st_size, st.st_mtime_ns)
    return out


def plan(state: SiteState, generated: Generated) -> Plan | None:
    """The pages and assets to patch for `generated`, or None when a patch cannot give what
    mkdocs would: the nav or the set of pages or assets changed, a page's title or Markdown, a
    table of contents, or an HTML asset or a page's part (the link check reads those)."""
    if generated.failures or frame_key(generated) != state.frame:
        return None
    assets = {a.src_uri: a.data for a in generated.assets
              if state.assets.get(a.src_uri) != _sha(a.data)}
    made = {a.src_uri for a in generated.assets}
    removed = tuple(sorted(name for name in state.assets if name not in made))
    if any(name.endswith((".html", ".htm", ".md")) or read_part(data) is not None
           for name, data in assets.items()):
        return None
    out = []
    for page in generated.pages:
        before = state.pages.get(page.src_uri)
        if before is None or before.source != source_key(page.title, page.markdown):
            return None
        key = generated.keys.get(page.src_uri, "")
        if key and key == before.key:
            continue
        body = page.html.encode(*_ENCODING)
        if _sha(body) == before.body:
            continue
        toc = _toc(before.content, page.html)
        if toc != before.toc:
            return None
        out.append(Patch(page.src_uri, before, body, toc, key))
    return Plan(out, assets, removed)


def patched(site_dir: Path, patch: Patch) -> bytes | None:
    """The page's new output file: its old one with the new HTML at the slot; None when the old
    file is not what the state recorded, or its HTML is not at the slot (a plugin after
    reader's changed the output)."""
    old = (site_dir / patch.before.dest).read_bytes()
    start, end = patch.before.slot, patch.before.slot + patch.before.length
    if _sha(old) != patch.before.output or _sha(old[start:end]) != patch.before.body:
        return None
    return old[:start] + patch.html + old[end:]


def after(state: SiteState, folder: Path, generated: Generated, todo: Plan,
          outputs: Mapping[str, bytes], files: Mapping[str, FileStat]) -> SiteState:
    """The state of `folder` once `todo` is written (`outputs`: the pages' files -> bytes;
    `files`: the folder's listing then)."""
    pages = dict(state.pages)
    for p in todo.pages:
        pages[p.src_uri] = replace(p.before, body=_sha(p.html), length=len(p.html), toc=p.toc,
                                   output=_sha(outputs[p.before.dest]), key=p.key)
    kept = {name: sha for name, sha in state.assets.items() if name not in todo.removed}
    assets = {**kept, **{name: _sha(data) for name, data in todo.assets.items()}}
    st = folder.stat()
    return replace(state, folder=FolderId(st.st_dev, st.st_ino), files=files, pages=pages, assets=assets)


def write(site_dir: Path, state: SiteState, generated: Generated, todo: Plan,
          outputs: Mapping[str, bytes]) -> None:
    """`todo` written into the site itself, each file replaced by a rename, and its state saved.
    The old state is removed first: a build killed among the writes leaves a site that no state
    describes, which the next build builds in full."""
    state_path(site_dir).unlink(missing_ok=True)
    files = dict(state.files)
    for dest, data in {**todo.assets, **outputs}.items():
        atomic_write(site_dir / dest, data, durable=False)
        st = os.stat(site_dir / dest)
        files[dest] = FileStat(st.st_size, st.st_mtime_ns)
    for dest in todo.removed:
        (site_dir / dest).unlink(missing_ok=True)
        files.pop(dest, None)
    save(site_dir, after(state, site_dir, generated, todo, outputs, files))


def link_copy(site_dir: Path, fresh: Path) -> None:
    """`fresh` as a copy of the site made of hard links (a patched file is replaced, not written
    through its link); a plain copy where the file system has no links."""
    for folder, dirs, names in os.walk(site_dir):
        rel = Path(folder).relative_to(site_dir)
        for d in dirs:
            (fresh / rel / d).mkdir()
        for name in names:
            src, dst = Path(folder, name), fresh / rel / name
            try:
                os.link(src, dst)
            except OSError:
                dst.write_bytes(src.read_bytes())

