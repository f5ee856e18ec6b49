"""A computed figure: reader's own HTML (and the files it loads) placed in prose by `{{figure:NAME}}`.

A figure is made by a `FigureMaker` registered in `reader/render/figures/registry.py`. To add one: write a
module with a function `(FigureInputs) -> Figure`, then add one line to `FIGURES`.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from reader.corpus import Corpus
from reader.render.common.model import Asset
from reader.render.common.urls import rel_file

ASSET_PREFIX = "asset:"
"""How a figure's HTML names one of its assets (`<img src="asset:figures/x.svg">`): reader
rewrites `asset:SRC_URI` to a path relative to the page that shows the figure."""


@dataclass(frozen=True)
class Figure:
    """What a figure shows. `html` is inserted after the prose is sanitised (it is reader's, not
    the author's): it must be well-formed, one block, without blank lines, and use no script
    except its own `assets`."""

    html: str
    assets: tuple[Asset, ...] = ()
    """Files the site serves as they are (an SVG, a script), `src_uri` under `figures/`."""


@dataclass(frozen=True)
class FigureInputs:
    """What a maker may read. Its figure must be a function of these and reader's code (the
    pinned blobs are in every page's cache key; nothing else is)."""

    corpus: Corpus
    facts: Callable[[], Mapping[str, object]]
    """The computed facts by name (computed on the first call)."""


FigureMaker = Callable[[FigureInputs], Figure]
"""Makes one figure; may raise `ReaderError` (the page then says the figure is missing, and the
build warns)."""


def figure_html(figure: Figure | None, name: str, page: str) -> str:
    """The figure as it goes on `page`: its assets' names made relative to the page."""
    if figure is None:
        return f'<p class="rd-figure-missing">Figure <code>{html.escape(name)}</code> could not be made.</p>'
    out = figure.html
    for a in figure.assets:
        out = out.replace(f'"{ASSET_PREFIX}{a.src_uri}"', f'"{html.escape(rel_file(page, a.src_uri))}"')
    return out
