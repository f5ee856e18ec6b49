"""`reader build`: mkdocs-material into a fresh folder beside `site/`, links checked, then swapped in."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from reader import editions, site_patch
from reader.annotations import load_articles
from reader.atomic import atomic_write
from reader.cache import Cache, held
from reader.editions.opened import OpenedProject
from reader.errors import BuildError, BusyError, LabError, Location, ReaderError
from reader.linkcheck import BrokenLink, Scanned, check_changed, check_links, prescan, tree_of
from reader.opening import open_project
from reader.profile import mark
from reader.progress import current, say
from reader.render.common.model import Asset, Slot
from reader.render.common.urls import html_of
from reader.render.recipe.generate import Older, generate_site
from reader.render.recipe.schedule import Started, start_slow
from reader.render.track.navigation import Generated, PageCount
from reader.workers import Workers


class StepTime(NamedTuple):
    """A step of the build and the seconds it took."""

    step: str
    seconds: float


class Counted(NamedTuple):
    """Pages of one kind a build rendered, and read back from the cache."""

    rendered: int
    cached: int


@dataclass(frozen=True)
class BuildReport:
    site: Path
    pages: int
    seconds: float
    steps: tuple[StepTime, ...] = ()
    """Generating the pages, mkdocs, the link check."""
    counts: tuple[PageCount, ...] = ()
    """`source` and `article` pages, and `layout`: pages mkdocs' theme rendered against pages
    filled into a folder's stencil."""
    pruned: tuple[str, ...] = ()
    """Code versions whose cached results this build removed."""
    failures: tuple[ReaderError, ...] = ()
    """The labs that failed (`LabError`): with `keep_going`, named on their pages and here."""
    coverage: tuple[str, ...] = ()
    """One line per lowered module shown: its ops located, linked to a line and a rule."""
    missing: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(edition, the locked files no source served) for each edition that lacks some: "" names
    the current edition, else its version."""
    notes: tuple[str, ...] = ()
    """What the build noticed for the track's author (a fact that links nowhere yet, a figure
    that could not be made), each older edition's prefixed with its version."""

    def timings(self) -> str:
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.steps)

    def count(self, kind: str) -> Counted:
        """How many pages of a kind were rendered and read back from the cache."""
        return next((Counted(r, c) for k, r, c in self.counts if k == kind), Counted(0, 0))

    def caching(self) -> str:
        return ", ".join(_counted(kind, r, c) for kind, r, c in self.counts)


def _counted(kind: str, rendered: int, cached: int) -> str:
    if kind == "layout":
        return f"theme layouts {rendered} rendered / {cached} stencilled"
    if kind == "patched":
        return f"{rendered} page(s) patched into the site (mkdocs did not run)"
    return f"{kind} pages {rendered} rendered / {cached} cached"


def build_site(root: Path, site_dir: Path | None = None, jobs: int | None = None, wait: bool = True,
               keep_going: bool = False, older: bool = True) -> BuildReport:
    """Build the site into a temporary folder next to `site_dir`, check it, and swap it in.

    A failure at any step leaves the previous `site_dir` as it was; a lab that fails is a failure
    (`LabError`) unless `keep_going`, when the site is built with the lab's page saying it failed,
    and the report names it. One build at a time writes a given `site_dir`: a second waits for
    the first (or, with `wait=False`, raises BusyError). `older=False` leaves the older editions
    out (benchmarks/run.py measures what they cost).
    """
    root = root.resolve()
    site_dir = (site_dir or root / "site").resolve()
    if not (root / "mkdocs.yml").is_file():
        raise BuildError("mkdocs.yml not found", Location(str(root / "mkdocs.yml")),
                         "run reader build from the project root (or pass -C DIR)")
    _check_site_dir(root, site_dir)
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    cache = Cache()
    with _build_lock(site_dir, wait), cache.in_use():
        recover(site_dir)
        with cache.staged():  # a failed build adds nothing to the cache
            load_articles(root, cache)  # a mistake in the YAML stops the build at once
            report = _build_locked(root, site_dir, jobs, cache, keep_going, older)
        # A failed lab fails only now: what was computed (the other labs' runs above all) is kept.
        if report.failures and not keep_going:
            raise labs_failed(report.failures)
        return replace(report, pruned=tuple(cache.prune()))


