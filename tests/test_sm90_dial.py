"""figures_sm90 and reader/assets/sm90-budget.js: the dial's script, run with node on the parameters
the page carries, gives the Python model's bytes for every buffer of every cell of the budget table;
the article shows the figure."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reader.annotations import load_articles
from reader.cache import Cache
from reader.corpus import Corpus, Project
from reader.extract import tokamax_facts as tf
from reader.extract.sm90_source import Sm90Params, Tiling
from reader.fetch import InstalledSource, fetch_pin
from reader.render.common.figure import FigureInputs, figure_html
from reader.render.common.prose import Prose
from reader.render.figures.registry import FIGURES
from reader.render.figures.sm90 import SCRIPT, budget_figure_html, budget_params, sm90_budget
from tests.browser_support import chromium
from tests.conftest import REPO_ROOT

NODE = shutil.which("node")
SCRIPT_FILE = REPO_ROOT / "reader" / "assets" / "sm90-budget.js"
ARTICLE = "tokamax-sm90-attention"
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

# Reads {params, cases, head_dims} on stdin; prints what the page's script computes for each.
RUNNER = """
const m = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const p = input.params;
const cells = input.cases.map(([t, d, residuals]) => {
  const r = m.smem(p, t, d, residuals);
  return {buffers: r.buffers.map((b) => b.bytes), aligned: r.buffers.map((b) => b.aligned),
          reduction: r.reduction, barriers: r.barriers, total: r.total, estimate: r.estimate,
          fits: r.fits};
});
const heuristic = input.head_dims.map((d) => m.heuristic(p, d));
process.stdout.write(JSON.stringify({cells, heuristic}));
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    project = Project.load(REPO_ROOT)
    cache = Cache(tmp_path_factory.mktemp("cache"))
    for name in ("jax", "tokamax"):
        fetch_pin(project.pins[name], project.locks[name], cache, [InstalledSource()])
    return Corpus.open(project, cache)


@pytest.fixture(scope="module")
def params(corpus: Corpus) -> Sm90Params:
    return tf.load_sm90_params(corpus)


def page_params(p: Sm90Params) -> dict[str, object]:
    """The parameters as the script reads them: from the figure's `data-sm90-budget` attribute."""
    m = re.search(r'data-sm90-budget="([^"]*)"', budget_figure_html(p))
    assert m is not None
    return json.loads(html.unescape(m.group(1)))


