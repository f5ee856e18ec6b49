"""LAB·1.1: add, scale and rowsum kernels against jnp, and the jaxprs the lab prints."""

from __future__ import annotations

import pytest

from kernels import _platform as plat
from kernels import first_kernels as lab


def test_kernels_match_jnp():
    runs = {r.name: r for r in lab.run(rows=16, cols=256)}
    assert set(runs) == {"add", "scale", "rowsum"}
    assert runs["add"].error == 0.0 and runs["scale"].error == 0.0
    assert runs["rowsum"].error < 1e-4


def test_jaxprs_show_one_pallas_call_and_the_ref_body():
    runs = {r.name: r for r in lab.run(rows=8, cols=128)}
    assert runs["add"].outer_jaxpr.count("pallas_call[") == 1
    assert "Ref" in runs["add"].kernel_jaxpr and "add" in runs["add"].kernel_jaxpr
    assert "mul" in runs["scale"].kernel_jaxpr
    assert "reduce_sum" in runs["rowsum"].kernel_jaxpr
    assert "scan" in runs["rowsum"].kernel_jaxpr or "while" in runs["rowsum"].kernel_jaxpr


def test_artifacts_write_outer_and_kernel_jaxprs(tmp_path):
    paths = lab.artifacts(tmp_path)
    assert len(paths) == 6 and all(p.stat().st_size > 0 for p in paths)
    assert "pallas_call" in (tmp_path / "first_kernels.add.outer.jaxpr.txt").read_text()


def test_main_prints_errors_and_jaxprs(capsys):
    assert lab.main(["--rows", "8", "--cols", "128"]) == 0
    out = capsys.readouterr().out
    assert "rowsum: max abs error vs jnp" in out and "kernel jaxpr" in out


def test_native_gpu_build_lowers_to_triton_on_any_host():
    x, y = plat.randn(0, (16, 256), (16, 256))
    for fn, args in ((lab.add, (x, y)), (lab.scale, (x,)), (lab.rowsum, (x,))):
        assert plat.lower_for_gpu(fn, *args).count("__gpu$xla.gpu.triton") == 1, fn


@pytest.mark.skipif(not plat.on_gpu(), reason=plat.NO_GPU_REASON)
def test_native_gpu_path_compiles_without_interpret():
    runs = lab.run(rows=16, cols=256)
    assert "interpret=False" in runs[0].outer_jaxpr
    assert all(r.error < 1e-4 for r in runs)