def labs_failed(failures: tuple[ReaderError, ...]) -> ReaderError:
    """One error for the failed labs: the first, with the others' places and reasons after it."""
    first, rest = failures[0], failures[1:]
    if not rest:
        return first
    more = "".join(f"\n  {e.location}: {e.message}" for e in rest)
    return LabError(f"{first.message}; and {len(rest)} more:{more}", first.location, first.hint)


def _build_locked(root: Path, site_dir: Path, jobs: int | None,
                  cache: Cache, keep_going: bool, with_older: bool = True) -> BuildReport:
    start = time.perf_counter()
    generated, steps = None, []
    project = open_project(root, cache)  # every edition's pins, lock and files: the one open
    state = site_patch.load(root, site_dir)
    if state is not None:  # the site was built from the same setup: perhaps only pages changed
        say("generating pages")
        t = time.perf_counter()
        generated = generate_site(project, state.track, jobs)
        steps.append(StepTime("pages", time.perf_counter() - t))
        todo = site_patch.plan(state, generated)
        if todo is not None:
            report = _patch(site_dir, state, generated, todo, steps, cache, jobs)
            if report is not None:
                current = (("", generated.missing),) if generated.missing else ()
                return replace(report, seconds=time.perf_counter() - start, coverage=generated.coverage,
                               notes=(*generated.warnings, *state.older_notes),
                               missing=(*current, *state.older_missing))
    fresh = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-new-", dir=site_dir.parent))
    started = None
    try:
        # The current edition's slow readers (the labs' jax run, the rule history) start first, so
        # that they run beside the older editions' pages, not after them.
        started = _start_slow(project, jobs) if with_older and generated is None else None
        t = time.perf_counter()
        older = _older_editions(project, jobs, started) if started is not None else []
        if older:
            steps.append(StepTime("older editions' pages", time.perf_counter() - t))
        everyone = tuple(e.edition for e in project.editions) if older else ()
        seen = {e.version: _outputs(g) for e, g in older}
        renamed = {e.version: _renamed(g) for e, g in older}
        switcher = editions.Switcher(everyone[0], everyone, seen, renamed) if older else None
        built = _mkdocs_build(project, fresh, jobs, keep_going, generated, switcher, started)
        steps = [*steps, *built.steps]
        scanned = dict(built.scanned)
        if built.failures and not keep_going:  # mkdocs did not run: the site stays as it was
            shutil.rmtree(fresh, ignore_errors=True)
            return BuildReport(site_dir, 0, time.perf_counter() - start, tuple(steps),
                               built.counts, failures=built.failures)
        if older and built.generated is not None:
            t = time.perf_counter()
            seen[everyone[0].version] = _outputs(built.generated)
            renamed[everyone[0].version] = _renamed(built.generated)
            for edition, its_pages in older:
                say(f"running mkdocs on the {edition.version} edition's {len(its_pages.pages)} pages")
                its = _mkdocs_build(project, fresh / edition.folder, jobs, True, its_pages,
                                    editions.Switcher(edition, everyone, seen, renamed))
                scanned.update((f"{edition.folder}{name}", found)
                               for name, found in its.scanned.items())
                (fresh / edition.folder / "404.html").unlink()  # the site's own is served from its root
            atomic_write(fresh / editions.VERSIONS_JSON, editions.versions_json(everyone), durable=False)
            steps.append(StepTime("older editions' mkdocs", time.perf_counter() - t))
        # no line of its own: the pages were scanned as mkdocs wrote them (their bars said so), and
        # a page changed since is scanned again under a bar of its own
        mark("link check")
        t = time.perf_counter()
        digests: dict[str, str] = {}
        _fail_on(check_links(fresh, cache, Workers(jobs), digests, scanned), site_dir)
        steps.append(StepTime("link check", time.perf_counter() - t))
        mark("finish")
        older_notes = tuple(f"{edition.version}: {w}" for edition, g in older for w in g.warnings)
        missing = _missing(project, with_older)
        if built.generated is not None:
            site_patch.save(site_dir, site_patch.record(root, fresh, built.track, built.docs,
                                                        built.generated, built.slots or {},
                                                        built.contents or {}, digests, older_notes,
                                                        tuple(m for m in missing if m[0])))
        pages = sum(1 for name in digests if name.endswith(".html"))
        swap_in(fresh, site_dir)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    finally:
        if started is not None:
            started.stop()
    notes = [*(built.generated.warnings if built.generated is not None else ()), *older_notes]
    return BuildReport(site_dir, pages, time.perf_counter() - start, tuple(steps), built.counts,
                       failures=built.failures,
                       coverage=built.generated.coverage if built.generated is not None else (),
                       notes=tuple(notes), missing=missing)


