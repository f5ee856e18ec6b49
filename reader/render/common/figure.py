"""A computed figure: reader's own HTML (and the files it loads) placed in prose by `{{figure:NAME}}`.

A figure is made by a `FigureMaker` registered in `reader/render/figures/registry.py`. To add one: write a
module with a `Maker`: a function that reads what the figure needs from the pinned code without
running it (`(Corpus) -> T`, raising a located `ReaderError` where the code is not of the shape it
knows) and one that draws it (`(T, FigureInputs) -> Figure`); then add one line to `FIGURES`.
A figure that cannot be made is "not computed at these pins": the page says where and why, the
build counts it, and `reader diff` reports what its reading finds at either side of a move.
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
"""Makes one figure; may raise `ReaderError` (the figure is then not computed at these pins: the
page says so, and the build counts it). A reader's bug raises anything else, and stops the build."""


@dataclass(frozen=True)
class Maker[T]:
    """A `FigureMaker` in two steps: `read` the pinned code (no jax, no process: what `reader diff`
    runs at both sides of a move), then `draw` from what it read."""

    read: Callable[[Corpus], T]
    draw: Callable[[T, FigureInputs], Figure]

    def __call__(self, inputs: FigureInputs) -> Figure:
        return self.draw(self.read(inputs.corpus), inputs)


NOT_COMPUTED = "(not computed at these pins)"
"""What stands in a figure's place when it cannot be made (the page says why once, as for facts)."""


def figure_html(figure: Figure | None, name: str, page: str, absent: bool = False) -> str:
    """The figure as it goes on `page`: its assets' names made relative to the page. None: no
    figure of that name, or (`absent`) one that is not computed at these pins."""
    if figure is None:
        what = f"<em>{NOT_COMPUTED}</em>" if absent else "could not be made."
        return f'<p class="rd-figure-missing">Figure <code>{html.escape(name)}</code> {what}</p>'
    out = figure.html
    for a in figure.assets:
        out = out.replace(f'"{ASSET_PREFIX}{a.src_uri}"', f'"{html.escape(rel_file(page, a.src_uri))}"')
    return out
