"""LAB·4.2 · Ring attention: attention across devices, with the collective inside the kernel.

The sequence is split over n devices (`shard_map`, q, k and v sharded along the sequence).
Each device keeps its query block and, for n steps, attends it to the key/value block it
holds, then hands that block to the next device on the ring: after n - 1 shifts every query
block has met every key block and no device ever held more than one. Causal attention skips a
step when the block came from a later device and masks only the block that is its own: the
diagonal test again, now between devices.

The lab writes the ring twice. `ring_attention` is the ring as tokamax writes it: the flash
kernel of LAB·3.2 per step, the partial results merged by log-sum-exp (o = o_a e^(lse_a - lse)
+ o_b e^(lse_b - lse), lse = logaddexp(lse_a, lse_b)), and XLA's `lax.ppermute` between kernel
launches, issued before the step's compute so the two can overlap. `ring_kernel` puts the
collective inside one `pallas_call`, as the TPU distributed guide does: the key/value block
sits in a two-slot VMEM buffer, and at each step the kernel starts a
`pltpu.make_async_remote_copy` of the slot it computes on into the other slot of the
right-hand device (`device_id={"ring": right}`), with a DMA semaphore on each end (send here,
receive there), runs the online-softmax update of the step, then waits for its own send and
for the block arriving from the left. Three semaphores make that safe: the barrier semaphore
(`pltpu.get_barrier_semaphore`, given by `collective_id`), signalled to both neighbours before
any copy, so no device writes into a kernel that has not started; the DMA semaphores, which
count bytes; and a regular semaphore by which a device tells its left neighbour that a slot is
free again, waited on before each copy after the first. Without that last handshake a fast
device overwrites a slot its neighbour is still reading: the TPU interpreter's race detector
(`InterpretParams(detect_races=True)`) reports it, and the lab shows both runs.

On a CPU the n devices are host devices (`--xla_force_host_platform_device_count`, or
`jax_num_cpu_devices` before jax starts its backends; `main` reruns itself in a child process
when this process started with fewer). The ppermute ring's per-step kernel is interpreted, and
the in-kernel ring runs in the TPU interpreter, which models every device's VMEM, the remote
DMAs between them and the semaphores. Both are checked against single-device attention and
against each other; the in-kernel ring is lowered for a TPU as well (`tpu.enqueue_dma` with a
`device_id`, `tpu.sem_signal` to a neighbour, `tpu.sem_barrier`).

Exercises: jax/_src/pallas/mosaic/primitives.py::make_async_remote_copy, jax/_src/pallas/mosaic/primitives.py::AsyncCopyDescriptor, jax/_src/pallas/mosaic/primitives.py::get_barrier_semaphore, jax/_src/pallas/primitives.py::semaphore_signal, jax/_src/pallas/mosaic/lowering.py::_dma_start_lowering_rule, jax/_src/pallas/mosaic/interpret/interpret_pallas_call.py::dma_start, tokamax/_src/ops/experimental/tpu/splash_attention/ring_attention_kernel.py::_ring_attention_forward, jax/experimental/pallas/ops/tpu/flash_attention.py::below_or_on_diag
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh, PartitionSpec

from kernels import _platform as plat
from kernels.flash_attention import attend_block, attention_reference, flash_forward, loop_kernel

# %% One ring step: a flash block, merged by log-sum-exp
AXIS = "ring"


def _block(q, k, v, *, causal: bool, scale: float, block: int):
    return flash_forward(q, k, v, causal=causal, sm_scale=scale, block_q=block, block_k=block)


def _skip(q):
    return jnp.zeros_like(q), jnp.full(q.shape[:-1], -jnp.inf, jnp.float32)


def merge(o_a, lse_a, o_b, lse_b):
    """Combine two attention results over disjoint key sets by their log-sum-exps."""
    lse = jnp.logaddexp(lse_a, lse_b)
    return o_a * jnp.exp(lse_a - lse)[..., None] + o_b * jnp.exp(lse_b - lse)[..., None], lse


# %% The ring outside the kernel: shard_map, with ppermute passing k and v on
def ring_body(q, k, v, *, n: int, causal: bool, scale: float, block: int):
    """What one device runs: n steps of attend-then-shift; returns its rows of the output."""
    me = jax.lax.axis_index(AXIS)
    shift = [(i, (i + 1) % n) for i in range(n)]
    o, lse = _skip(q)
    for step in range(n):
        src = (me - step) % n   # the device whose key/value block this one holds now
        if step < n - 1:        # start the shift before the compute, so the two can overlap
            k_next, v_next = jax.lax.ppermute(k, AXIS, shift), jax.lax.ppermute(v, AXIS, shift)
        if causal:
            branch = jnp.where(src > me, 0, jnp.where(src == me, 2, 1))
            o_b, lse_b = jax.lax.switch(branch, [
                lambda q, k, v: _skip(q),
                functools.partial(_block, causal=False, scale=scale, block=block),
                functools.partial(_block, causal=True, scale=scale, block=block)], q, k, v)
        else:
            o_b, lse_b = _block(q, k, v, causal=False, scale=scale, block=block)
        o, lse = merge(o, lse, o_b, lse_b)
        if step < n - 1:
            k, v = k_next, v_next
    return o.astype(q.dtype)


def pairs_computed(n: int, causal: bool) -> int:
    """(device, step) pairs that attend rather than skip: causal skips blocks from later devices."""
    return sum(not causal or (me - step) % n <= me for me in range(n) for step in range(n))


SPEC = PartitionSpec(None, None, AXIS, None)


def ring_attention(q, k, v, mesh: Mesh, *, causal: bool = False, block: int = 32) -> jax.Array:
    """Attention of (batch, heads, seq, head_dim) arrays with the sequence split over `mesh`:
    the flash kernel per step, `ppermute` between steps."""
    n = mesh.shape[AXIS]
    if q.shape[2] % (n * block):
        raise ValueError(f"seq {q.shape[2]} must split into {n} devices x blocks of {block}")
    body = functools.partial(ring_body, n=n, causal=causal, scale=1.0 / math.sqrt(q.shape[-1]), block=block)
    fn = jax.shard_map(body, mesh=mesh, in_specs=(SPEC, SPEC, SPEC), out_specs=SPEC, check_vma=False)
    q, k, v = jax.device_put((q, k, v), jax.sharding.NamedSharding(mesh, SPEC))
    with plat.TARGET("interpret"):   # host devices, even on a machine with a GPU
        return jax.jit(fn)(q, k, v)


# %% The ring inside the kernel: remote DMAs between devices, and three semaphores
def ring_kernel(q_ref, k_ref, v_ref, o_ref, kv_buf, m_sc, l_sc, acc_sc, send_sem, recv_sem, free_sem, *,
                n: int, causal: bool, scale: float, handshake: bool = True):
    """One (batch, head) of the ring on one device: n steps, each attending the query block to
    the key/value slot it holds while a remote DMA sends that slot to the right-hand device."""
    me = jax.lax.axis_index(AXIS)
    right, left = jax.lax.rem(me + 1, n), jax.lax.rem(me + n - 1, n)

    barrier = pltpu.get_barrier_semaphore()      # both neighbours are inside this kernel
    pl.semaphore_signal(barrier, device_id={AXIS: left})
    pl.semaphore_signal(barrier, device_id={AXIS: right})
    pl.semaphore_wait(barrier, 2)

    kv_buf[0, 0], kv_buf[0, 1] = k_ref[...], v_ref[...]
    m_sc[...] = jnp.full(m_sc.shape, -jnp.inf, jnp.float32)
    l_sc[...] = jnp.zeros(l_sc.shape, jnp.float32)
    acc_sc[...] = jnp.zeros(acc_sc.shape, jnp.float32)

    def attend(slot: int, masked: bool) -> None:
        carry = (m_sc[...], l_sc[...], acc_sc[...])
        m_sc[...], l_sc[...], acc_sc[...] = attend_block(
            q_ref[...], kv_buf[slot, 0], kv_buf[slot, 1], carry, scale=scale, mask_at=(0, 0) if masked else None)

    for step in range(n):
        cur, nxt = step % 2, (step + 1) % 2
        if step < n - 1:
            if step > 0 and handshake:
                pl.semaphore_wait(free_sem, 1)   # the right-hand device is done with its slot nxt
            copy = pltpu.make_async_remote_copy(kv_buf.at[cur], kv_buf.at[nxt], send_sem, recv_sem,
                                                device_id={AXIS: right})
            copy.start()
        src = jax.lax.rem(me - step + n, n)      # the device whose key/value block this is
        if causal:
            pl.when(src < me)(functools.partial(attend, cur, masked=False))
            pl.when(src == me)(functools.partial(attend, cur, masked=True))
        else:
            attend(cur, masked=False)
        if step < n - 1:
            copy.wait_send()                     # slot cur has left: it may be overwritten
            copy.wait_recv()                     # slot nxt holds the left-hand device's block
            if step < n - 2 and handshake:
                pl.semaphore_signal(free_sem, 1, device_id={AXIS: left})
    o_ref[...] = (acc_sc[...] / l_sc[...]).astype(o_ref.dtype)


def ring_call(shape: tuple[int, ...], dtype: Any, n: int, *, causal: bool, handshake: bool = True,
              interpret: Any = False, debug: bool = False) -> Any:
    """The in-kernel ring's `pallas_call` for one device's (batch, heads, seq / n, head_dim) shard."""
    batch, heads, rows, head_dim = shape
    spec = pl.BlockSpec((None, None, rows, head_dim), lambda b, h: (b, h, 0, 0))
    kernel = functools.partial(ring_kernel, n=n, causal=causal, scale=1.0 / math.sqrt(head_dim),
                               handshake=handshake)
    return pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct(shape, dtype), grid=(batch, heads),
        in_specs=[spec] * 3, out_specs=spec,
        scratch_shapes=[pltpu.VMEM((2, 2, rows, head_dim), dtype),           # two slots of (k, v)
                        pltpu.VMEM((rows, 1), jnp.float32), pltpu.VMEM((rows, 1), jnp.float32),
                        pltpu.VMEM((rows, head_dim), jnp.float32),
                        pltpu.SemaphoreType.DMA(()), pltpu.SemaphoreType.DMA(()),
                        pltpu.SemaphoreType.REGULAR(())],
        # Every device must take the grid's steps in the same order, or the copies of one head
        # meet the waits of another: no "parallel" axis in a communicating kernel.
        compiler_params=pltpu.CompilerParams(collective_id=0, dimension_semantics=("arbitrary", "arbitrary")),
        interpret=interpret, debug=debug)


def ring_attention_in_kernel(q, k, v, mesh: Mesh, *, causal: bool = False, handshake: bool = True,
                             interpret: Any = None) -> jax.Array:
    """The same attention, the ring inside one kernel; the TPU interpreter unless `interpret` says."""
    n = mesh.shape[AXIS]
    if q.shape[2] % n:
        raise ValueError(f"seq {q.shape[2]} must split into {n} devices")
    local = (*q.shape[:2], q.shape[2] // n, q.shape[3])
    call = ring_call(local, q.dtype, n, causal=causal, handshake=handshake,
                     interpret=pltpu.InterpretParams() if interpret is None else interpret)
    fn = jax.shard_map(call, mesh=mesh, in_specs=(SPEC, SPEC, SPEC), out_specs=SPEC, check_vma=False)
    q, k, v = jax.device_put((q, k, v), jax.sharding.NamedSharding(mesh, SPEC))
    return jax.jit(fn)(q, k, v)


@dataclass(frozen=True)
class Races:
    """What the TPU interpreter's race detector saw in one run of the in-kernel ring."""

    handshake: bool
    found: bool
    reports: int
    error: float


