"""Lowered IR with locations (reader/ir): real lowerings of the labs' kernels on this CPU host,
with each op's primitive and kernel line, a backend's refusal recorded, and the coverage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reader.ir import coverage, source_file

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("jax")


@pytest.fixture(scope="module")
def ladder() -> dict[str, dict]:
    from kernels import lowering_ladder
    from reader.ir import lower
    modules = lower.lower_all(lowering_ladder.lowerings(), lower.locator(ROOT))
    return {m["id"]: m for m in modules}


def _fraction(c) -> float:
    """The share of a module's ops located."""
    return c.located / c.total if c.total else 0.0


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_mosaic_tpu_ops_carry_primitive_and_kernel_line(ladder):
    module = ladder["exp_add-mosaic-tpu"]
    kernel_line = _line((ROOT / "kernels/lowering_ladder.py").read_text(), "o_ref[...] = jnp.exp(")
    by_op = {}
    for op in module["ops"]:
        by_op.setdefault(op["op"], []).append(op)
        assert module["text"].splitlines()[op["line"] - 1].strip()  # the op's line is printed
    (exp,) = by_op["math.exp"]
    assert exp["primitive"] == "exp"
    assert exp["loc"]["file"] == "kernels/lowering_ladder.py" and exp["loc"]["pin"] is None
    assert exp["loc"]["line"] == kernel_line
    source = (ROOT / "kernels/lowering_ladder.py").read_text().splitlines()[kernel_line - 1]
    loads = [op for op in by_op["vector.load"] if op["primitive"] == "get"]
    assert [source[op["loc"]["col"]: op["loc"]["end_col"]] for op in loads] == ["x_ref[...]", "y_ref[...]"]
    assert "loc(" not in module["text"] and "#loc" not in module["text"]


def test_refusing_backend_records_its_error(ladder):
    refused = ladder["matmul-mosaic-gpu"]
    assert refused["ops"] == [] and refused["text"] == ""
    assert "dot_general" in refused["error"] and "LoweringSemantics.Warpgroup" in refused["error"]
    assert ladder["exp_add-mosaic-gpu"]["rule_key"] == "Warpgroup/Warpgroup"  # jax 0.12.0.1's default
    lowered = ladder["matmul-mosaic-tpu"]
    assert any(op["primitive"] == "dot_general" and op["op"] == "tpu.matmul" for op in lowered["ops"])


def test_jaxpr_module_maps_equations_to_lines(ladder):
    module = ladder["exp_add-jaxpr"]
    assert [op["primitive"] for op in module["ops"]] == ["get", "exp", "mul", "get", "add", "swap"]
    lines = module["text"].splitlines()
    assert all(op["primitive"] in lines[op["line"] - 1] or "<-" in lines[op["line"] - 1]
               for op in module["ops"])
    assert {op["loc"]["file"] for op in module["ops"]} == {"kernels/lowering_ladder.py"}


@pytest.mark.parametrize("module_id, floor", [
    ("exp_add-mosaic-tpu", 0.4), ("exp_add-triton", 0.6), ("exp_add-mosaic-gpu", 0.5),
    ("matmul-triton", 0.6), ("exp_add-jaxpr", 1.0)])
def test_coverage(ladder, module_id, floor):
    c = coverage(ladder[module_id])
    assert c.total > 0 and _fraction(c) >= floor, (c.located, c.total, c.unlocated[:5])


def test_every_printed_op_once(ladder):
    for module in ladder.values():
        lines = [op["line"] for op in module["ops"]]
        assert len(lines) == len(set(lines)), module["id"]
        assert lines == sorted(lines)


def test_triton_ops_read_back_without_failing_imports(monkeypatch):
    """MLIR looks for a dialect's Python module under `jaxlib.mlir.dialects`; jaxlib keeps
    Triton's elsewhere, and each Triton op read back tried (and failed) four imports."""
    import builtins

    from kernels import lowering_ladder
    from reader.ir import lower
    failed = []
    real = builtins.__import__

    def watched(name, *args, **kwargs):
        try:
            return real(name, *args, **kwargs)
        except ImportError:
            failed.append(name)
            raise
    exp_add = lowering_ladder.lowerings()[0]
    monkeypatch.setattr(builtins, "__import__", watched)
    (module,) = lower.lower_all([_only(exp_add, "triton")], lower.locator(ROOT))
    assert any(op["op"].startswith("tt.") for op in module["ops"])
    assert not [name for name in failed if name.endswith(".tt")]


def _only(lowering, backend):
    import dataclasses
    return dataclasses.replace(lowering, backends=(backend,))


