"""The linked IR view (reader/render/ir/lowered.py, irview.py) on a real lowered sample: the lowering
ladder's kernel as a kernel jaxpr and a Mosaic TPU module with every op's location, and a matmul
Mosaic GPU refused (tests/fixtures/lowered/make.py wrote it with jax 0.12.0.1)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from reader.cache import Cache
from reader.errors import Location
from reader.extract.ruletable import PrimRef, RuleEntry, RuleRef, RuleTable
from reader.extract.symbols import symbols_of
from reader.labs import Artifact, LabArtifacts, LabInfo
from reader.linkcheck import scan
from reader.model import SourceFile
from reader.packed import read_part
from reader.render.code.highlight import highlight
from reader.render.common.model import Asset
from reader.render.common.urls import rel_file, slugify
from reader.render.ir import site as irsite
from reader.render.ir.lowered import LOWERED, IrFormatError, Rules, coverage, parse_lowered
from reader.render.ir.site import IrPages
from reader.render.ir.view import IrSite, kernel_file, render_lowered

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "fixtures" / "lowered" / "lowering_ladder.lowered.json"
LAB = "kernels/lowering_ladder.py"
HERE = "labs/lowering_ladder.md"
TPU = "jax/_src/pallas/mosaic/lowering.py"
# What the pinned TPU table registers for the sample's primitives (reader rules --backend tpu).
TPU_RULES = {"get": ("jax._src.state.primitives", 1959, "_get_lowering_rule"),
             "swap": ("jax._src.state.primitives", 1976, "_swap_lowering_rule"),
             "add": ("jax.lax", 3588, "_add_lowering_rule"),
             "mul": ("jax.lax", 3938, "_mul_lowering_rule"),
             "exp": ("jax.lax", 4133, "_exp_lowering_rule")}


def _tables(without: str = "") -> list[RuleTable]:
    entries = tuple(
        RuleEntry("tpu", "TC", PrimRef(module, f"{name}_p", name, False),
                  RuleRef(qualname, "function", "jax._src.pallas.mosaic.lowering", TPU, qualname, line, line - 1),
                  TPU, line - 1, "decorator")
        for name, (module, line, qualname) in TPU_RULES.items() if name != without)
    return [RuleTable("tpu", "TC", entries)]


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(SAMPLE.read_text())


@pytest.fixture(scope="module")
def lab_text() -> str:
    return (ROOT / "tests" / "fixtures" / "lowered" / "lowering_ladder.py").read_text()


def _render(lab_text: str, tables: list[RuleTable] | None = None, data: bytes | None = None,
            pinned=lambda pin, path: None):
    lowered = parse_lowered(data if data is not None else SAMPLE.read_bytes(), Location(LAB))
    own = {("", LAB): kernel_file("", LAB, lab_text, highlight(lab_text).html(), HERE, symbols_of(lab_text))}
    rules = Rules(tables if tables is not None else _tables())
    view = render_lowered(lowered, HERE, rules, IrSite(rules, pinned).file_of(own, None))
    return painted(view.html, view.parts), view.modules


def painted(html: str, parts: tuple[Asset, ...], here: str = HERE) -> str:
    """The page's HTML with each module's panes put in from its part, as irview.js paints them."""
    by_src = {rel_file(here, a.src_uri): a for a in parts}

    def fill(m: re.Match[str]) -> str:
        part = read_part(by_src.pop(m[1]).data)
        assert part is not None
        return f'<div class="ir-view">{part}</div>'

    out = re.sub(r'<div class="ir-view" data-part="([^"]+)"[^>]*></div>', fill, html)
    assert not by_src, "a part no module points to"
    return out


def _one(pattern: str, text: str) -> re.Match[str]:
    m = re.search(pattern, text, re.S)
    assert m is not None, pattern
    return m


def _rows(html: str, cls: str) -> list[dict[str, str]]:
    """Every `<div class="cls ...">` row: its classes, id, data-k, and its text."""
    out = []
    for m in re.finditer(rf'<div class="({cls}[^"]*)"([^>]*)>(.*?)</div>', html, re.S):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m[2]))
        out.append({"class": m[1], **attrs, "text": re.sub(r"<[^>]+>", "", m[3])})
    return out


def test_every_op_of_the_sample_is_a_row_tinted_like_its_kernel_line(lab_text, raw):
    html, views = _render(lab_text)
    for module in raw["modules"]:
        if module.get("error"):
            continue
        part = html.split(f'id="ir-{module["id"]}"', 1)[1].split('class="ir-module"', 1)[0]
        ops = [r for r in _rows(part, "ir-op") if "data-k" in r]
        located = {o["line"] for o in module["ops"] if o["loc"]}
        assert sorted(int(r["id"].rsplit("-", 1)[1]) for r in ops) == sorted(located)
        lines = {r["data-k"]: r for r in _rows(part, "ir-src") if "data-k" in r}
        assert set(lines) == {f"f0-{o['loc']['line']}" for o in module["ops"] if o["loc"]}
        for op in ops:
            line = lines[op["data-k"]]
            assert re.findall(r"ir-c\d", op["class"]) == re.findall(r"ir-c\d", line["class"])
            number = int(op["data-k"].split("-")[1])
            assert line["text"].startswith(str(number))
            assert lab_text.splitlines()[number - 1].strip() in line["text"]


def test_an_op_links_the_rule_that_emitted_it_at_its_line_on_the_pinned_page(lab_text, raw):
    html, _ = _render(lab_text)
    part = html.split('id="ir-exp_add_kernel-mosaic-tpu"', 1)[1]
    tpu = next(m for m in raw["modules"] if m["backend"] == "mosaic_tpu")
    for op in tpu["ops"]:
        row = _one(rf'<div class="ir-op[^"]*" id="ir-{tpu["id"]}-{op["line"]}".*?</div>', part)[0]
        links = re.findall(r'<a class="ir-rule" href="([^"]+)"[^>]*>([^<]+)</a>', row)
        if op["primitive"] in TPU_RULES:
            _, line, name = TPU_RULES[op["primitive"]]
            assert (f"../source/{TPU}.html#L{line}", name) in links
        else:
            assert links == []


def test_a_jaxpr_equation_links_its_primitive_on_the_rules_page(lab_text, raw):
    html, _ = _render(lab_text)
    part = html.split('id="ir-exp_add_kernel-jaxpr"', 1)[1].split('class="ir-module"', 1)[0]
    hrefs = re.findall(r'class="ir-rule" href="([^"]+)"', part)
    jaxpr = next(m for m in raw["modules"] if m["backend"] == "jaxpr")
    expected = [f"../lowering-rules.html#p-{slugify(TPU_RULES[o['primitive']][0] + '.' + o['primitive'] + '_p')}"
                for o in jaxpr["ops"]]
    assert hrefs == expected


def test_coverage_counts_and_names_what_is_not_linked(lab_text, raw):
    _, views = _render(lab_text, _tables(without="exp"))
    by_id = {v.module.id: v for v in views}
    for module in raw["modules"]:
        v = by_id[module["id"]]
        if module.get("error"):
            assert v.coverage is None
            continue
        ops = module["ops"]
        cov = v.coverage
        assert cov is not None and cov.ops == len(ops)
        assert cov.located == sum(1 for o in ops if o["loc"])
        unlocated = Counter(o["op"] for o in ops if not o["loc"])
        assert dict(cov.no_location) == unlocated
        ruled = [o for o in ops if o["primitive"] in TPU_RULES and o["primitive"] != "exp"]
        assert cov.linked == sum(1 for o in ruled if o["loc"])
        assert sum(n for _, n in cov.no_rule) == len(ops) - len(ruled)
        line = cov.line()
        for name in unlocated:
            assert name in line
        assert ("exp" in line) == any(o["primitive"] == "exp" for o in ops)
    assert "linked to a kernel line and a rule" in by_id["exp_add_kernel-mosaic-tpu"].coverage.line()


def test_a_modules_panes_are_a_script_of_their_own_with_links_relative_to_the_page(lab_text, raw):
    lowered = parse_lowered(SAMPLE.read_bytes(), Location(LAB))
    own = {("", LAB): kernel_file("", LAB, lab_text, highlight(lab_text).html(), HERE, symbols_of(lab_text))}
    rules = Rules(_tables())
    view = render_lowered(lowered, HERE, rules, IrSite(rules, lambda pin, path: None).file_of(own, None))
    shown = [m for m in raw["modules"] if not m.get("error")]
    assert [a.src_uri for a in view.parts] == [f"assets/ir/labs/lowering_ladder/ir-{m['id']}.js" for m in shown]
    assert 'class="ir-op' not in view.html and 'class="ir-src' not in view.html  # the page: no line
    for m in shown:
        assert f'data-part="../assets/ir/labs/lowering_ladder/ir-{m["id"]}.js"' in view.html
    tpu = next(a for a in view.parts if a.src_uri.endswith("mosaic-tpu.js"))
    assert tpu.data.startswith(b'readerIr.pack("ir-exp_add_kernel-mosaic-tpu",')
    part = read_part(tpu.data)  # packed: far smaller than its HTML
    assert part is not None and len(tpu.data) * 3 < len(part)
    assert part is not None and f'href="../source/{TPU}.html#L{TPU_RULES["exp"][1]}"' in part
    assert scan(part).ids >= {f"ir-exp_add_kernel-mosaic-tpu-{o['line']}"
                              for m in raw["modules"] if m["backend"] == "mosaic_tpu" for o in m["ops"]}


def test_a_refusal_shows_its_error_in_its_backend_tab(lab_text, raw):
    html, _ = _render(lab_text)
    refused = next(m for m in raw["modules"] if m.get("error"))
    part = html.split(f'id="ir-{refused["id"]}"', 1)[1].split("</section>", 1)[0]
    assert "refused this kernel" in part and refused["error"].split(":")[0] in part
    tab = _one(rf'<button[^>]*aria-controls="ir-{refused["id"]}"[^>]*>(.*?)</button>', html)[1]
    assert "Mosaic GPU" in tab and "refused" in tab


def test_a_pinned_file_location_shows_the_pinned_lines_on_their_source_page(lab_text, raw):
    pinned_text = "def kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
    doc = json.loads(json.dumps(raw))
    module = next(m for m in doc["modules"] if m["backend"] == "mosaic_tpu")
    for op in module["ops"]:
        if op["loc"]:
            op["loc"] = {**op["loc"], "file": "jax/k.py", "pin": "jax", "line": 2}
    f = SourceFile("jax", "jax/k.py", "b" * 40, pinned_text)
    html, views = _render(lab_text, data=json.dumps(doc).encode(),
                          pinned=lambda pin, path: f if (pin, path) == ("jax", "jax/k.py") else None)
    part = html.split(f'id="ir-{module["id"]}"', 1)[1].split('class="ir-module"', 1)[0]
    assert '<a href="../source/jax/k.py.html"><code>jax/k.py</code></a>' in part
    assert 'href="../source/jax/k.py.html#L2"' in part
    line = next(r for r in _rows(part, "ir-src") if r.get("data-k") == "f0-2")
    assert "o_ref[...] = x_ref[...] + 1" in line["text"]
    view = next(v for v in views if v.module.id == module["id"])
    assert view.coverage is not None and view.coverage.not_shown == ()
    # the same locations with no pinned file to show: counted, and named, as not shown
    _, views = _render(lab_text, data=json.dumps(doc).encode())
    view = next(v for v in views if v.module.id == module["id"])
    assert view.coverage is not None and view.coverage.linked == 0 and view.coverage.not_shown


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(version=2), "version 2"),
    (lambda d: d["modules"][0].update(backend="cuda"), "unknown backend"),
    (lambda d: d["modules"][1]["ops"][0].update(line=10_000), "on line 10000"),
    (lambda d: d["modules"][1].update(id=d["modules"][0]["id"]), "used twice"),
    (lambda d: d["modules"][0].update(id="a b"), "not a slug"),
])
def test_a_broken_file_is_an_error_at_the_lab(raw, change, message):
    doc = json.loads(json.dumps(raw))
    change(doc)
    with pytest.raises(IrFormatError, match=message) as e:
        parse_lowered(json.dumps(doc).encode(), Location(LAB))
    assert e.value.location == Location(LAB)


def test_coverage_of_a_module_lists_unknown_primitives_by_op_name(raw):
    lowered = parse_lowered(SAMPLE.read_bytes(), Location(LAB))
    tpu = next(m for m in lowered.modules if m.backend == "mosaic_tpu")
    cov = coverage(tpu, Rules([]), {("", LAB)})
    assert cov.linked == 0
    assert {name.split(" ")[0] for name, _ in cov.no_rule} == {o.op for o in tpu.ops}


def _ir_pages(data: bytes | None) -> IrPages:
    lab = LabInfo("lowering_ladder", "The lowering ladder", 2, LAB, "", "", (), True)
    files = () if data is None else (Artifact(LOWERED, data),)
    pages = IrPages(None, None, {}, {lab.name: lab}, lambda: {lab.name: LabArtifacts(files)})  # type: ignore[arg-type]
    pages.__dict__["rules"] = Rules(_tables())  # the rules, as load_rules would give them
    return pages


def test_a_rules_file_page_names_the_labs_whose_ops_its_rules_emitted(raw):
    pages = _ir_pages(SAMPLE.read_bytes())
    assert pages.rule_files == {TPU}
    assert pages.emitted == {TPU: (("labs/lowering_ladder.md", "The lowering ladder"),)}
    assert pages.source_inputs(TPU) == ((("labs/lowering_ladder.md", "The lowering ladder"),), ())
    # what the page key holds changes with the labs' lowering: no TPU module, no entry
    doc2 = json.loads(json.dumps(raw))
    doc2["modules"] = [m for m in doc2["modules"] if m["backend"] != "mosaic_tpu"]
    other = _ir_pages(json.dumps(doc2).encode())
    assert other.source_inputs(TPU) != pages.source_inputs(TPU)
    assert _ir_pages(None).source_inputs(TPU) == ((), ())


def test_the_build_prints_one_coverage_line_per_module(raw):
    lines = _ir_pages(SAMPLE.read_bytes()).coverage()
    assert len(lines) == len(raw["modules"])
    for module, line in zip(raw["modules"], lines, strict=True):
        assert line.startswith(f"labs/lowering_ladder.md {module['id']}: ")
        if module.get("error"):
            assert "refused" in line
        else:
            located = sum(1 for o in module["ops"] if o["loc"])
            assert f"{located}/{len(module['ops'])} ops located" in line


def test_a_canonical_kernel_gets_a_page_linked_from_its_file_and_the_articles_reading_it(raw):
    kernel = "jax/experimental/pallas/ops/tpu/flash_attention.py"
    doc = json.loads(json.dumps(raw))
    for m in doc["modules"]:
        for op in m["ops"]:
            if op["loc"]:
                op["loc"] = {**op["loc"], "file": kernel, "pin": "jax", "line": 2}
    text = "def kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] + 1\n"
    files = {kernel: SourceFile("jax", kernel, "c" * 40, text)}
    ready = {"canonical": LabArtifacts((Artifact("flash_attention.json", json.dumps(doc).encode()),))}
    pages = IrPages(None, None, files, {}, lambda: ready)  # type: ignore[arg-type]
    pages.__dict__["rules"] = Rules(_tables())
    assert pages.kernels == {kernel: (("ir/flash_attention.md", "flash_attention lowered"),)}
    assert pages.source_inputs(kernel) == ((), pages.kernels[kernel])
    page = pages.render("ir/flash_attention.md", None)
    assert page.src_uri == "ir/flash_attention.md" and 'id="rd-lowered"' in page.html
    assert f'href="../source/{kernel}.html#L2"' in painted(page.html, page.assets, page.src_uri)
    assert [page for page, _ in pages.summary.pages] == ["ir/flash_attention.md"]
    tpu = next(m for m in doc["modules"] if m["backend"] == "mosaic_tpu")
    located, linked = (sum(1 for o in tpu["ops"] if o["loc"] and (not rule or o["primitive"] in TPU_RULES))
                       for rule in (False, True))
    assert any(line.startswith(f"ir/flash_attention.md {tpu['id']}: {located}/{len(tpu['ops'])} ops located, "
                              f"{linked}/{len(tpu['ops'])} linked") for line in pages.coverage())


class _Corpus:
    """The part of a corpus the views' summary keys on: its files' blobs, and its cache."""

    def __init__(self, cache: Cache):
        self.cache = cache

    def all_files(self) -> list[tuple[str, str]]:
        return [("jax", TPU)]

    def blob(self, pin: str, path: str) -> str:
        return "a" * 40

    def input_key(self) -> str:
        return "a" * 40


def test_a_build_with_the_same_views_reads_their_summary_back_without_parsing_them(raw, tmp_path,
                                                                                    monkeypatch):
    first = _ir_pages(SAMPLE.read_bytes())
    first.corpus = _Corpus(Cache(tmp_path))  # type: ignore[assignment]
    emitted, coverage_lines = first.emitted, first.coverage()
    again = _ir_pages(SAMPLE.read_bytes())
    again.corpus = first.corpus
    monkeypatch.setattr(irsite, "parse_lowered", lambda *a: pytest.fail("parsed again"))
    assert again.emitted == emitted and again.coverage() == coverage_lines
    changed = _ir_pages(SAMPLE.read_bytes() + b" ")
    changed.corpus = first.corpus
    with pytest.raises(pytest.fail.Exception, match="parsed again"):
        changed.coverage()


def test_the_build_sums_the_coverage_lines_into_one(lab_text, raw):
    from reader.commands.build import coverage_summary

    _, views = _render(lab_text, _tables(without="exp"))
    covs = [v.coverage for v in views if v.coverage is not None]
    lines = [f"{HERE} {c.module}: {c.line()}" for c in covs] + [f"{HERE} x: refused (no GPU)"]
    assert len(covs) >= 2
    ops, located, linked = (sum(getattr(c, k) for c in covs) for k in ("ops", "located", "linked"))
    assert coverage_summary(lines) == (
        f"lowered {len(lines)} modules: {located:,}/{ops:,} ops located, {linked:,} linked to a "
        "kernel line and a rule, 1 refused; each module: reader build --coverage, or its IR page")
