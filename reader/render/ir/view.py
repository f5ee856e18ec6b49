"""The linked IR view (Compiler Explorer style): each lowered module beside the kernel lines its
ops come from, a kernel line and its ops tinted alike, each op linked to the rule that emitted it.

Ids and `data-k` attributes tie a kernel line to its ops; docs/assets/irview.js selects,
highlights and scrolls, irview.css tints. A module's two panes (its `.ir-view`, up to 1,468 ops)
are not in the page: each is a script of its own (`part_script`), which irview.js loads by a
`<script>` tag (file:// works) when the module's tab is shown near the viewport, and paints the
ops in runs of `CHUNK` lines as they near the pane's view. Their links are relative to the page,
and the link check reads them as part of it (`reader/linkcheck.py`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from markupsafe import Markup

from reader.cache import Cache, blob_sha
from reader.extract.symbols import symbols_of
from reader.model import SourceFile, Symbol, split_lines
from reader.packed import part_text
from reader.render.code.highlight import escape_code, highlighted
from reader.render.code.view import LineSpan, merge_spans
from reader.render.common.model import Asset
from reader.render.common.templates import render
from reader.render.common.urls import line_id, rel, rel_file, slugify, source_page
from reader.render.ir.lowered import (
    BACKENDS,
    Coverage,
    FileKey,
    IrLoc,
    IrModule,
    IrOp,
    Lowered,
    Rules,
    coverage,
)

PALETTE = 8
"""Tints (irview.css `.ir-c0`..`.ir-c7`): a kernel line's colour is its rank among the lines the
module's ops come from, so every backend of a kernel colours a line alike when they share lines."""
CONTEXT = 2
"""Lines shown around a located line outside the kernel's own function."""
CHUNK = 200
"""Ops lines per run of a module's pane: irview.js paints a run when it comes near the pane's view."""
PARTS_DIR = "assets/ir"
"""Where the modules' panes are served: `assets/ir/<page>/<module's element id>.js`."""


class FunctionLines(NamedTuple):
    """A function of a file and its first and last lines."""

    name: str
    start: int
    end: int


class ProjectFile(NamedTuple):
    """A project file (a lab's kernel) and the page showing it."""

    text: str
    page: str


@dataclass(frozen=True)
class KernelFile:
    """A file ops come from, as the view shows it: highlighted lines, and the page of the file."""

    pin: str
    """'' for a project file (a lab), else the pin."""
    path: str
    lines: Sequence[str]
    """Highlighted HTML of every line; index 0 is line 1."""
    raw: Sequence[str]
    page: str
    """The `src_uri` of the page showing the whole file (the lab's page, a source page)."""
    functions: Sequence[FunctionLines] = ()
    """The file's functions: the kernel's is shown whole."""


FileOf = Callable[[str, str], KernelFile | None]
"""(pin or '', path) -> the file, or None when the site cannot show it."""


@dataclass(frozen=True)
class ModuleView:
    module: IrModule
    html: Markup
    coverage: Coverage | None
    """None for a module the backend refused."""
    part: Asset | None = None
    """The script holding the module's panes (None for a refused module)."""


class LoweredView(NamedTuple):
    """A page's lowered modules: the view's HTML, each module's view, and the scripts of their panes."""

    html: Markup
    modules: list[ModuleView]

    @property
    def parts(self) -> tuple[Asset, ...]:
        return tuple(m.part for m in self.modules if m.part is not None)


def part_uri(here: str, element: str) -> str:
    """The script of a module's panes: `assets/ir/labs/lowering_ladder/ir-exp_add-jaxpr.js`."""
    return f"{PARTS_DIR}/{here.removesuffix('.md')}/{element}.js"


def part_script(uri: str, element: str, html: str) -> Asset:
    return Asset(uri, part_text(element, html).encode())


