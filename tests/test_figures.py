"""Computed figures in prose: `{{figure:NAME}}` parsed, checked, made once and placed after
the author's Markdown is sanitised."""

from __future__ import annotations

from pathlib import Path

from reader.annotations import check as checking
from reader.annotations.markup import parse
from reader.cache import Cache
from reader.commands import check as check_command
from reader.errors import Location, ReaderError
from reader.extract.fact import Facts
from reader.render.common.figure import Figure, FigureInputs
from reader.render.common.model import Asset
from reader.render.common.prose import Prose
from reader.render.figures import registry
from reader.render.figures.registry import Figures
from tests.annotations_project import write_annotation
from tests.test_annotations_check import HEAD, check, project  # noqa: F401 - the fixture

SVG = '<svg viewBox="0 0 10 10"><rect width="10" height="10"/><image href="asset:figures/a.svg"/></svg>'


def test_the_placeholder_is_parsed_and_a_bad_name_is_a_problem():
    found, bad = parse("see {{figure:pipeline-buffered-2}} and {{figure:Bad_Name}} `{{figure:x}}`")
    assert [(p.kind, p.target) for p in found] == [("figure", "pipeline-buffered-2")]
    assert [m.message for m in bad] == ["malformed figure name in '{{figure:Bad_Name}}'"]


def test_a_figure_goes_in_after_sanitising_with_its_assets_relative_to_the_page():
    figure = Figure(SVG, (Asset("figures/a.svg", b"<svg/>"),))
    p = Prose(lambda _p, _s: None, figures=lambda name: figure if name == "dial" else None)
    out = p.html("Before.\n\n{{figure:dial}}\n\nInline {{figure:dial}} <svg>raw</svg>", "articles/x.md")
    assert f"<p>Before.</p>\n{SVG.replace('asset:figures/a.svg', '../figures/a.svg')}" in out
    assert "Inline <svg" in out and "&lt;svg&gt;raw&lt;/svg&gt;" in out  # the author's HTML is text
    assert p.unresolved == []
    missing = p.html("{{figure:gone}}", "articles/x.md")
    assert "<code>gone</code> could not be made" in missing and p.unresolved == ["figure gone"]


def test_figures_are_made_once_kept_in_the_cache_and_failures_reported(tmp_path: Path, monkeypatch):
    calls: list[str] = []

    def make(inputs: FigureInputs) -> Figure:
        calls.append("made")
        return Figure("<div>made</div>", (Asset("figures/m.svg", b"m"),))

    def fail(inputs: FigureInputs) -> Figure:
        raise ReaderError("no chip", Location("pins.toml", 3), "pin jax")

    monkeypatch.setattr(registry, "FIGURES", {"made": make, "fails": fail})
    inputs, cache = FigureInputs(None, dict), Cache(tmp_path)  # type: ignore[arg-type]
    first = Figures(inputs, cache, "world-1")
    assert first("made") == first("made") == Figure("<div>made</div>", (Asset("figures/m.svg", b"m"),))
    assert first.assets(["made", "fails", "unknown"]) == [Asset("figures/m.svg", b"m")]
    assert {name: str(e) for name, e in first.failures.items()} == {"fails": "pins.toml:3: no chip; pin jax"}
    assert first.absent("fails") == "pins.toml:3: no chip" and first.absent("made") == ""
    assert Figures(inputs, cache, "world-1")("made") is not None and calls == ["made"]
    Figures(inputs, cache, "world-2")("made")  # a pin move makes it again
    assert calls == ["made", "made"]


def test_check_reports_an_unknown_figure_at_its_line(project, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setattr(checking, "computed_facts", lambda corpus: Facts((), ()))
    monkeypatch.setattr(check_command, "FIGURES", {"pipeline-buffered-2": None})
    monkeypatch.setattr(check_command, "unreadable", lambda corpus, names: {})  # made wherever pinned
    write_annotation(project, "a",
        HEAD + "summary: '{{figure:pipeline-buffered-2}} {{figure:pipeline-bufered-2}}'\n")
    code, out = check(project, capsys)
    assert (code, out) == (2, ["annotations/a.yaml:8: unknown figure 'pipeline-bufered-2' (did you "
                               "mean 'pipeline-buffered-2'?); name a figure of FIGURES in "
                               "reader/render/figures/registry.py"])