def _start_slow(project: OpenedProject, jobs: int | None) -> Started | None:
    """The current edition's slow readers, started now when the site has older editions (else
    the current edition's build starts them first anyway)."""
    if not project.older:
        return None
    return start_slow(project.current, project.cache, Workers(jobs), project.older_corpora(), project.releases,
                      project.children)


def _older_editions(project: OpenedProject, jobs: int | None,
                    started: Started) -> list[tuple[editions.Edition, Generated]]:
    """Each older edition's pages: its project as committed before its move, with the current labs."""
    out = []
    for opened in project.older:
        edition = opened.edition
        say(f"generating the {edition.version} edition's pages")
        older = Older(opened.corpus, tuple(started.labs), "../" * edition.folder.count("/"))
        # its search index made on a process of its own until its mkdocs (`started.stop` ends it)
        out.append((edition, generate_site(project, "track.yaml", jobs, older, later=started.workers)))
    return out


def _missing(project: OpenedProject, older: bool = True) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each edition's locked files that no source served ("" names the current edition); the
    older editions' with `older`."""
    out = []
    for opened in project.editions[:None if older else 1]:
        corpus, edition = opened.corpus, opened.edition
        paths = tuple(p for pin in sorted(corpus.pins) for p in corpus.missing(pin))
        if paths:
            out.append((edition.version if edition.folder else "", paths))
    return tuple(out)


def _outputs(generated: Generated) -> frozenset[str]:
    """The output paths of a build's generated pages (`articles/x.html`)."""
    return frozenset(html_of(p.src_uri) for p in generated.pages)


