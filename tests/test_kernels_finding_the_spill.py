"""LAB·2.2: register pressure read off the Triton IR; the ptxas step on a GPU only."""

from __future__ import annotations

import pytest

from kernels import _platform as plat
from kernels import finding_the_spill as lab


def test_kernel_matches_jnp():
    assert lab.check((64, 64, 32), size=128) < 1e-3


def test_accumulator_registers_grow_with_the_block_until_they_must_spill():
    small, medium, big = (lab.pressure(b)[0] for b in lab.BLOCKS)
    assert small.carried == ("tensor<64x64xf32>",)
    assert big.loaded == ("tensor<256x32xf32>", "tensor<32x256xf32>")
    assert [p.accumulator_registers for p in (small, medium, big)] == [32, 128, 512]
    assert small.verdict == "fits" and big.verdict.startswith("must spill")


def test_parse_ptxas_report():
    report = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'matmul_kernel' for 'sm_90a'
ptxas info    : Function properties for matmul_kernel
    1024 bytes stack frame, 1536 bytes spill stores, 1792 bytes spill loads
ptxas info    : Used 255 registers, 384 bytes cmem[0]
"""
    assert lab.parse_ptxas(report) == [lab.Spill("matmul_kernel", 255, 1536, 1792)]


def test_main_skips_the_compile_step_with_the_reason(capsys):
    if plat.on_gpu():
        pytest.skip("this test covers the CPU path")
    assert lab.main([]) == 0
    out = capsys.readouterr().out
    assert out.count("compile: skipped (no GPU") == 3 and "must spill" in out


@pytest.mark.skipif(not plat.on_gpu(), reason=plat.NO_GPU_REASON)
def test_ptxas_finds_the_spill_of_the_big_block():
    big = lab.compile_and_find_spills(lab.BLOCKS[-1])
    small = lab.compile_and_find_spills(lab.BLOCKS[0])
    assert big and max(s.spill_stores for s in big) > 0
    assert small and max(s.spill_stores for s in small) == 0
