"""LAB·2.1: the five rungs lowered on a CPU host, and the rung that refuses a matmul."""

from __future__ import annotations

import jax
import pytest

from kernels import _platform as plat
from kernels import lowering_ladder as lab


@pytest.fixture(scope="module")
def rungs():
    return {r.name: r for r in lab.ladder()}


def test_kernel_runs_and_matches_jnp():
    assert lab.check() < 1e-5


def test_every_rung_is_the_ir_it_claims(rungs):
    assert list(rungs) == ["outer jaxpr", "kernel jaxpr", "Mosaic TPU MLIR", "Triton IR", "Mosaic GPU MLIR"]
    assert "pallas_call[" in rungs["outer jaxpr"].text
    assert "Ref" in rungs["kernel jaxpr"].text and "exp" in rungs["kernel jaxpr"].text
    tpu = lab.op_counts(rungs["Mosaic TPU MLIR"].text)
    assert tpu["math.exp"] == 1 and tpu["vector.load"] == 2
    assert "#tpu.memory_space<vmem>" in rungs["Mosaic TPU MLIR"].text
    triton = lab.op_counts(rungs["Triton IR"].text)
    assert "tt.func" in rungs["Triton IR"].text and triton["tt.store"] == 1 and triton["tt.load"] >= 2
    assert "mosaic_gpu" in rungs["Mosaic GPU MLIR"].text
    assert "mosaic_gpu.arch_major = 9 : i32" in rungs["Mosaic GPU MLIR"].text   # the abstract H100
    assert rungs["Mosaic GPU MLIR"].lines > rungs["Triton IR"].lines > rungs["Mosaic TPU MLIR"].lines


def test_op_counts_reads_operations_not_types():
    text = "%0 = arith.constant 1 : i32\n  %1 = tpu.matmul %a, %b : vector<8x128xf32>\n  func.return\n"
    assert lab.op_counts(text) == {"arith.constant": 1, "tpu.matmul": 1, "func.return": 1}


def test_mosaic_gpu_refuses_dot_general_for_want_of_a_rule():
    by_backend = {r.backend: r for r in lab.refusals()}
    assert by_backend["Mosaic TPU"].has_rule and "tpu.matmul" in by_backend["Mosaic TPU"].outcome
    assert by_backend["Triton"].has_rule and "tt.dot" in by_backend["Triton"].outcome
    refused = by_backend["Mosaic GPU"]
    assert not refused.has_rule
    assert refused.outcome.startswith("NotImplementedError") and "dot_general" in refused.outcome


def test_artifacts_save_each_rung(tmp_path):
    paths = lab.artifacts(tmp_path)
    assert [p.name.split(".")[1] for p in paths] == ["1", "2", "3", "4", "5"]
    assert "tt.func" in (tmp_path / "lowering_ladder.4.triton.ttir.mlir").read_text()


@pytest.mark.skipif(plat.on_gpu(), reason="covers a host without a GPU")
def test_a_host_without_a_gpu_lowers_for_one_only_through_an_abstract_device():
    x, y = plat.randn(4, lab.SHAPE, lab.SHAPE)

    def fn(a, b):
        return lab.exp_add(a, b, compiler_params=lab._triton_params())

    with pytest.raises(RuntimeError, match="please specify an abstract GPU device"):
        jax.jit(fn).trace(x, y).lower(lowering_platforms=("cuda",))
    assert plat.lower(fn, (x, y), "cuda").as_text().count("__gpu$xla.gpu.triton") == 1
