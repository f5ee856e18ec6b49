"""LAB·4.2: ring attention over 4 host devices against single-device attention.

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
    done = lab.rerun_with_devices(4, ["--devices", "4", "--seq", "256"])
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_ring_of_four_matches_single_device(ring_output):
    assert "ring of 4 host devices" in ring_output
    errors = [float(e) for e in re.findall(r"single-device attention ([\d.e+-]+);", ring_output)]
    assert len(errors) == 2 and all(e <= 1e-5 for e in errors), ring_output


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
    assert lab.main(["--devices", "2", "--seq", "128"]) == 0
    assert "ring of 2 host devices" in capsys.readouterr().out
