"""LAB·2.2: register pressure read off the Triton IR, and the spill found by pip Triton's compiler
and its bundled ptxas on this host (no GPU needed)."""

from __future__ import annotations

import pytest

from kernels import finding_the_spill as lab

SMALL, SPILLS = (64, 64, 32), (128, 128, 32)
needs_triton = pytest.mark.skipif(not lab.have_triton(), reason=lab.NO_TRITON_REASON)


def test_kernel_matches_jnp():
    assert lab.check((64, 64, 32), size=128) < 1e-3


def test_triton_ir_is_the_custom_calls_module_as_text():
    ir = lab.triton_ir(SMALL)
    assert ir.startswith("module @matmul_kernel {") and "tt.func public @matmul_kernel" in ir
    assert "tt.dot" in ir and "loc(" not in ir


def test_accumulator_registers_grow_with_the_block_until_they_must_spill():
    small, medium, big = (lab.pressure(b)[0] for b in lab.BLOCKS)
    assert small.carried == ("tensor<64x64xf32>",)
    assert big.loaded == ("tensor<256x32xf32>", "tensor<32x256xf32>")
    assert [p.accumulator_registers for p in (small, medium, big)] == [32, 128, 512]
    assert small.verdict.startswith("fits") and big.verdict.startswith("must spill")


def test_parse_ptxas_report():
    report = """ptxas-blackwell info    : 0 bytes gmem
ptxas-blackwell info    : Compiling entry function 'matmul_kernel' for 'sm_90a'
ptxas-blackwell info    : Function properties for matmul_kernel
    96 bytes stack frame, 168 bytes spill stores, 160 bytes spill loads
ptxas-blackwell info    : Used 255 registers, used 1 barriers, 96 bytes cumulative stack size
"""
    assert lab.parse_ptxas(report) == [lab.Spill("matmul_kernel", 255, 168, 160)]
    assert lab.parse_ptxas(report.replace("ptxas-blackwell", "ptxas")) == lab.parse_ptxas(report)


def test_spill_stores_take_the_line_of_the_comment_above():
    sass = """\t//## File "finding_the_spill.128x128x32.ttir", line 72
        /*0350*/                   LOP3.LUT R4, R8, 0x1, RZ, 0xc0, !PT ;
        /*0360*/                   STL [R1+0x34], R10 ;
\t//## File "finding_the_spill.128x128x32.ttir", line 25
        /*04c0*/                   STL.64 [R1+0x20], R4 ;
        /*04d0*/                   LDL R5, [R1+0x20] ;
"""
    assert lab.spill_stores(sass) == [lab.SpillStore(72, "STL [R1+0x34], R10 ;"),
                                      lab.SpillStore(25, "STL.64 [R1+0x20], R4 ;")]


@needs_triton
def test_ptxas_finds_the_spill_of_the_bigger_block_only():
    small, spills = lab.compile_for(SMALL), lab.compile_for(SPILLS)
    assert small.spill.spill_stores == 0 and small.spill.spill_loads == 0 and not small.stores
    assert small.spill.registers <= lab.MAX_REGISTERS
    assert spills.spill.spill_stores > 0 and spills.spill.registers == lab.MAX_REGISTERS
    assert spills.stores and all(s.instruction.startswith("STL") for s in spills.stores)
    assert spills.ptx_local_stores == 0  # PTX has virtual registers: the spill is ptxas's
    lines = spills.ir.splitlines()
    assert all(0 < n <= len(lines) for n, _, _ in spills.hot_lines())


@needs_triton
def test_main_prints_the_spill_counts(capsys):
    assert lab.main(["--block", "64,64,32", "--block", "128,128,32"]) == 0
    out = capsys.readouterr().out
    assert "0 bytes spill stores" in out and "STL spill stores in the SASS (nvdisasm): 0" in out
    spilled = [line for line in out.splitlines() if "bytes spill stores" in line][1]
    assert not spilled.split("registers, ")[1].startswith("0 bytes")


def test_main_without_triton_says_why(capsys, monkeypatch):
    monkeypatch.setattr(lab, "have_triton", lambda: False)
    assert lab.main(["--block", "64,64,32"]) == 0
    assert f"compile: skipped ({lab.NO_TRITON_REASON})" in capsys.readouterr().out


@needs_triton
def test_artifacts_hold_the_ir_and_the_ptxas_report(tmp_path, monkeypatch):
    monkeypatch.setattr(lab, "BLOCKS", (SPILLS,))
    paths = lab.artifacts(tmp_path)
    assert [p.name for p in paths] == ["finding_the_spill.128x128x32.ttir.mlir",
                                       "finding_the_spill.128x128x32.ptxas.txt"]
    report = paths[1].read_text()
    assert report.startswith("$ ptxas -v -arch=sm_90a") and "Function properties for matmul_kernel" in report
    assert "STL [R1+" in report and "Compile time" not in report and " s)" not in report
