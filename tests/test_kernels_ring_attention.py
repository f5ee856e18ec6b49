"""LAB·4.2: ring attention over 4 host devices, the collective outside the kernel (ppermute) and
inside it (remote DMAs in the TPU interpreter), against single-device attention and each other.

jax reads the host device count once, when it starts its backends; other tests in this
session have started them already, so the ring runs in a child python with its own XLA_FLAGS.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest

from kernels import _platform as plat
from kernels import ring_attention as lab


@pytest.fixture(scope="module")
def ring_output() -> str:
    done = plat.rerun_with_devices("kernels.ring_attention", 4, ["--devices", "4", "--seq", "256"])
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


TOLERANCE = 1e-5
"""float32 attention over 256 keys; both rings measure about 7e-7 against the reference here."""


def _errors(output: str, what: str) -> list[float]:
    return [float(e) for e in re.findall(rf"{what} ([\d.e+-]+|inf|nan)[;,]", output)]


def test_ring_of_four_matches_single_device(ring_output):
    assert "ring of 4 host devices" in ring_output
    errors = _errors(ring_output, "ppermute ring")
    assert len(errors) == 2 and all(e <= TOLERANCE for e in errors), ring_output


def test_in_kernel_ring_matches_the_reference_and_the_ppermute_ring(ring_output):
    inside, between = _errors(ring_output, "in-kernel ring"), _errors(ring_output, "in-kernel vs ppermute")
    assert len(inside) == 2 and all(e <= TOLERANCE for e in inside), ring_output
    assert len(between) == 2 and all(e <= TOLERANCE for e in between), ring_output


def test_race_detector_finds_the_race_the_handshake_prevents(ring_output):
    assert "with the free-slot handshake: no race; max abs error" in ring_output
    assert "without the free-slot handshake: races found" in ring_output


def test_causal_ring_skips_blocks_from_later_devices(ring_output):
    assert "causal=True : " in ring_output and "10 of 16 device-block pairs computed" in ring_output
    assert lab.pairs_computed(4, causal=True) == 10 and lab.pairs_computed(4, causal=False) == 16


def test_merge_by_logsumexp_is_exact():
    q, k, v = plat.randn(1, (1, 1, 8, 4), (1, 1, 16, 4), (1, 1, 16, 4))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 2.0

    def part(lo, hi):
        p = s[..., lo:hi]
        lse = jnp.log(jnp.sum(jnp.exp(p), -1))
        return jnp.einsum("bhqk,bhkd->bhqd", jnp.exp(p - lse[..., None]), v[:, :, lo:hi]), lse

    o, _ = lab.merge(*part(0, 6), *part(6, 16))
    assert plat.max_abs_error(o, part(0, 16)[0]) <= 1e-6


def test_main_reruns_itself_when_this_process_has_too_few_devices(capsys):
    # Start this process's backends (one host device): main must delegate to a child.
    assert len(jax.devices("cpu")) < 2
    assert lab.main(["--devices", "2", "--seq", "128", "--no-races"]) == 0
    out = capsys.readouterr().out
    assert "ring of 2 host devices" in out and "race detector" not in out
    assert len(_errors(out, "in-kernel ring")) == 2


def test_in_kernel_ring_lowers_for_a_tpu_with_remote_dmas():
    """The kernel lowered inside an abstract 4-device v5e mesh: one remote DMA a shift, each
    naming its device, and the barrier and free-slot signals sent to a neighbour."""
    import io
    from contextlib import redirect_stdout

    [ring, _] = lab.lowerings()
    out = io.StringIO()
    with ring.building("mosaic_tpu"), redirect_stdout(out):
        shape = ring.args[0]
        call = lab.ring_call((1, 2, shape.shape[2] // lab.RING, 32), jnp.float32, lab.RING, causal=True, debug=True)
        plat.lower(lambda q, k, v: jax.shard_map(call, mesh=lab.ring_mesh_abstract(), in_specs=(lab.SPEC,) * 3,
                                                 out_specs=lab.SPEC, check_vma=False)(q, k, v), ring.args, "tpu")
    mosaic = out.getvalue().split("The Mosaic module for pallas_call")[1]
    dmas = [line for line in mosaic.splitlines() if "tpu.enqueue_dma" in line]
    assert len(dmas) == lab.RING - 1 and all("device_id" in line for line in dmas)
    signals = [line for line in mosaic.splitlines() if "tpu.sem_signal" in line]
    assert len(signals) == 2 + (lab.RING - 2) and all("device_id" in line for line in signals)
    assert "tpu.sem_barrier" in mosaic