def render_lowered(lowered: Lowered, here: str, rules: Rules, file_of: FileOf) -> LoweredView:
    """The view of every module, grouped by kernel with a tab per backend."""
    views = [module_view(m, here, rules, file_of) for m in lowered.modules]
    kernels: dict[str, list[ModuleView]] = defaultdict(list)
    for v in views:  # in the file's order; a group's backends in BACKENDS' order
        kernels[_group(v.module)].append(v)
    order = list(BACKENDS)
    groups = [{"kernel": vs[0].module.kernel, "id": f"ir-{slugify(k)}-k",
               "tabs": [{"id": f"ir-{v.module.id}", "label": BACKENDS[v.module.backend],
                         "refused": bool(v.module.error)} for v in vs],
               "modules": [v.html for v in vs]}
              for k, vs in ((k, sorted(vs, key=lambda v: order.index(v.module.backend)))
                            for k, vs in kernels.items())]
    return LoweredView(Markup(render("irview.j2", groups=groups, jax=lowered.jax)), views)


def _group(module: IrModule) -> str:
    """The lowering a module belongs to: its id less the backend (`exp_add-mosaic-tpu-1` ->
    `exp_add-1`), so one lowering's backends share tabs whatever each names its kernel."""
    m = re.match(r"^(.+)-(?:jaxpr|mosaic-tpu|mosaic-gpu|triton)(-\d+)?$", module.id)
    return m[1] + (m[2] or "") if m else module.kernel


def module_view(module: IrModule, here: str, rules: Rules, file_of: FileOf) -> ModuleView:
    mid = f"ir-{module.id}"
    label = BACKENDS[module.backend]
    if module.error:
        body = render("irmodule.j2", id=mid, module=module, label=label, error=module.error)
        return ModuleView(module, Markup(body), None)
    files = {key: f for key in dict.fromkeys(op.loc.key for op in module.ops if op.loc)
             if (f := file_of(*key)) is not None}
    cov = coverage(module, rules, files)
    shown = [op for op in module.ops if op.loc and op.loc.key in files]
    keys = {key: f"f{i}" for i, key in enumerate(files)}
    colours = {k: n % PALETTE for n, k in enumerate(sorted({(keys[o.loc.key], o.loc.line)
                                                             for o in shown if o.loc}))}
    sources = [_source(f, keys[key], mid, here, [o for o in shown if o.loc and o.loc.key == key], colours,
                       module.kernel) for key, f in files.items()]
    lines = _ir_lines(module, mid, here, rules, keys, colours, files)
    uri = part_uri(here, mid)
    part = part_script(uri, mid, render("irpanes.j2", sources=sources, lines=lines, label=label,
                                                       chunk=CHUNK))
    rows = max(len(lines), sum(len(r) + 1 for s in sources if isinstance(r := s["rows"], list)))
    body = render("irmodule.j2", id=mid, module=module, label=label, error="", coverage=cov.line(),
                  part=rel_file(here, uri), rows=rows)
    return ModuleView(module, Markup(body), cov, part)


def _source(f: KernelFile, fkey: str, mid: str, here: str, ops: list[IrOp],
            colours: dict[tuple[str, int], int], kernel: str) -> dict[str, object]:
    """One file's pane: the kernel's function whole, other located lines with a little context."""
    counts: dict[int, int] = defaultdict(int)
    for o in ops:
        if o.loc:
            counts[o.loc.line] += 1
    spans = [LineSpan(max(1, n - CONTEXT), min(len(f.lines), n + CONTEXT)) for n in counts]
    spans += [LineSpan(a, b) for name, a, b in f.functions if name == kernel or
              (name == kernel.rsplit(".", 1)[-1])]
    rows: list[dict[str, object]] = []
    for a, b in merge_spans([s for s in spans if s.start <= s.end <= len(f.lines)]):
        if rows:
            rows.append({"gap": True, "k": ""})
        for n in range(a, b + 1):
            k = f"{fkey}-{n}"
            rows.append({"gap": False, "n": n, "k": k if n in counts else "", "id": f"{mid}-{k}",
                         "colour": colours.get((fkey, n)), "ops": counts.get(n, 0),
                         "html": Markup(f.lines[n - 1]), "href": rel(here, f.page, line_id(n))})
    return {"path": f.path, "pin": f.pin, "href": rel(here, f.page), "rows": rows}