def race_params() -> tuple[Any, str]:
    """`InterpretParams` with the race detector on, and what this jax lacks of it ("" if nothing):
    `on_race="warn"` (print and go on) is absent before jax 0.11, whose detector only records."""
    fields = {f.name for f in dataclasses.fields(pltpu.InterpretParams)}
    if "on_race" in fields:
        return pltpu.InterpretParams(detect_races=True, on_race="warn"), ""
    return pltpu.InterpretParams(detect_races=True), (
        f"jax {jax.__version__}'s InterpretParams has no on_race (added in jax 0.11): races are recorded, "
        "not reported one by one")


def races(mesh: Mesh, q, k, v, *, handshake: bool) -> Races:
    """Run the in-kernel ring with the race detector on (`on_race="warn"`: it prints and goes on)."""
    from jax._src.pallas.mosaic.interpret import interpret_pallas_call as tpu_interpret

    params, _ = race_params()
    # The detector logs a race on a read to its module's logger, one on a write to the root logger.
    with plat.log_lines("jax._src.pallas.mosaic.interpret.race_detection_state", "") as lines:
        out = ring_attention_in_kernel(q, k, v, mesh, causal=True, handshake=handshake, interpret=params)
        out.block_until_ready()
    state = tpu_interpret.races
    found = bool(state is not None and state.races_found)
    reports = sum(line.startswith("RACE DETECTED") for line in lines)
    return Races(handshake, found, reports, plat.max_abs_error(out, attention_reference(q, k, v, causal=True)))


