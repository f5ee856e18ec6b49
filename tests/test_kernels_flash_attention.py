"""LAB·3.2: flash attention forward against jnp and against jax's TPU kernel (interpreted), and
the copies the clamped index map saves, counted by the TPU interpreter."""

from __future__ import annotations

import pytest

from kernels import _platform as plat
from kernels import flash_attention as lab


def test_matches_reference_and_the_tpu_kernel_to_1e_5():
    for c in lab.check(seq=256, head_dim=64, block=64):
        assert c.vs_reference <= 1e-5, c
        assert c.vs_tpu_kernel <= 1e-5, c
        assert c.vs_loop_kernel <= 1e-5, c


def test_solution_kernel_passes_the_learner_check():
    cases = lab.check_kernel(lab.flash_kernel)
    assert len(cases) == len(lab.KERNEL_CASES) and all(c.ok for c in cases), cases
    assert {c.causal for c in cases} == {False, True}


def test_the_index_map_repeats_the_held_block_above_the_diagonal():
    seq, bq, bk = 256, 64, 32
    blocks = lab.kv_block_sequence(seq, seq, bq, bk, causal=True)
    nk = seq // bk
    for r in range(seq // bq):
        for c in range(1, nk):
            if not lab.below_or_on_diag(r, bq, c, bk):
                assert blocks[r * nk + c] == blocks[r * nk + c - 1], (r, c)
            else:
                assert blocks[r * nk + c] == c
    assert lab.kv_block_sequence(seq, seq, bq, bk, causal=False) == list(range(nk)) * (seq // bq)


@pytest.mark.parametrize(("block_q", "block_k"), [(32, 32), (64, 32), (32, 64)])
def test_the_interpreter_copies_only_the_blocks_the_diagonal_needs(block_q, block_k):
    seq = 128
    clamped = lab.counted_copies(seq, block_q, block_k, causal=True)
    unclamped = lab.counted_copies(seq, block_q, block_k, causal=True, clamp=False)
    steps = (seq // block_q) * (seq // block_k)
    assert clamped["q"] == unclamped["q"] == seq // block_q            # one copy per query block
    assert unclamped["k"] == unclamped["v"] == steps                     # every step a new block
    assert clamped["k"] == clamped["v"] == lab.modelled_copies(seq, seq, block_q, block_k, True)
    assert clamped["k"] < steps
    visible = lab.block_count(seq, seq, block_q, block_k, causal=True)
    # Each query block copies its visible blocks, less block 0 when the last step held it already.
    held = sum(lab.last_visible_block(r - 1, block_q, block_k) == 0 for r in range(1, seq // block_q))
    assert clamped["k"] == visible.unmasked + visible.masked - held


@pytest.mark.parametrize(("block_q", "block_k"), [(32, 64), (64, 32)])
def test_unequal_blocks_causal(block_q, block_k):
    q, k, v = plat.randn(2, *[(1, 1, 128, 32)] * 3)
    s = (q @ k.swapaxes(-1, -2))[0, 0] / 32 ** 0.5
    s = s + lab.jnp.where(lab.jnp.tril(lab.jnp.ones((128, 128), bool)), 0.0, -lab.jnp.inf)
    for forward in (lab.flash_forward, lab.tiled_forward):
        out, lse = forward(q, k, v, causal=True, block_q=block_q, block_k=block_k)
        assert plat.max_abs_error(out, lab.attention_reference(q, k, v, causal=True)) <= 1e-5
        assert plat.max_abs_error(lse[0, 0], lab.jax.nn.logsumexp(s, axis=-1)) <= 1e-4


def test_diagonal_test_block_counts():
    n = lab.block_count(256, 256, 64, 64, causal=True)
    assert (n.total, n.unmasked, n.masked, n.skipped) == (16, 6, 4, 6)
    n = lab.block_count(256, 256, 64, 32, causal=True)
    assert n.unmasked + n.masked == sum(-(-(r + 1) * 64 // 32) for r in range(4))
    assert lab.block_count(256, 256, 64, 64, causal=False).skipped == 0


def test_diagonal_predicates():
    assert lab.below_or_on_diag(0, 64, 0, 64) and not lab.below_or_on_diag(0, 64, 1, 64)
    assert lab.fully_below_diag(1, 64, 0, 64) and not lab.fully_below_diag(1, 64, 1, 64)
    assert lab.diagonal_test_agrees(256, 64, 64)
    # Odd block sizes expose the pinned kernel's strict `>`: row 2 meets column 2 exactly.
    assert not lab.diagonal_test_agrees(9, 3, 1)


def test_blocks_must_divide():
    q = plat.randn(0, (1, 1, 96, 32))[0]
    with pytest.raises(ValueError, match="must divide"):
        lab.flash_forward(q, q, q, block_q=64, block_k=64)
    with pytest.raises(ValueError, match="must divide"):
        lab.tiled_forward(q, q, q, block_q=64, block_k=64)


def test_native_gpu_build_lowers_to_triton_on_any_host():
    q, k, v = plat.randn(0, *[(1, 2, 128, 32)] * 3)
    hlo = plat.lower_for_gpu(lambda q, k, v: lab.flash_forward(q, k, v, causal=True)[0], q, k, v)
    assert hlo.count("__gpu$xla.gpu.triton") == 1


@pytest.mark.skipif(not plat.on_gpu(), reason=plat.NO_GPU_REASON)
def test_native_gpu_matches_reference():
    for c in lab.check(seq=256, head_dim=64, block=64, with_tpu_kernel=False):
        assert c.vs_reference <= 1e-5


def test_schedule_svg_matches_the_block_counts(tmp_path):
    labels = lab.schedule_labels(512, 64, 32)
    n = lab.block_count(512, 512, 64, 32, causal=True)
    flat = [v for row in labels for v in row]
    assert (flat.count(2), flat.count(1), flat.count(0)) == (n.unmasked, n.masked, n.skipped)
    (path,) = lab.artifacts(tmp_path)
    assert path.read_text().count("<rect") == 1 + len(flat) + 3