def _ir_lines(module: IrModule, mid: str, here: str, rules: Rules, keys: dict[FileKey, str],
              colours: dict[tuple[str, int], int], files: dict[FileKey, KernelFile]) -> list[dict[str, object]]:
    on_line: dict[int, list[IrOp]] = defaultdict(list)
    for op in module.ops:
        on_line[op.line].append(op)
    out: list[dict[str, object]] = []
    for n, text in enumerate(module.text.splitlines(), 1):
        ops = on_line.get(n, [])
        ks = list(dict.fromkeys(f"{keys[o.loc.key]}-{o.loc.line}" for o in ops
                                if o.loc and o.loc.key in keys))
        first = next((o for o in ops if o.loc and o.loc.key in keys), None)
        emitters: list[dict[str, str | None]] = []
        for o in ops:
            e = rules.emitter(module, o.primitive)
            if e is not None and all(x["href"] != rel(here, e.target.page, e.target.fragment) for x in emitters):
                emitters.append({"name": e.name, "href": rel(here, e.target.page, e.target.fragment),
                                 "title": e.target.title, "path": e.path})
        colour = colours.get((keys[first.loc.key], first.loc.line)) if first and first.loc else None
        out.append({"n": n, "id": f"{mid}-{n}", "html": Markup(escape_code(text)), "k": " ".join(ks),
                    "colour": colour, "op": bool(ops), "title": "; ".join(_title(o, files) for o in ops),
                    "rules": emitters})
    return out


def _title(op: IrOp, files: dict[FileKey, KernelFile]) -> str:
    """What an op's tooltip says: its primitive and the code it comes from."""
    what = op.op + (f" from {op.primitive}" if op.primitive else ", primitive unknown")
    if op.loc is None:
        return f"{what}, no source location"
    return f"{what} at {op.loc.file}:{op.loc.line}" + _snippet(op.loc, files.get(op.loc.key))


def _snippet(loc: IrLoc, f: KernelFile | None) -> str:
    if f is None or loc.end_line != loc.line or not 0 < loc.line <= len(f.raw):
        return ""
    text = f.raw[loc.line - 1][loc.col:loc.end_col]
    return f": {text}" if 0 < len(text) <= 80 else ""


def kernel_file(pin: str, path: str, text: str, lines: Sequence[str], page: str,
                symbols: Sequence[Symbol]) -> KernelFile:
    """A file as the view shows it, from its text, its highlighted lines and its definitions."""
    functions = tuple(FunctionLines(s.name, s.span.start, s.span.end) for s in symbols if s.kind in ("function", "method"))
    return KernelFile(pin, path, lines, split_lines(text), page, functions)


@dataclass(frozen=True)
class IrSite:
    """What a page's IR view needs from the site: the rule tables and the pinned files."""

    rules: Rules
    pinned: Callable[[str, str], SourceFile | None]
    """(pin, path) -> the pinned file, or None when the pins lack it."""
    project: Callable[[str], ProjectFile | None] = lambda path: None
    """A project file (another lab's kernel) -> its text and page, or None."""

    def file_of(self, own: dict[FileKey, KernelFile], cache: Cache | None) -> FileOf:
        """`own` files (a lab's) first, then the pinned ones, each on its source page."""
        def find(pin: str, path: str) -> KernelFile | None:
            key = FileKey(pin, path)
            if key in own:
                return own[key]
            f = self.pinned(pin, path) if pin else None
            if f is None:
                mine = None if pin else self.project(path)
                if mine is None:
                    return None
                text, page = mine
                f = SourceFile("", path, blob_sha(text.encode()), text)
                own[key] = kernel_file("", path, text, highlighted(cache, f.blob, text).html(), page,
                                               symbols_of(text))
                return own[key]
            own[key] = kernel_file(pin, path, f.text, highlighted(cache, f.blob, f.text).html(),
                                           source_page(path), symbols_of(f.text))
            return own[key]
        return find