def _fail_on(problems: list[BrokenLink], site_dir: Path) -> None:
    if problems:
        shown = "\n  ".join(str(p) for p in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise BuildError(f"{len(problems)} broken internal link(s):\n  {shown}{more}",
                         Location(str(site_dir)), "fix the links; the previous site is kept")


def _patch(site_dir: Path, state: site_patch.SiteState, generated: Generated,
           todo: site_patch.Plan, steps: Steps, cache: Cache, jobs: int | None) -> BuildReport | None:
    """The site with `todo` written into it, its links checked first; None when the site is not
    what its state recorded (then mkdocs builds it). The few files are replaced in the site
    itself (`site_patch.write`), unless a page lost an id that other pages may link to: then the
    whole site is checked, on a copy of it (hard links) that is swapped in."""
    counts = (*generated.counts, PageCount("patched", len(todo.pages), 0))
    if not todo.pages and not todo.assets and not todo.removed:
        return BuildReport(site_dir, state.html, 0.0, tuple(steps), counts)
    say(f"patching {len(todo.pages)} page(s) into the site")
    mark("patch")
    t = time.perf_counter()
    outputs = {}
    for p in todo.pages:
        data = site_patch.patched(site_dir, p)
        if data is None:
            return None
        outputs[p.before.dest] = data
    steps = [*steps, StepTime("patch", time.perf_counter() - t)]
    say("checking links")
    mark("link check")
    t = time.perf_counter()
    # the site's files: those `load` found recorded, with the patch's own
    files = (set(state.files) | set(todo.assets)) - set(todo.removed)
    problems = check_changed(site_dir, outputs, state.digests(), cache, Workers(jobs), False,
                             tree_of(files))
    if problems is None:
        _patch_copy(site_dir, state, generated, todo, outputs, cache, jobs)
    else:
        _fail_on(problems, site_dir)
        site_patch.write(site_dir, state, generated, todo, outputs)
    steps.append(StepTime("link check", time.perf_counter() - t))
    mark("finish")
    return BuildReport(site_dir, state.html, 0.0, tuple(steps), counts)


def _patch_copy(site_dir: Path, state: site_patch.SiteState, generated: Generated,
                todo: site_patch.Plan, outputs: dict[str, bytes], cache: Cache,
                jobs: int | None) -> None:
    """`todo` written into a copy of the site, the whole copy's links checked, the copy swapped in."""
    fresh = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-new-", dir=site_dir.parent))
    try:
        site_patch.link_copy(site_dir, fresh)
        for dest, data in {**todo.assets, **outputs}.items():
            atomic_write(fresh / dest, data, durable=False)  # a new file, not through its link
        for dest in todo.removed:
            (fresh / dest).unlink(missing_ok=True)
        _fail_on(check_links(fresh, cache, Workers(jobs)), site_dir)
        site_patch.save(site_dir, site_patch.after(state, fresh, generated, todo, outputs,
                                                   site_patch.listing(fresh)))
        swap_in(fresh, site_dir)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise


def lock_path(site_dir: Path) -> Path:
    """The lock file of builds into `site_dir`: `.site.lock` beside `site/`."""
    return site_dir.parent / f".{site_dir.name}.lock"


@contextmanager
def _build_lock(site_dir: Path, wait: bool) -> Iterator[None]:
    def busy() -> None:
        if not wait:
            raise BusyError(f"another reader build is writing {site_dir.name}/",
                            Location(str(lock_path(site_dir))),
                            "wait for it to finish, or run without --no-wait to wait") from None
        say(f"another reader build is writing {site_dir.name}/; waiting for it to finish")

    with held(lock_path(site_dir), busy):
        yield


def recover(site_dir: Path) -> None:
    """Clean up after a build that was killed: bring back the old site if the kill fell between
    the two renames of `swap_in`, and remove leftover temporary folders. Call under the lock."""
    olds = sorted(site_dir.parent.glob(f".{site_dir.name}-old-*"), key=lambda p: p.stat().st_mtime)
    if not site_dir.exists() and olds and (olds[-1] / "site").is_dir():
        os.replace(olds[-1] / "site", site_dir)
    for leftover in [*olds, *site_dir.parent.glob(f".{site_dir.name}-new-*")]:
        shutil.rmtree(leftover, ignore_errors=True)


def _check_site_dir(root: Path, site_dir: Path) -> None:
    """Refuse a `--site` that a swap would destroy: the project, a file, a folder not a site."""
    where = Location(str(site_dir))
    if site_dir == root or site_dir in root.parents:
        raise BuildError("the site folder would replace the project itself", where,
                         "choose a folder of its own, e.g. --site site")
    if site_dir.exists() and not site_dir.is_dir():
        raise BuildError("the site folder is a file", where, "choose a folder, e.g. --site site")
    if site_dir.is_dir() and any(site_dir.iterdir()) and not is_site(site_dir):
        raise BuildError("the site folder holds files that are not a built site, which a build "
                         "would replace", where, "choose an empty or new folder, or move them away")


def is_site(folder: Path) -> bool:
    """Whether `folder` looks like a site mkdocs built (what a build may replace)."""
    return (folder / "sitemap.xml").is_file() and (folder / "404.html").is_file()


def swap_in(fresh: Path, site_dir: Path) -> None:
    """Replace `site_dir` by `fresh` with two renames; the old site is removed only afterwards."""
    old = None
    if site_dir.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}-old-", dir=site_dir.parent))
        os.replace(site_dir, old / "site")
    try:
        os.replace(fresh, site_dir)
    except BaseException:
        if old is not None:
            os.replace(old / "site", site_dir)
            old.rmdir()
        raise
    if old is not None:
        # Out of the name `recover` restores from before any of it is deleted.
        os.replace(old / "site", old / "deleting")
        shutil.rmtree(old, ignore_errors=True)


Steps = list[StepTime]
Counts = tuple[PageCount, ...]


@dataclass(frozen=True)
class _Built:
    """What `_mkdocs_build` did: (step, seconds), the counts of pages rendered and read back
    (`BuildReport.counts`), the failed labs; and what `site_patch.record` reads of the build
    (`generated` is None when mkdocs did not run)."""

    steps: Steps
    counts: Counts
    failures: tuple[ReaderError, ...]
    generated: Generated | None = None
    track: str = ""
    docs: str = ""
    slots: dict[str, Slot] | None = None
    contents: dict[str, str] | None = None
    scanned: Scanned = field(default_factory=dict)
    """The pages' links, scanned while the search index was still being made (`linkcheck.prescan`)."""


