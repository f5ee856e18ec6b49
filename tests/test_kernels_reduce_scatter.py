"""EXTRA·D: a bidirectional reduce-scatter and an all-reduce written with remote DMAs, on 4 host
devices in the TPU interpreter, against psum_scatter and psum, under the race detector, and
lowered for a TPU.

jax reads the host device count once, when it starts its backends; other tests in this session
have started them already, so the collectives run in a child python with its own XLA_FLAGS.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout

import jax
import pytest

from kernels import _platform as plat
from kernels import reduce_scatter as lab


@pytest.fixture(scope="module")
def output() -> str:
    done = plat.rerun_with_devices("kernels.reduce_scatter", 4, ["--devices", "4"])
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _error(output: str, what: str) -> float:
    [error] = re.findall(rf"{what} max abs error vs jax\.lax\.\w+ ([\d.e+-]+|inf|nan) ", output)
    return float(error)


def test_reduce_scatter_matches_psum_scatter_within_tolerance(output):
    assert "over a ring of 4 host devices" in output and "two rings of 3 steps each" in output
    assert _error(output, "reduce_scatter:") <= lab.TOLERANCE, output


def test_all_reduce_matches_psum_within_tolerance(output):
    assert _error(output, "all_reduce:") <= lab.TOLERANCE, output


def test_race_detector_finds_the_race_the_handshake_prevents(output):
    assert "reduce_scatter, with the free-slot handshake: no race; max abs error" in output
    assert "reduce_scatter, without the free-slot handshake: races found" in output
    assert "all_reduce, with the free-slot handshake: no race; max abs error" in output


def test_sent_block_reaches_each_device_its_own_block():
    """Ring arithmetic: what a device sends at step s arrives as the block its neighbour sends at
    step s + 1, and the last block received is the receiver's own."""
    n = 5
    for d in lab.DIRECTIONS:
        for me in range(n):
            for step in range(n - 1):
                receiver = (me + d) % n
                assert int(lab.sent_block(me, d, step, n)) == int(lab.sent_block(receiver, d, step + 1, n))
            assert int(lab.sent_block((me - d) % n, d, n - 1, n)) == (me - d) % n


def test_main_reruns_itself_when_this_process_has_too_few_devices(capsys):
    # Start this process's backends (one host device): main must delegate to a child.
    assert len(jax.devices("cpu")) < 2
    assert lab.main(["--devices", "2", "--no-races"]) == 0
    out = capsys.readouterr().out
    assert "ring of 2 host devices" in out and "race detector" not in out
    assert _error(out, "reduce_scatter:") <= lab.TOLERANCE and _error(out, "all_reduce:") <= lab.TOLERANCE


def test_race_params_fit_this_jax():
    params, how = lab.race_params()
    assert params is not None and params.detect_races
    assert ("on_race='warn'" in how) == hasattr(params, "on_race")


@pytest.mark.parametrize("kind", ["reduce_scatter", "all_reduce"])
def test_collectives_lower_for_a_tpu_with_remote_dmas(kind):
    """Lowered inside an abstract 4-device v5e mesh: two rings of 3 steps, one remote DMA per ring
    and step (twice that for the all-reduce's gather), each naming its device."""
    lowering = next(lo for lo in lab.lowerings() if lo.name == kind)
    out = io.StringIO()
    with lowering.building("mosaic_tpu"), redirect_stdout(out):
        x = lowering.args[0]
        call = lab.collective_call(kind, (x.shape[0] // lab.RING, x.shape[1]), x.dtype, lab.RING, debug=True)
        plat.lower(lambda x: jax.shard_map(call, mesh=lab.ring_mesh_abstract(), in_specs=lab.SPEC,
                                           out_specs=lab.SPEC, check_vma=False)(x), (x,), "tpu")
    mosaic = out.getvalue().split("The Mosaic module for pallas_call")[1]
    dmas = [line for line in mosaic.splitlines() if "tpu.enqueue_dma" in line]
    steps = 2 * (lab.RING - 1) * (1 if kind == "reduce_scatter" else 2)
    assert len(dmas) == steps and all("device_id" in line for line in dmas)
    signals = [line for line in mosaic.splitlines() if "tpu.sem_signal" in line]
    assert len(signals) == 2 + 2 * (lab.RING - 2) and all("device_id" in line for line in signals)
    assert "tpu.sem_barrier" in mosaic
