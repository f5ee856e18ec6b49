"""EXTRA·A: the Mosaic GPU matmul lowered for sm90 on this host, priced in SMEM, and run (in the
GPU interpreter here, natively on a Hopper GPU) against jnp."""

from __future__ import annotations

from pathlib import Path

import jax
import pytest

from kernels import mosaic_gpu_matmul as lab


@pytest.fixture(scope="module")
def shapes():
    return lab._shapes(lab.SHAPE)


@pytest.mark.parametrize("config", [lab.Config(), lab.Config(tile_m=64, tile_k=128)], ids=str)
def test_each_pipeline_step_issues_the_wgmmas_its_tile_needs(shapes, config):
    """m64nNk16 per instruction: (tile_m / 64) x (tile_k / 16) of them a step, N the tile's width."""
    anatomy = lab.anatomy(lab.mosaic_module(lambda a, b, **kw: lab.matmul(a, b, config, **kw), *shapes))
    assert len(anatomy.wgmma) == lab.wgmma_per_step(config) == (config.tile_m // 64) * (config.tile_k // 16)
    assert set(anatomy.wgmma) == {f"m64n{config.tile_n}k16.f32.f16.f16"}
    assert anatomy.tma_loads >= 2 and anatomy.tma_stores == 1


def test_warp_specialized_kernel_has_one_wgmma_sequence_per_compute_warpgroup_tile(shapes):
    anatomy = lab.anatomy(lab.mosaic_module(lab.matmul_ws, *shapes))
    assert len(anatomy.wgmma) == lab.wgmma_per_step(lab.Config(tile_m=64)) == 4
    assert set(anatomy.wgmma) == {"m64n128k16.f32.f16.f16"}


def test_smem_model_is_the_compilers_count_and_the_budget_refuses():
    refused = lab.refusal(lab.Config(tile_n=256, steps=4))
    assert refused.compiler == refused.modelled == lab.smem_bytes(refused.config)
    assert refused.compiler > refused.budget == 232448          # an H100 block's 227 KiB
    assert lab.smem_bytes(lab.Config()) < refused.budget
    with pytest.raises(ValueError, match="fits in SMEM"):
        lab.refusal(lab.Config())


def test_both_kernels_match_jnp():
    """In the GPU interpreter on a CPU (wgmma, TMA and barriers simulated), natively on a GPU."""
    checks = lab.check()
    assert [c.kernel for c in checks] == ["matmul", "matmul_ws"]
    assert all(c.error <= c.tolerance for c in checks), checks


def test_site_lowers_both_kernels_to_a_jaxpr_and_a_mosaic_gpu_module():
    from reader.ir.lower import locator, lower_all

    modules = lower_all(lab.lowerings(), locator(Path(__file__).resolve().parents[1]))
    assert [m["id"] for m in modules] == ["matmul-jaxpr", "matmul-mosaic-gpu", "matmul_ws-jaxpr",
                                          "matmul_ws-mosaic-gpu"]
    assert not any(m.get("error") for m in modules), [m.get("error") for m in modules]
    jaxpr = modules[0]["text"]
    assert "wgmma_ref" in jaxpr and "wgmma_wait" in jaxpr
    assert any(op["loc"] and op["loc"]["file"] == "kernels/mosaic_gpu_matmul.py" for op in modules[1]["ops"])


def test_main_prints_the_anatomy_the_budget_and_the_runs(capsys, tmp_path):
    assert lab.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "8 wgmma.mma_async per step" in out and "refused, 262176 bytes > 232448 available" in out
    where = "natively on" if jax.default_backend() == "gpu" else "in the GPU interpreter on cpu"
    assert f"run {where}" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mosaic_gpu_matmul.matmul.mlir",
                                                          "mosaic_gpu_matmul.matmul_ws.mlir"]
