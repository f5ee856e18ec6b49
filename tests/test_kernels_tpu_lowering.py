"""Every kernel a TPU lab presents lowers for the abstract TPU v5e (CI has no chip), and the earlier
forms kept as lessons are refused where a TPU refuses them."""

from __future__ import annotations

import importlib

import jax
import pytest

from kernels import LABS
from kernels import _platform as plat


def _tpu_lowerings() -> list[tuple[str, plat.Lowering]]:
    """The TPU labs' (those with a `chip()`) kernels that their pages show lowered for Mosaic TPU."""
    out = []
    for name in LABS:
        module = importlib.import_module(f"kernels.{name}")
        if not hasattr(module, "chip"):
            continue
        for lowering in getattr(module, "lowerings", list)():
            if "mosaic_tpu" in lowering.backends:
                out.append((f"{name}:{lowering.name}", lowering))
    return out


def _lower_for_tpu(lowering: plat.Lowering) -> str:
    fn = lowering.variants.get("mosaic_tpu", lowering.fn)
    with lowering.building("mosaic_tpu"):
        return jax.jit(fn).trace(*lowering.args).lower(lowering_platforms=("tpu",)).as_text()


TPU_KERNELS = _tpu_lowerings()


def test_every_tpu_lab_presents_a_tpu_kernel():
    labs = {key.partition(":")[0] for key, _ in TPU_KERNELS}
    assert {"first_kernels", "tiled_matmul", "pipelining", "flash_attention", "flash_attention_bwd",
            "block_sparse", "ring_attention"} <= labs


@pytest.mark.parametrize("key,lowering", TPU_KERNELS, ids=[k for k, _ in TPU_KERNELS])
def test_lowers_for_the_abstract_tpu_v5e(key, lowering):
    text = _lower_for_tpu(lowering)
    assert "tpu_custom_call" in text, key


def _lesson(fn, *args) -> plat.Lowering:
    return plat.Lowering("lesson", fn, fn, args, ("mosaic_tpu",))


def test_the_rank1_row_sum_is_refused_by_the_tpu_lowering():
    from kernels import first_kernels as lab
    x = plat.randn(0, (32, 256))[0]
    with pytest.raises(ValueError, match="rank 1 block shapes"):
        _lower_for_tpu(_lesson(lab.rowsum_rank1, x))
    assert "tpu_custom_call" in _lower_for_tpu(_lesson(lab.rowsum, x))


def test_the_row_statistics_block_is_refused_by_the_tpu_lowering():
    from kernels import flash_attention as lab
    x = plat.randn(0, (2, 256, 128))[0]
    with pytest.raises(ValueError, match="divisible by 8 and 128"):
        _lower_for_tpu(_lesson(lab.row_block_stats, x))


def test_the_unaligned_lane_slice_lowers_here_and_only_mosaic_refuses_it():
    # What interpret mode cannot prove: Pallas lowers `x_ref[:, pl.ds(k * 64, 64)]` for a TPU on
    # any host; the chip's Mosaic compiler refuses it (kernels/runs/tpu-v5-lite/tiled_matmul.json).
    from kernels import tiled_matmul as lab
    x, y = plat.randn(0, (256, 256), (256, 256))
    assert "tpu_custom_call" in _lower_for_tpu(_lesson(lambda a, b: lab.panel_matmul(a, b, lab.PANEL_BLOCK), x, y))
