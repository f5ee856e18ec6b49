"""Runtime claims of the annotations, reproduced with the pinned jax on CPU: each test names the note it backs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import triton as pltriton

from kernels.pipelining import tpu_v5e_mesh

ROWS = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def block(shape, index_map=None) -> pl.BlockSpec:
    return pl.BlockSpec(shape, index_map)


def arange(rows: int) -> jax.Array:
    return jnp.arange(rows * 128, dtype=jnp.float32).reshape(rows, 128)


def first_rows(n: int) -> jax.Array:
    """An (8, 128) mask that keeps the first `n` rows (built inside a kernel: never captured)."""
    return jax.lax.broadcasted_iota(jnp.int32, (8, 128), 0) < n


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def whole(kernel, x: jax.Array, out=ROWS, interpret=True) -> np.ndarray:
    """`kernel` over one grid step that sees all of `x` and writes all of the output."""
    call = pl.pallas_call(kernel, out_shape=out, grid=(1,),
                          in_specs=[block(x.shape, lambda i: (0,) * x.ndim)],
                          out_specs=block(out.shape, lambda i: (0,) * len(out.shape)),
                          interpret=interpret)
    return np.asarray(call(x))


# interpret-mode.yaml

def test_im_hlo_dynamic_slice_clamps_a_block_index_past_the_end():
    """im-hlo-dynamic-slice: block index 2 of a (16, 128) input in blocks of (8, 128)."""
    x = arange(16)

    def call(interpret):
        return pl.pallas_call(copy_kernel, out_shape=ROWS, grid=(1,),
                              in_specs=[block((8, 128), lambda i: (2, 0))],
                              out_specs=block((8, 128), lambda i: (0, 0)), interpret=interpret)

    np.testing.assert_array_equal(call(True)(x), x[8:16])
    with pytest.raises(Exception, match="Out-of-bounds block index"):
        jax.block_until_ready(call(pltpu.InterpretParams())(x))


def test_im_hlo_pad_makes_a_ragged_edge_block_nan():
    """im-hlo-pad: a sum over the padded last block of a (20, 128) input is nan."""
    def total(x_ref, o_ref):
        o_ref[...] = jnp.full(o_ref.shape, jnp.sum(x_ref[...]))

    x = jnp.ones((20, 128), jnp.float32)
    out = pl.pallas_call(total, out_shape=jax.ShapeDtypeStruct((2, 8, 128), jnp.float32), grid=(2,),
                         in_specs=[block((16, 128), lambda i: (i, 0))],
                         out_specs=block((None, 8, 128), lambda i: (i, 0, 0)), interpret=True)(x)
    assert float(out[0, 0, 0]) == float(jnp.sum(x[:16]))
    assert np.isnan(out[1]).all()


def test_im_hlo_dtypes_a_wait_never_blocks():
    """im-hlo-dtypes, prim-semaphore-wait-discharge, prim-semaphore-signal-discharge."""
    def waits(x_ref, o_ref):
        def body(sem):
            pl.semaphore_signal(sem, 3)
            pl.semaphore_wait(sem, 2)
            pl.semaphore_wait(sem, 2)  # no signal left to match it: hardware would hang
            o_ref[...] = jnp.full(o_ref.shape, pl.semaphore_read(sem), jnp.float32)
        pl.run_scoped(body, pltpu.SemaphoreType.REGULAR(()))

    assert (whole(waits, arange(8)) == 3 - 2 - 2).all()


# blockspec-grid.yaml

def test_bs_default_index_map_hands_every_step_block_zero():
    """bs-default-index-map: a (16, 128) input read with BlockSpec((8, 128)) over grid (2,)."""
    x = arange(16)
    out = pl.pallas_call(copy_kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), grid=(2,),
                         in_specs=[block((8, 128))], out_specs=block((8, 128), lambda i: (i, 0)),
                         interpret=True)(x)
    np.testing.assert_array_equal(out[:8], x[:8])
    np.testing.assert_array_equal(out[8:], x[:8])


# mosaic-pipeline.yaml

def test_mp_window_slice_leaves_the_stale_tail_of_a_slot():
    """mp-window-slice: a (40, 128) input copied to (48, 128) through blocks (16, 128), grid (3,)."""
    x = jax.device_put(arange(40), jax.devices()[0])

    def kernel(x_hbm, o_hbm):
        pltpu.emit_pipeline(copy_kernel, grid=(3,), in_specs=[block((16, 128), lambda i: (i, 0))],
                            out_specs=[block((16, 128), lambda i: (i, 0))])(x_hbm, o_hbm)

    anywhere = pl.BlockSpec(memory_space=pl.ANY)
    call = jax.jit(pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((48, 128), jnp.float32),
                                  in_specs=[anywhere], out_specs=anywhere,
                                  interpret=pltpu.InterpretParams()))
    with jax.sharding.use_abstract_mesh(tpu_v5e_mesh()):
        out = np.asarray(call(x))
    np.testing.assert_array_equal(out[:40], x)
    np.testing.assert_array_equal(out[40:], x[8:16])


# primitives.yaml

def test_prim_program_id_refuses_an_axis_past_the_grid():
    """prim-program-id: the axis is checked against the grid at trace time."""
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + pl.program_id(1)

    with pytest.raises(ValueError, match="out of bounds for grid"):
        whole(kernel, arange(8))


def test_prim_num_programs_is_a_python_int_for_a_static_grid():
    """prim-num-programs: only program_id is traced."""
    seen: list[tuple[type, type]] = []

    def kernel(x_ref, o_ref):
        count = pl.num_programs(0)
        seen.append((type(count), type(pl.program_id(0))))
        o_ref[...] = jnp.full(o_ref.shape, pl.program_id(0) * 10 + count, jnp.float32)

    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((3, 8, 128), jnp.float32), grid=(3,),
                         in_specs=[block((8, 128), lambda i: (0, 0))],
                         out_specs=block((None, 8, 128), lambda i: (i, 0, 0)), interpret=True)(arange(8))
    (count_type, id_type), = seen
    assert count_type is int and id_type is not int
    assert [float(v) for v in out[:, 0, 0]] == [i * 10 + 3 for i in range(3)]


def test_prim_load_discharge_pads_past_the_end_where_get_shifts_back():
    """prim-load-discharge: eight rows from row twelve of a sixteen-row Ref."""
    x = arange(16)

    def masked(x_ref, o_ref):
        o_ref[...] = pltriton.load(x_ref.at[pl.ds(pl.program_id(0) + 12, 8), :])

    def plain(x_ref, o_ref):
        o_ref[...] = x_ref[pl.ds(pl.program_id(0) + 12, 8), :]

    padded = whole(masked, x)
    np.testing.assert_array_equal(padded[:4], x[12:16])
    assert np.isnan(padded[4:]).all()
    np.testing.assert_array_equal(whole(plain, x), x[8:16])


def test_prim_load_discharge_applies_the_mask_only_with_other():
    """prim-load-discharge: a mask alone changes nothing; with `other` it is a where."""
    x = arange(8)

    def with_other(x_ref, o_ref):
        o_ref[...] = pltriton.load(x_ref, mask=first_rows(3), other=-1.0)

    def mask_only(x_ref, o_ref):
        o_ref[...] = pltpu.load(x_ref, mask=first_rows(3))

    np.testing.assert_array_equal(whole(with_other, x), jnp.where(first_rows(3), x, -1.0))
    np.testing.assert_array_equal(whole(mask_only, x), x)


def test_prim_swap_discharge_keeps_masked_off_values_and_drops_what_runs_past():
    """prim-swap-discharge: a masked store, then a store whose window runs past the end."""
    x = arange(8)

    def masked(x_ref, o_ref):
        o_ref[...] = jnp.zeros_like(o_ref)
        pltpu.store(o_ref, x_ref[...], mask=first_rows(3))

    def past_the_end(x_ref, o_ref):
        o_ref[...] = jnp.zeros_like(o_ref)
        pltriton.store(o_ref.at[pl.ds(pl.program_id(0) + 4, 8), :], x_ref[...])

    np.testing.assert_array_equal(whole(masked, x), jnp.where(first_rows(3), x, 0.0))
    shifted = whole(past_the_end, x)
    assert (shifted[:4] == 0).all()
    np.testing.assert_array_equal(shifted[4:], x[:4])


def test_prim_run_scoped_generic_scratch_starts_nan():
    """prim-run-scoped-generic, prim-uninitialized: scratch read before it is written."""
    def kernel(x_ref, o_ref):
        def body(scratch):
            o_ref[...] = scratch[...]
        pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32))

    assert np.isnan(whole(kernel, arange(8))).all()


def test_prim_atomic_discharge_is_a_sequential_read_modify_write():
    """prim-atomic-discharge: four steps add one to one element; xchg has no meaning here."""
    def adds(x_ref, o_ref, old_ref):
        i = pl.program_id(0)

        @pl.when(i == 0)
        def _():
            o_ref[...] = x_ref[...]

        old_ref[i] = pltriton.atomic_add(o_ref, (pl.ds(0, 1),), jnp.ones((1,), jnp.float32))[0]

    one = jax.ShapeDtypeStruct((1,), jnp.float32)
    steps = jax.ShapeDtypeStruct((4,), jnp.float32)
    total, old = pl.pallas_call(adds, out_shape=(one, steps), grid=(4,),
                                in_specs=[block((1,), lambda i: (0,))],
                                out_specs=(block((1,), lambda i: (0,)), block((4,), lambda i: (0,))),
                                interpret=True)(jnp.zeros((1,), jnp.float32))
    assert [float(v) for v in old] == [0.0, 1.0, 2.0, 3.0]
    assert float(total[0]) == 4.0

    def exchanges(x_ref, o_ref):
        o_ref[...] = x_ref[...]
        pltriton.atomic_xchg(o_ref, (pl.ds(0, 1),), jnp.ones((1,), jnp.float32))

    with pytest.raises(NotImplementedError):
        pl.pallas_call(exchanges, out_shape=one, interpret=True)(jnp.zeros((1,), jnp.float32))


# mosaic-primitives.yaml

def test_mprim_dma_start_discharge_copies_before_the_wait():
    """mprim-dma-start-discharge: the destination already holds the data before the wait."""
    x = arange(8)

    def kernel(x_hbm, o_ref):
        def body(buf, sem):
            copy = pltpu.make_async_copy(x_hbm, buf, sem)
            copy.start()
            o_ref[...] = buf[...]
            copy.wait()
        pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA(()))

    out = pl.pallas_call(kernel, out_shape=ROWS, in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                         interpret=True)(x)
    np.testing.assert_array_equal(out, x)


# interpret-mode.yaml, the TPU interpreter against the HLO interpreter

def test_im_hlo_discharge_reads_an_any_ref_the_tpu_interpreter_refuses():
    """im-hlo-discharge: a direct load from a Ref in ANY (the Mosaic lowering half is not run here)."""
    x = arange(8)

    def call(interpret):
        return pl.pallas_call(copy_kernel, out_shape=ROWS, in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                              interpret=interpret)

    np.testing.assert_array_equal(call(True)(x), x)
    with pytest.raises(ValueError, match="cannot be referenced directly"):
        call(pltpu.InterpretParams())(x)


def test_im_tpu_revisit_raises_only_under_the_tpu_interpreter():
    """im-tpu-revisit: an output index map `i % 2` over grid (3,)."""
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + pl.program_id(0)

    def call(interpret):
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32), grid=(3,),
                              in_specs=[block((8, 128), lambda i: (0, 0))],
                              out_specs=block((8, 128), lambda i: (i % 2, 0)), interpret=interpret)

    x = arange(8)
    out = np.asarray(call(True)(x))
    np.testing.assert_array_equal(out[:8], x + 2)  # the third step's write wins
    with pytest.raises(Exception, match="Revisited block"):
        jax.block_until_ready(call(pltpu.InterpretParams())(x))


def test_im_tpu_prng_returns_zeros():
    """im-tpu-prng: hardware PRNG is not simulated by the TPU interpreter."""
    def kernel(x_ref, o_ref):
        pltpu.prng_seed(42)
        o_ref[...] = pltpu.prng_random_bits((8, 128)).astype(jnp.float32)

    out = pl.pallas_call(kernel, out_shape=ROWS, interpret=pltpu.InterpretParams())(arange(8))
    assert (np.asarray(out) == 0).all()
