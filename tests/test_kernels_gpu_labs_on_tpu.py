"""The GPU labs (LAB·2.1, LAB·2.2, EXTRA·A) on a TPU host, faked by `jax.default_backend()`
answering "tpu": their kernels are built for a GPU, so they run interpreted on the host's CPU and
lower for CUDA with an abstract GPU, printing the verdicts a CPU host prints. Before
`kernels/_gpu.py`, LAB·2.2 built a native TPU call with Triton compiler parameters here (the
chip raised an AssertionError in pallas_call_registration.py)."""

from __future__ import annotations

import re
import threading

import jax
import pytest

from kernels import _gpu, finding_the_spill, lowering_ladder, mosaic_gpu_matmul
from kernels import _platform as plat

LABS = {
    "lowering_ladder": (lowering_ladder.main, ["--lines", "3"]),
    "finding_the_spill": (finding_the_spill.main, ["--block", "64,64,32", "--block", "256,256,32"]),
    "mosaic_gpu_matmul": (mosaic_gpu_matmul.main, []),
}


def _verdicts(capsys, lab: str) -> str:
    """What the lab prints, with where it ran and its timings taken out."""
    main, argv = LABS[lab]
    assert main(argv) == 0
    out = capsys.readouterr().out.replace(_gpu.where().removeprefix("interpret mode "), "<where>")
    out = out.replace(f"on {jax.default_backend()} for tpu and cuda", "on <host> for tpu and cuda")
    out = out.replace(f"sm90) on {jax.default_backend()}", "sm90) on <host>")
    out = re.sub(r"_kernel_\d+\b", "_kernel_N", out)   # a lowering's name counts the lowerings before it
    return re.sub(r", compiled in [\d.]+ s", "", out)


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="fakes a TPU host on a CPU host (no GPU, no TPU)")
@pytest.mark.parametrize("lab", list(LABS))
def test_a_gpu_lab_on_a_tpu_host_prints_what_it_prints_on_a_cpu_host(lab, capsys, monkeypatch):
    on_cpu = _verdicts(capsys, lab)
    monkeypatch.setattr(jax, "default_backend", lambda: "tpu")
    assert plat.on_tpu() and not plat.interpret() and _gpu.interpret()
    assert "this host's cpu" in _gpu.where() and "its tpu runs the TPU labs" in _gpu.where()
    on_tpu = _verdicts(capsys, lab)
    assert on_tpu == on_cpu
    assert "<where>" in on_tpu and "error" in on_tpu


def _without_absl(monkeypatch):
    """Mosaic GPU's import failing as it does at jax 0.10.2 without absl-py."""
    def import_module(name):
        raise ModuleNotFoundError("No module named 'absl'", name="absl")
    monkeypatch.setattr(_gpu, "import_module", import_module)


def test_a_missing_package_is_one_line_with_its_pip_command_and_the_rest_runs(monkeypatch, capsys):
    _without_absl(monkeypatch)
    with pytest.raises(_gpu.MissingPart, match=r"needs the package absl-py, .*\(pip install absl-py\)$"):
        _gpu.mosaic_gpu()
    rungs = {r.name: r for r in lowering_ladder.ladder()}
    assert "pip install absl-py" in (rungs["Mosaic GPU MLIR"].skipped or "")
    assert rungs["Triton IR"].skipped is None and "tt.func" in rungs["Triton IR"].text
    refused = {r.backend: r for r in lowering_ladder.refusals()}["Mosaic GPU"]
    assert refused.has_rule is None and refused.outcome.startswith("skipped: Mosaic GPU")


def test_a_lab_that_is_all_mosaic_gpu_exits_1_with_the_one_line(monkeypatch, capsys):
    monkeypatch.setattr(mosaic_gpu_matmul, "MISSING", _gpu.MissingPart("Mosaic GPU needs the package absl-py, "
                                                                       "not installed here (pip install absl-py)"))
    assert mosaic_gpu_matmul.main([]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "mosaic_gpu_matmul: Mosaic GPU needs the package absl-py, not installed here (pip install absl-py)"]


def test_a_jax_whose_kernel_prints_no_module_skips_that_rung_saying_so(monkeypatch):
    plgpu = _gpu.mosaic_gpu()
    monkeypatch.setattr(plgpu, "kernel", lambda body, *, out_type, interpret=None: None)
    with pytest.raises(_gpu.MissingPart, match=r"plgpu.kernel takes no debug="):
        _gpu.mosaic_gpu_debug()


def test_on_a_tpu_host_the_interpreters_own_threads_default_to_the_cpu_too(monkeypatch):
    """The Mosaic GPU interpreter runs each GPU thread's callbacks on threads of its own: with a
    default device set for the calling thread only, the chip's jax 0.10.2 put their arrays on the
    TPU ("Barrier remains allocated", then an abort with 12 TPU executables pending)."""
    monkeypatch.setattr(jax, "default_backend", lambda: "tpu")
    seen = []
    before = jax.config.jax_default_device
    with _gpu.host():
        thread = threading.Thread(target=lambda: seen.append(jax.config.jax_default_device))
        thread.start()
        thread.join()
    assert seen == [jax.devices("cpu")[0]]
    assert jax.config.jax_default_device is before