def test_source_file_maps_project_and_pins(tmp_path):
    site = tmp_path / "venv" / "lib" / "site-packages"
    assert source_file(str(site / "jax/experimental/pallas/ops/tpu/flash_attention.py"), tmp_path, (site,)) == \
        ("jax/experimental/pallas/ops/tpu/flash_attention.py", "jax")
    assert source_file(str(site / "tokamax/_src/x.py"), tmp_path, (site,)) == ("tokamax/_src/x.py", "tokamax")
    assert source_file(str(tmp_path / "kernels/a.py"), tmp_path, (site,)) == ("kernels/a.py", None)
    assert source_file(str(site / "numpy/core.py"), tmp_path, (site,)) is None
    assert source_file("<string>", tmp_path, (site,)) is None


def test_refusal_is_the_same_whatever_folder_the_project_is_in(tmp_path):
    """A long message naming a kernel's absolute path reads the same from two clones at paths of
    different lengths: the path is shortened before the message is cut."""
    from reader.ir import lower
    roots = (tmp_path / "a", tmp_path / ("clone-at-a-much-longer-path-" * 4))
    words = "x" * (590 - len(f" at {roots[0]}/kernels/first_kernels.py"))  # the short root's path fits
    said = [lower.refusal(ValueError(f"{words} at {root}/kernels/first_kernels.py:12, {'y' * 100}"),
                          lower.locator(root)) for root in roots]
    assert said[0] == said[1] == f"ValueError: {words} at kernels/first_kernels.py:12, {'y' * 100}"[:612]