# %% Checked against single-device attention
@dataclass(frozen=True)
class Check:
    causal: bool
    error: float
    """The ppermute ring against single-device attention."""
    error_in_kernel: float
    """The in-kernel ring against single-device attention."""
    kernel_vs_ppermute: float
    """The two rings against each other."""
    blocks_computed: int
    blocks_total: int


def inputs(batch: int = 1, heads: int = 2, seq: int = 256, head_dim: int = 32) -> list[jax.Array]:
    return [jax.device_put(x, jax.devices("cpu")[0]) for x in plat.randn(17, *[(batch, heads, seq, head_dim)] * 3)]


def check(n: int = 4, batch: int = 1, heads: int = 2, seq: int = 256, head_dim: int = 32,
          block: int = 32) -> list[Check]:
    mesh = plat.host_mesh(n, AXIS)
    q, k, v = inputs(batch, heads, seq, head_dim)
    host = jax.devices("cpu")[0]
    out = []
    for causal in (False, True):
        ring = jax.device_put(ring_attention(q, k, v, mesh, causal=causal, block=block), host)
        inside = jax.device_put(ring_attention_in_kernel(q, k, v, mesh, causal=causal), host)
        ref = attention_reference(q, k, v, causal=causal)
        out.append(Check(causal, plat.max_abs_error(ring, ref), plat.max_abs_error(inside, ref),
                         plat.max_abs_error(inside, ring), pairs_computed(n, causal), n * n))
    return out