def run_script(params: dict[str, object], cases: list[tuple[Tiling, int, bool]],
               head_dims: tuple[int, ...]) -> dict:
    assert NODE is not None
    payload = {"params": params, "head_dims": list(head_dims),
               "cases": [[dataclasses.asdict(t), d, r] for t, d, r in cases]}
    done = subprocess.run([NODE, "-e", RUNNER, str(SCRIPT_FILE)], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


def expected(p: Sm90Params, t: Tiling, d: int, residuals: bool) -> dict[str, object]:
    """The Python model's numbers for one cell, named as the runner names the script's."""
    a = p.smem_alignment
    buffers = tf._scratch_bytes(p, t, d, residuals)
    return {"buffers": buffers, "aligned": [tf._align(n, a) for n in buffers],
            "reduction": tf._align(p.kernel_reduction_scratch_bytes, a),
            "barriers": tf._barrier_bytes(p, t), "total": tf.smem_bytes(p, t, d, residuals),
            "estimate": tf.estimate_bytes(p, t, d),
            "fits": tf.smem_bytes(p, t, d, residuals) <= tf.limit_bytes()}


def assert_script_is_model(p: Sm90Params, cases: list[tuple[Tiling, int, bool]]) -> None:
    got = run_script(page_params(p), cases, p.head_dims)
    assert len(got["cells"]) == len(cases)
    for (t, d, residuals), cell in zip(cases, got["cells"], strict=True):
        assert cell == expected(p, t, d, residuals), (t, d, residuals)
    assert [Tiling(**h) for h in got["heuristic"]] == [tf.heuristic_tiling(p, d) for d in p.head_dims]


@needs_node
def test_script_gives_every_cell_of_the_budget_table(params):
    rows = tf.smem_rows(params)
    cases = [(row.tiling, d, False) for row in rows for d in params.head_dims]
    got = run_script(page_params(params), cases, params.head_dims)
    totals = [cell["total"] for cell in got["cells"]]
    assert totals == [n for row in rows for n in row.bytes_by_head_dim]
    assert len(totals) == len(params.candidates) * len(params.head_dims)
    assert_script_is_model(params, cases)


@needs_node
def test_script_follows_the_model_off_the_table(params):
    # Residuals, head dims that pad or miss the epilogue tile, and parameters moved away from the
    # pinned values (an alignment no size is a multiple of): a script that ignored any parameter,
    # or typed a pinned number, would differ.
    cases = [(t, d, r) for t in params.candidates for d in (40, 72, 96, 200) for r in (False, True)]
    assert_script_is_model(params, cases)
    moved = dataclasses.replace(params, smem_alignment=1000, kernel_reduction_scratch_bytes=3000,
                                min_swizzle=64, epi_tile_q=32, epi_tile_bits=512, max_epi_slots=3,
                                compute_wgs=3, fixed_barriers=2, stage_barriers=3,
                                budget_bytes=100_000)
    assert_script_is_model(moved, cases[::3])


def test_page_data_is_the_model_parameters(params):
    data = page_params(params)
    assert data == json.loads(json.dumps(budget_params(params)))
    assert data["limit_bytes"] == tf.limit_bytes() and data["budget_bytes"] == params.budget_bytes
    assert data["head_dims"] == list(params.head_dims)
    assert [Tiling(**t) for t in data["heuristic"]] == list(params.heuristic)


def test_figure_is_registered_with_its_script(corpus):
    made = FIGURES["sm90-budget"](FigureInputs(corpus, dict))
    assert made == sm90_budget(FigureInputs(corpus, dict))
    assets = {a.src_uri: a.data for a in made.assets}
    assert assets[SCRIPT] == SCRIPT_FILE.read_bytes()
    assert f'src="asset:{SCRIPT}"' in made.html and "\n\n" not in made.html


def _article_text(root: Path) -> str:
    article = next(a for a in load_articles(root) if a.slug == ARTICLE)
    return next(text for text, _ in article.prose() if "{{figure:sm90-budget}}" in text)


def test_the_article_shows_the_dial(corpus):
    text = _article_text(REPO_ROOT)
    prose = Prose(source=lambda _path, _symbol: None,
                  figures=lambda name: FIGURES[name](FigureInputs(corpus, dict)))
    page = f"articles/{ARTICLE}.md"
    out = prose.html(text, page)
    assert out.count('<figure class="rd-dial" id="sm90-budget"') == 1
    assert 'src="../figures/sm90-budget.js"' in out and "asset:" not in out
    assert "figure sm90-budget" not in prose.unresolved


@pytest.fixture()
def dial_page(corpus, tmp_path: Path) -> str:
    """The figure on a page of its own, its assets where the site puts them, as a file:// URL."""
    made = sm90_budget(FigureInputs(corpus, dict))
    for asset in made.assets:
        (tmp_path / asset.src_uri).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / asset.src_uri).write_bytes(asset.data)
    page = tmp_path / "articles" / "dial.html"
    page.parent.mkdir()
    page.write_text('<!doctype html><html><head><meta charset="utf-8"></head><body>'
                    f'{figure_html(made, "sm90-budget", "articles/dial.md")}</body></html>')
    return page.as_uri()


@pytest.fixture()
def driver(tmp_path_factory):
    yield from chromium(tmp_path_factory.mktemp("chromium-profile"))


@pytest.mark.browser
def test_the_dial_answers_the_keyboard(dial_page, params, driver):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver.get(dial_page)
    d = max(params.head_dims)
    start = tf.heuristic_tiling(params, d)

    def shows(t: Tiling) -> None:
        n = tf.smem_bytes(params, t, d)
        summary = driver.find_element(By.CSS_SELECTOR, ".rd-dial-summary").text
        assert f"{n:,} B" in summary and ("fits" in summary) == (n <= tf.limit_bytes())
        over = "rd-dial-over" in driver.find_element(By.ID, "sm90-budget").get_attribute("class")
        assert over == (n > tf.limit_bytes())

    shows(start)
    deeper = next(s for s in params.stages if s > start.num_stages)
    driver.find_element(By.ID, "sm90-budget-num_stages").send_keys(Keys.ARROW_RIGHT)
    shows(dataclasses.replace(start, num_stages=deeper))
    driver.find_element(By.ID, "sm90-budget-persistent").send_keys(Keys.SPACE)
    shows(dataclasses.replace(start, num_stages=deeper, persistent=not start.persistent))
    rows = [r.text for r in driver.find_elements(By.CSS_SELECTOR, ".rd-dial-table tbody th")]
    # Unpersisting puts q and k in a RefUnion with o: one allocation row in place of three.
    assert any(r.startswith("RefUnion(q, k | o)") for r in rows) == start.persistent
    driver.find_element(By.CSS_SELECTOR, ".rd-dial-reset").send_keys(Keys.ENTER)
    shows(start)