def test_lab_artifacts_writes_lowered_json(tmp_path):
    done = subprocess.run([sys.executable, "-m", "reader.labs.child", str(tmp_path), "first_kernels"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert "lowered.json" in manifest["first_kernels"]["files"]
    doc = json.loads((tmp_path / "first_kernels" / "lowered.json").read_text())
    ids = {m["id"]: m for m in doc["modules"]}
    assert set(ids) >= {"add-jaxpr", "add-mosaic-tpu", "add-triton"}
    assert "add-mosaic-gpu" not in ids   # a pallas_call: Mosaic GPU takes none at jax 0.12.0.1
    add = ids["add-mosaic-tpu"]
    line = _line((ROOT / "kernels/first_kernels.py").read_text(), "o_ref[...] = x_ref[...] + y_ref[...]")
    (addf,) = [op for op in add["ops"] if op["op"] == "arith.addf"]
    assert addf["primitive"] == "add" and addf["loc"]["line"] == line


@pytest.fixture(scope="module")
def canonical(tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("canonical")
    done = subprocess.run([sys.executable, "-m", "reader.labs.child", str(out), "canonical"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["canonical"]["error"] == ""
    modules = {}
    for name in manifest["canonical"]["files"]:
        for m in json.loads((out / "canonical" / name).read_text())["modules"]:
            modules[m["id"]] = m
    return modules


def _pinned_line(loc: dict) -> str:
    """The text of a location's line in the installed pinned package."""
    import jax
    import tokamax
    package = {"jax": jax, "tokamax": tokamax}[loc["pin"]]
    base = Path(package.__file__).resolve().parents[1]
    return (base / loc["file"]).read_text().splitlines()[loc["line"] - 1]


@pytest.mark.parametrize("module_id, op, primitive, path, words", [
    ("flash_attention-mosaic-tpu", "tpu.matmul", "dot_general",
     "jax/experimental/pallas/ops/tpu/flash_attention.py", ("dot",)),
    ("flash_attention-mosaic-tpu", "math.exp", "exp", "jax/experimental/pallas/ops/tpu/flash_attention.py", ("exp",)),
    ("splash_attention-mosaic-tpu", "tpu.matmul", "dot_general",
     "jax/experimental/pallas/ops/tpu/splash_attention/splash_attention_kernel.py", ("dot",)),
])
def test_canonical_tpu_kernels_located_in_the_pinned_files(canonical, module_id, op, primitive, path, words):
    module = canonical[module_id]
    hits = [o for o in module["ops"] if o["op"] == op]
    assert hits and all(o["primitive"] == primitive and o["loc"]["file"] == path and o["loc"]["pin"] == "jax"
                        for o in hits)
    assert all(any(w in _pinned_line(o["loc"]) for w in words) for o in hits)
    assert _fraction(coverage(module)) >= 0.8, coverage(module)


def test_canonical_sm90_kernel_lowers_to_mosaic_gpu_with_tokamax_lines(canonical):
    module = canonical["sm90_attention-mosaic-gpu"]
    assert "error" not in module and module["rule_key"] == "Warpgroup/Warpgroup"
    sm90 = "tokamax/_src/ops/attention/pallas_mosaic_gpu_kernel_sm90.py"
    wgmma = [o for o in module["ops"] if o["primitive"] == "wgmma" and o["loc"]]
    assert wgmma and {o["loc"]["pin"] for o in wgmma} == {"tokamax"}
    assert any(o["loc"]["file"] == sm90 and "wgmma" in _pinned_line(o["loc"]) for o in wgmma)
    assert _fraction(coverage(module)) >= 0.8, coverage(module)


def test_output_reads_as_the_renderer_reads_it(ladder, canonical):
    from reader.errors import Location
    from reader.ir import lower
    from reader.render.ir.lowered import parse_lowered
    for modules in (ladder, canonical):
        doc = json.dumps(lower.document(list(modules.values()))).encode()
        parsed = parse_lowered(doc, Location("lowered.json"))
        assert len(parsed.modules) == len(modules)


LABS = ("first_kernels", "tiled_matmul", "pipelining", "lowering_ladder", "finding_the_spill", "flash_attention",
        "flash_attention_bwd", "block_sparse", "autotuned_op", "ring_attention", "mosaic_gpu_matmul",
        "reduce_scatter")


@pytest.fixture(scope="module")
def every_lab() -> dict[str, list[dict]]:
    import importlib

    from reader.ir import lower
    locate = lower.locator(ROOT)
    return {name: lower.lower_all(importlib.import_module(f"kernels.{name}").lowerings(), locate) for name in LABS}


def test_every_registered_lab_declares_lowerings():
    from kernels import LABS as REGISTERED
    assert set(REGISTERED) == set(LABS)


@pytest.mark.parametrize("lab", LABS)
def test_each_lab_lowers_with_located_ops(every_lab, lab):
    """Each lab lowers for its jaxpr and at least one compiler backend; in every lowered module at
    least 40% of the ops carry a location, some in the labs' kernels; a refusal says why."""
    modules = every_lab[lab]
    assert str(ROOT) not in json.dumps(modules)  # paths are project- or pin-relative
    lowered = [m for m in modules if not m.get("error")]
    assert {m["backend"] for m in lowered} - {"jaxpr"}, [m.get("error") for m in modules]
    assert "jaxpr" in {m["backend"] for m in lowered}
    for m in lowered:
        c = coverage(m)
        assert c.total and _fraction(c) >= 0.4, (m["id"], c.located, c.total, c.unlocated[:5])
        assert any(op["loc"] and op["loc"]["file"].startswith("kernels/") for op in m["ops"]), m["id"]
    for m in modules:
        if m.get("error"):
            assert m["ops"] == [] and m["text"] == "" and len(m["error"]) > 10


def _add(x, y, compiler_params=None):
    import jax
    from jax.experimental import pallas as pl

    def kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] + y_ref[...]
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=compiler_params)(x, y)


def _lower_one(fn, backend):
    import jax.numpy as jnp

    from kernels import _platform as plat
    from reader.ir import lower
    x = jnp.ones((8, 128), jnp.float32)
    return lower.lower_all([plat.Lowering("add", _add, fn, (x, x), ("jaxpr", backend))], lower.locator(ROOT))


def test_a_pallas_call_given_to_mosaic_gpu_is_a_build_error_not_its_refusal():
    """At jax 0.12.0.1 a pallas_call has no Mosaic GPU lowering (jax's own `assert rule is not
    None`): the page's mistake, located at the function, never a 'Mosaic GPU (refused)' tab."""
    from reader.ir import lower
    with pytest.raises(lower.MisbuiltKernel, match=r"Mosaic GPU has no pallas_call lowering at jax .*, and kernel "
                                                   r"is a pallas_call") as raised:
        _lower_one(_add, "mosaic_gpu")
    assert raised.value.location.path == "tests/test_ir_lower.py"
    assert "leave 'mosaic_gpu' out of its Lowering's backends" in raised.value.hint


@pytest.mark.parametrize("backend, params", [("triton", "tpu"), ("mosaic_tpu", "triton")])
def test_another_backends_compiler_params_are_a_build_error(backend, params):
    from reader.ir import lower

    def fn(x, y):
        if params == "tpu":
            from jax.experimental.pallas import tpu as pltpu
            return _add(x, y, pltpu.CompilerParams())
        from jax.experimental.pallas import triton as pltriton
        return _add(x, y, pltriton.CompilerParams())

    with pytest.raises(lower.MisbuiltKernel, match=r"its pallas_call kernel carries jax\._src\.pallas\."
                                                   r"(mosaic|triton)\.core\.CompilerParams, built for another"):
        _lower_one(fn, backend)


def test_a_function_that_does_not_trace_is_a_build_error():
    from reader.ir import lower

    def fn(x, y):
        return _add(x, y[:4])

    with pytest.raises(lower.MisbuiltKernel, match="does not trace"):
        _lower_one(fn, "mosaic_tpu")


def test_a_kernel_built_for_its_backend_lowers_and_its_refusal_stays_a_refusal(ladder):
    from jax.experimental.pallas import triton as pltriton
    modules = {m["id"]: m for m in _lower_one(lambda x, y: _add(x, y, pltriton.CompilerParams()), "triton")}
    assert not modules["add-triton"].get("error") and "tt.func" in modules["add-triton"]["text"]
    assert "dot_general" in ladder["matmul-mosaic-gpu"]["error"]   # Mosaic GPU's own verdict, kept
