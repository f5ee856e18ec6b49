"""The figure `sm90-budget`: the sm90 kernel's shared-memory budget as a dial.

The page gets the model's parameters as read at the pins (`budget_params`) and a small script,
`reader/assets/sm90-budget.js`, that mirrors `tokamax_facts.smem_bytes` on them as the reader
moves the controls (tests/test_sm90_dial.py holds the two to the same bytes).
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict
from importlib import resources

from reader.extract.sm90_model import Sm90Params
from reader.extract.tokamax_facts import (
    ELEMENT_BYTES,
    MBARRIER_BYTES,
    limit_bytes,
    load_sm90_params,
)
from reader.render.common.figure import ASSET_PREFIX, Figure, FigureInputs, Maker
from reader.render.common.model import Asset

SCRIPT = "figures/sm90-budget.js"
STYLE = "figures/sm90-budget.css"


def budget_params(p: Sm90Params) -> dict[str, object]:
    """Everything the script's `smem` and `heuristic` read, and the values its controls offer."""
    return {
        "smem_alignment": p.smem_alignment, "min_swizzle": p.min_swizzle,
        "epi_tile_q": p.epi_tile_q, "epi_tile_bits": p.epi_tile_bits,
        "max_epi_slots": p.max_epi_slots, "compute_wgs": p.compute_wgs,
        "fixed_barriers": p.fixed_barriers, "stage_barriers": p.stage_barriers,
        "kernel_reduction_scratch_bytes": p.kernel_reduction_scratch_bytes,
        "element_bytes": ELEMENT_BYTES, "mbarrier_bytes": MBARRIER_BYTES,
        "limit_bytes": limit_bytes(), "budget_bytes": p.budget_bytes,
        "heuristic": [asdict(t) for t in p.heuristic],
        "block_qs": list(p.block_qs), "block_kvs": list(p.block_kvs), "stages": list(p.stages),
        "head_dims": list(p.head_dims),
        # The dial opens where the budget is tightest: the largest head dim the table shows.
        "initial_head_dim": max(p.head_dims),
    }


def _asset(src_uri: str) -> Asset:
    name = src_uri.rpartition("/")[2]
    return Asset(src_uri, resources.files("reader").joinpath("assets", name).read_bytes())


def budget_figure_html(p: Sm90Params) -> str:
    """The figure's element: data, caption, a no-script fallback; the script builds the rest."""
    data = html.escape(json.dumps(budget_params(p), separators=(",", ":")), quote=True)
    return (
        f'<figure class="rd-dial" id="sm90-budget" data-sm90-budget="{data}">'
        f'<link rel="stylesheet" href="{ASSET_PREFIX}{STYLE}">'
        "<figcaption>The budget as a dial: pick a tiling and a head dim, and see each scratch "
        "buffer the kernel allocates (bf16, no bias, no mask), their total against the "
        "per-block limit, and the pipeline depth where the tiling stops fitting. The numbers "
        "are computed on this page from the same parameters, read at the pins, as the table "
        "above.</figcaption>"
        "<noscript><p>The dial needs JavaScript; the table above has the same totals.</p></noscript>"
        f'<script src="{ASSET_PREFIX}{SCRIPT}"></script>'
        "</figure>"
    )


def draw_budget(p: Sm90Params, _inputs: FigureInputs) -> Figure:
    """The dial for the pinned kernel's parameters."""
    return Figure(budget_figure_html(p), (_asset(SCRIPT), _asset(STYLE)))


sm90_budget = Maker(load_sm90_params, draw_budget)
"""The maker of `sm90-budget`: the parameters read at the pins (an `ExtractError` where the
kernel's source is not of the shape the extractor knows), then the dial."""