# %% What the site shows: both kernels lowered
class RingLowering(plat.Lowering):
    """The in-kernel ring, built for a TPU inside an abstract mesh of `RING` v5e devices on the
    ring axis (its `axis_index` and `device_id`s need the axis; no TPU needed to lower)."""

    @contextlib.contextmanager
    def building(self, backend: str) -> Iterator[None]:
        with plat.TARGET("tpu"), jax.sharding.use_abstract_mesh(ring_mesh_abstract()):
            yield


RING = 4


def ring_mesh_abstract() -> jax.sharding.AbstractMesh:
    device = jax.sharding.AbstractDevice(plat.TPU_KIND, 1, "tpu")
    return jax.sharding.AbstractMesh((RING,), (AXIS,), abstract_device=device)


def _ring_lowered(q, k, v):
    local = (*q.shape[:2], q.shape[2] // RING, q.shape[3])
    call = ring_call(local, q.dtype, RING, causal=True)
    return jax.shard_map(call, mesh=ring_mesh_abstract(), in_specs=(SPEC, SPEC, SPEC), out_specs=SPEC,
                         check_vma=False)(q, k, v)


def lowerings() -> list[plat.Lowering]:
    """For the site (reader/ir): the in-kernel ring lowered for a TPU, remote DMAs and all, and
    the kernel each step of the ppermute ring runs (LAB·3.2's `loop_kernel` on one shard)."""
    q, k, v = plat.randn(21, *[(1, 2, 64, 32)] * 3)
    sharded = jax.sharding.NamedSharding(ring_mesh_abstract(), SPEC)
    shard = jax.ShapeDtypeStruct((1, 2, 256, 32), jnp.float32, sharding=sharded)
    return [RingLowering("ring_kernel", ring_kernel, _ring_lowered, (shard, shard, shard),
                         backends=("jaxpr", "mosaic_tpu")),
            plat.Lowering("ring_block", loop_kernel, lambda a, b, c: _block(
                a, b, c, causal=True, scale=1.0 / math.sqrt(32), block=32), (q, k, v))]


# %% On a TPU: the in-kernel ring natively on the chip's one device
def native_ring(dtype: Any = jnp.float32, causal: bool = True, seq: int = 512, head_dim: int = 128) -> tuple[Any, Any]:
    """The in-kernel ring compiled for the chip, on a ring of its one device (no remote copy: the
    barrier and the attention); `(output, reference)`."""
    q, k, v = plat.randn(17, *[(1, 2, seq, head_dim)] * 3, dtype=dtype)
    out = ring_attention_in_kernel(q, k, v, Mesh(jax.devices()[:1], (AXIS,)), causal=causal, interpret=False)
    ref = attention_reference(*(x.astype(jnp.float32) for x in (q, k, v)), causal=causal)
    return out, ref


def chip(runs: int = 20) -> Any:
    from kernels import _record as rec

    checks = [rec.check(f"ring_kernel on 1 device, causal={causal}", *native_ring(dtype, causal), dtype)
              for dtype in (jnp.float32, jnp.bfloat16) for causal in (False, True)]
    notes = ["more devices stay with the TPU interpreter on host CPU devices (python -m kernels.ring_attention)"]
    if (lacks := race_params()[1]):
        notes.append(lacks)
    return rec.Measured(tuple(checks), notes=tuple(notes))


# %% The lab's run
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = plat.parser("ring_attention", __doc__)
    p.add_argument("--devices", type=int, default=4, help="ring size (host devices), at least 2")
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--races", action=argparse.BooleanOptionalAction, default=True,
                   help="also run the in-kernel ring under the race detector, with and without the handshake")
    args = p.parse_args(argv)
    if (status := plat.with_host_devices("kernels.ring_attention", args.devices, argv)) is not None:
        return status
    print(f"ring_attention: (1, 2, {args.seq}, 32) float32 over a ring of {args.devices} host devices, "
          f"{args.seq // args.devices} rows each: the ppermute ring's flash kernel (blocks 32) in interpret "
          f"mode and the in-kernel ring in the TPU interpreter, since the ring needs {args.devices} devices "
          f"whatever chip the runtime has")
    for c in check(n=args.devices, seq=args.seq):
        print(f"  causal={c.causal!s:5}: max abs error vs single-device attention: ppermute ring "
              f"{c.error:.2e}, in-kernel ring {c.error_in_kernel:.2e}; in-kernel vs ppermute "
              f"{c.kernel_vs_ppermute:.2e}; {c.blocks_computed} of {c.blocks_total} device-block pairs "
              f"computed, {args.devices - 1} shifts of k and v")
    if plat.on_tpu():
        out, ref = native_ring()
        print(f"  natively on {jax.devices()[0].device_kind}, a ring of its one device (causal, 512 rows, "
              f"head_dim 128): max abs error vs single-device attention {plat.max_abs_error(out, ref):.2e}")
    if args.races:
        if (lacks := race_params()[1]):
            print(f"  {lacks}")
        mesh, (q, k, v) = plat.host_mesh(args.devices, AXIS), inputs(seq=args.seq)
        for handshake in (True, False):
            r = races(mesh, q, k, v, handshake=handshake)
            print(f"  race detector, {'with' if handshake else 'without'} the free-slot handshake: "
                  f"{'races found' if r.found else 'no race'}; max abs error {r.error:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
