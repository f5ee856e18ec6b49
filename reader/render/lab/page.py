"""Lab pages: what a lab teaches, the pinned code it exercises, its artifacts, its source linked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from markupsafe import Markup

from reader.cache import Cache
from reader.errors import Location
from reader.labs import LabArtifacts, LabInfo, description
from reader.labs.colab import NO_LINK, Colab
from reader.packed import packed
from reader.render.code.annotated import linked_lines, page_markdown, symbol_anchors, with_prose
from reader.render.code.highlight import highlighted
from reader.render.code.view import CodeLines, code_view
from reader.render.common.model import Asset, Page, PageLink, SourceDoc, TitledPage
from reader.render.common.prose import Prose
from reader.render.common.templates import render
from reader.render.common.urls import lab_notebook, lab_page, rel, rel_file
from reader.render.ir.lowered import LOWERED, FileKey, parse_lowered
from reader.render.ir.view import IrSite, LoweredView, kernel_file, render_lowered


class Exercise(NamedTuple):
    """A pinned symbol a lab exercises, and where the site shows it (None: nowhere)."""

    path: str
    symbol: str
    target: PageLink | None


@dataclass(frozen=True)
class LabDoc:
    info: LabInfo
    doc: SourceDoc
    """The lab's own file, linked like a pinned one; its page is the lab page."""
    exercises: tuple[Exercise, ...] = ()
    artifacts: LabArtifacts = LabArtifacts()
    articles: tuple[TitledPage, ...] = ()
    """The articles that link the lab."""
    colab: Colab = NO_LINK
    """Its notebook opened in Colab from the project's repository, or why there is no link."""


class RenderedLab(NamedTuple):
    """A lab's page and the assets it links (its IR views' scripts)."""

    page: Page
    assets: list[Asset]


PACK_TEXT = 16_000
"""A text artifact longer than this (characters) comes packed (reader/packed.py), its text put back
by reader.js as the page loads: an IR dump of 1.7 MB weighs 0.2 MB so, on disk and over the wire."""


def render_lab(lab: LabDoc, cache: Cache | None, prose: Prose,
               ir: IrSite | None = None) -> RenderedLab:
    here = lab_page(lab.info.name)
    lines = linked_lines(lab.doc, here, cache)
    code = code_view(CodeLines(lines, "", symbol_anchors([d.symbol for d in lab.doc.definitions])))
    assets, artifacts = lab_assets(lab.info.name, lab.artifacts), []
    lowered = lab_ir(lab, cache, ir) if ir is not None else LoweredView(Markup(), [])
    for a in lab.artifacts.files:
        if a.name == LOWERED and ir is not None:
            continue
        if a.is_image:
            uri = _asset_uri(lab.info.name, a.name)
            artifacts.append({"name": a.name, "image": True, "href": rel_file(here, uri)})
        else:
            text = a.data.decode("utf-8", errors="replace")
            big = len(text) > PACK_TEXT
            artifacts.append({"name": a.name, "image": False, "text": "" if big else text,
                              "packed": packed(text.encode()) if big else "",
                              "lines": text.count("\n") + (not text.endswith("\n"))})
    exercises = [(path, symbol, rel(here, t.page, t.fragment) if t else "")
                 for path, symbol, t in lab.exercises]
    body = render("lab.j2", lab=lab.info, line_count=len(lines.lines), exercises=exercises,
                  artifacts=artifacts, error=lab.artifacts.error,
                  failed_at=str(Location(lab.info.path, lab.artifacts.line)),
                  code=Markup(code), lowered=lowered.html,
                  articles=[(rel(here, page), title) for page, title in lab.articles],
                  measured=measured(lab.info),
                  notebook=rel_file(here, lab_notebook(lab.info.name)), colab=lab.colab.url,
                  colab_note=lab.colab.note)
    title = lab.info.heading
    body = with_prose(body, prose.html(description(lab.info.docstring), here))
    return RenderedLab(Page(here, title, page_markdown(title, ["toc"]), body, lowered.parts), assets)


def measured(lab: LabInfo) -> list[dict[str, object]]:
    """The lab's chip records as its page shows them: provenance, staleness, the figures."""
    out = []
    for n, r in enumerate(lab.records):
        versions = ", ".join(f"{k} {v}" for k, v in r.versions if v != "absent")
        out.append({"record": r, "suffix": f"-{n + 1}" if n else "", "versions": versions,
                    "stale": r.stale(lab.text.encode("utf-8")),
                    "refusals": [(f.form, f.stage, f.message) for f in r.refusals]})
    return out


def lab_ir(lab: LabDoc, cache: Cache | None, ir: IrSite) -> LoweredView:
    """The lab's lowered modules beside its kernels' lines (nothing when it wrote no `lowered.json`)."""
    data = next((a.data for a in lab.artifacts.files if a.name == LOWERED), None)
    if data is None:
        return LoweredView(Markup(), [])
    doc = lab.doc
    own = {FileKey("", doc.path): kernel_file("", doc.path, doc.text, highlighted(cache, doc.blob, doc.text).html(),
                                       doc.page, [d.symbol for d in doc.definitions])}
    lowered = parse_lowered(data, Location(doc.path))
    return render_lowered(lowered, doc.page, ir.rules, ir.file_of(own, cache))


def lab_assets(name: str, artifacts: LabArtifacts) -> list[Asset]:
    """The files a lab's page serves as they are: its artifacts' images."""
    return [Asset(_asset_uri(name, a.name), a.data) for a in artifacts.files if a.is_image]


def _asset_uri(name: str, file: str) -> str:
    return f"labs/artifacts/{name}/{file}"


def notebook_assets(served: Mapping[str, str]) -> list[Asset]:
    """The site's copy of every lab's notebook (`labs/<lab>.ipynb`), what its page's download links:
    `served`, by lab name (`labs.notebook.shipped`: the committed one with its outputs, where it is
    up to date)."""
    return [Asset(lab_notebook(name), text.encode()) for name, text in served.items()]