def _mkdocs_build(project: OpenedProject, out: Path, jobs: int | None, keep_going: bool = False,
                  generated: Generated | None = None,
                  switcher: editions.Switcher | None = None, started: Started | None = None) -> _Built:
    """Generate the current edition's pages (unless given), then run mkdocs with them (not when a
    lab failed, unless `keep_going`)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    from reader.mkdocs_plugin import ReaderPlugin

    root, cache = project.root, project.cache
    config_file = root / "mkdocs.yml"
    if not config_file.is_file():
        raise BuildError("mkdocs.yml not found", Location(str(config_file)),
                         "run reader build from the project root")
    _quiet_mkdocs()
    try:
        config = load_config(str(config_file), site_dir=str(out), strict=True)
        plugin = config.plugins.get("reader")
        if not isinstance(plugin, ReaderPlugin):
            raise BuildError("mkdocs.yml does not enable the 'reader' plugin", Location(str(config_file)),
                             "add '- reader' under 'plugins:'")
        steps: Steps = []
        if generated is None:
            say("generating pages")
            t = time.perf_counter()
            generated = generate_site(project, plugin.config.track, jobs, started=started,
                                      later=started.workers if started is not None else Workers(jobs))
            steps.append(StepTime("pages", time.perf_counter() - t))
        plugin.preloaded = generated
        plugin.switcher = switcher
        plugin.cache = cache  # the build's: what it keeps is staged with the rest
        if generated.failures and not keep_going:
            generated.finished()  # (its search index's process ended)
            return _Built(steps, generated.counts, generated.failures)
        if switcher is None or not switcher.here.folder:  # an older edition's line is said above
            say(f"running mkdocs on {len(generated.pages)} pages")
        mark("mkdocs")
        t = time.perf_counter()
        config.plugins.on_startup(command="build", dirty=False)
        scanned: Scanned = {}
        try:
            build(config)
            if generated.later is not None:  # the search index is still being made: the pages' links meanwhile
                scanned = prescan(out, cache, Workers(jobs))
        finally:
            config.plugins.on_shutdown()
            made, generated = generated, generated.finished()  # the search index, made beside mkdocs
        _write_assets(out, generated.assets[len(made.assets):])
        if plugin.notes:  # (the bundles not minified)
            generated = replace(generated, warnings=(*generated.warnings, *plugin.notes))
        steps.append(StepTime("mkdocs", time.perf_counter() - t))
        filled = plugin.stencils.filled
        layout = PageCount("layout", len(generated.pages) - filled, filled)
        docs = os.path.relpath(config.docs_dir, root)
        return _Built(steps, (*generated.counts, layout), generated.failures, generated,
                      plugin.config.track, docs, plugin.slots, plugin.contents, scanned)
    except MkDocsException as e:
        raise BuildError(f"mkdocs failed: {e}", Location(str(config_file))) from None


def _write_assets(out: Path, assets: Sequence[Asset]) -> None:
    """Files mkdocs would have copied as they are (`ReaderPlugin.on_files`), written into its site."""
    for asset in assets:
        dest = out / asset.src_uri
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(asset.data)


class _Warnings(logging.Handler):
    """mkdocs' warnings, through the command's progress (above the bars on a terminal)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            current().warn(self.format(record))
        except Exception:
            self.handleError(record)


def _quiet_mkdocs() -> None:
    """Show mkdocs' warnings (strict mode turns them into a failed build), not its info lines."""
    logger = logging.getLogger("mkdocs")
    if not any(getattr(h, "_reader", False) for h in logger.handlers):
        handler = _Warnings()
        handler.setLevel(logging.WARNING)
        handler.setFormatter(logging.Formatter("  mkdocs: %(levelname)s %(message)s"))
        handler._reader = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def _renamed(generated: Generated) -> dict[str, str]:
    """The outline's output path of each article a build placed elsewhere, and where it placed it."""
    return {html_of(outline): html_of(page) for outline, page in generated.renamed}
