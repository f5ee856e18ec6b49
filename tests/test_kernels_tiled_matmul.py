"""LAB·1.2: the tiled matmul at two block shapes, the intensity model and the roofline SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from kernels import _platform as plat
from kernels import tiled_matmul as lab


def test_both_forms_match_jnp():
    errors = lab.check(512)
    assert set(errors) == {f"matmul {b}" for b in lab.BLOCK_SHAPES} | {f"panel_matmul {lab.PANEL_BLOCK}"}
    assert all(e < 1e-3 for e in errors.values()), errors


def test_block_that_does_not_divide_is_refused():
    x, y = plat.randn(0, (192, 128), (128, 128))
    with pytest.raises(ValueError, match="does not divide"):
        lab.matmul(x, y, (128, 128, 128))


def test_intensity_follows_the_panel_reuse_model():
    # 2MNK / (s (MNK/bn + MNK/bm + MN)) for M = N = K = 1024, s = 2, bm = bn = 128.
    e = lab.estimate((128, 128, 64), lab.CHIPS[0], (1024, 1024, 1024, 2))
    assert e.hbm_bytes == 2 * (1024**3 / 128 * 2 + 1024**2)
    assert e.intensity == pytest.approx(2 / (2 * (2 / 128 + 1 / 1024)))
    small, big = (lab.estimate(b, lab.CHIPS[1]) for b in lab.BLOCK_SHAPES)
    assert big.intensity > small.intensity and big.seconds < small.seconds
    assert small.attainable == pytest.approx(small.intensity * lab.CHIPS[1].hbm_bytes_per_s)


def test_roofline_estimate_caps_at_peak_for_a_huge_block():
    e = lab.estimate((8192, 8192, 128), lab.CHIPS[0])
    assert e.bound == "compute" and e.attainable == lab.CHIPS[0].peak_flops


def test_roofline_svg_is_valid_and_marks_every_chip_and_block(tmp_path):
    (path,) = lab.artifacts(tmp_path)
    root = ET.fromstring(path.read_text())
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}polyline")) == len(lab.CHIPS)
    assert len(root.findall(f"{ns}circle")) == len(lab.CHIPS) * len(lab.BLOCK_SHAPES)
    text = path.read_text()
    assert all(c.name in text for c in lab.CHIPS)


def test_main_prints_the_table(capsys):
    assert lab.main([]) == 0
    out = capsys.readouterr().out
    assert "TPU v5e" in out and "H200 SXM" in out and "FLOP/B" in out
    assert out.count("max abs error") == 3


def test_native_gpu_build_lowers_to_triton_on_any_host():
    x, y = plat.randn(0, (256, 256), (256, 256))
    hlo = plat.lower_for_gpu(lambda a, b: lab.panel_matmul(a, b, (128, 128, 64)), x, y)
    assert hlo.count("__gpu$xla.gpu.triton") == 1 and "grid_x = 2" in hlo
