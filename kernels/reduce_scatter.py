"""EXTRA·D · Reduce-scatter in a kernel: the other half of a sharded matmul, written with remote DMAs.

The track's own lab, not one of the outline's (hence `EXTRA·D`, not a `LAB·` number): it
writes the reduce-scatter and all-reduce of the TPU distributed guide the way LAB·4.2 writes
its ring, with the collective inside one `pallas_call`.

Each of n devices holds an addend `x` of n blocks of rows; after a reduce-scatter device `i`
holds block `i` of the sum over devices, which is `jax.lax.psum_scatter(x, axis,
scatter_dimension=0, tiled=True)`. On a ring that takes n - 1 steps: at each step a device
sends the partial sum it holds to its neighbour, receives one from its other neighbour, and
adds its own block to it; the partial sum that arrives at the last step is the device's own
block of the total. The kernel runs two rings at once, as the guide's bidirectional version
does: the left half of every block's columns travels right, the right half travels left, so
both links of each device carry half of the data.

What orders the devices is three kinds of semaphore, the same three LAB·4.2 needs. The
barrier semaphore (`pltpu.get_barrier_semaphore`, given by `collective_id`) is signalled to
both neighbours before any copy: no device writes into a kernel that has not started. Each
remote copy (`pltpu.make_async_remote_copy`) carries a DMA semaphore on each end, the send
one waited on here, the receive one on the neighbour. And a regular semaphore, signalled to
the device that sends to this one, says that a slot of the two-slot buffer is free again:
without it a device that runs ahead overwrites a partial sum its neighbour is still sending,
and the TPU interpreter's race detector reports it (the lab shows both runs). The all-reduce
is the reduce-scatter followed by an all-gather on the same two rings, each block copied
straight into the neighbours' outputs, one receive semaphore per step so that a neighbour
running ahead cannot satisfy the wait of a block that has not arrived.

On a CPU the n devices are host devices (`--xla_force_host_platform_device_count`; `main`
reruns itself in a child process when this one started with fewer), and the kernels run in
the TPU interpreter, which models every device's VMEM, the DMAs between them and the
semaphores. Both are checked against `jax.lax.psum_scatter` and `jax.lax.psum` within
`TOLERANCE` (float32 sums of the same n addends in another order), and lowered for a TPU
(`tpu.enqueue_dma` with a `device_id`, `tpu.sem_signal` to a neighbour).

Exercises: jax/_src/pallas/mosaic/primitives.py::make_async_remote_copy, jax/_src/pallas/mosaic/primitives.py::AsyncCopyDescriptor.wait_send, jax/_src/pallas/mosaic/primitives.py::AsyncCopyDescriptor.wait_recv, jax/_src/pallas/mosaic/primitives.py::get_barrier_semaphore, jax/_src/pallas/primitives.py::semaphore_signal, jax/_src/pallas/primitives.py::semaphore_wait, jax/_src/pallas/mosaic/interpret/interpret_pallas_call.py::dma_start
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import inspect
import io
import sys
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import Mesh, PartitionSpec

from kernels import _platform as plat

# %% Two rings at once: which block travels where
AXIS = "ring"
DIRECTIONS = (1, -1)
"""Ring 0 sends to the right-hand device (`me + 1`) the left half of the columns, ring 1 to the
left-hand device the right half."""
TOLERANCE = 1e-5
"""Max abs error against psum_scatter / psum: float32 sums of n standard normals in another order."""


def sent_block(me: Any, direction: int, step: int, n: int) -> Any:
    """The block whose partial sum device `me` sends at `step` on the ring going `direction`:
    the one it will hold whole is `me`, reached after n - 1 steps."""
    return jax.lax.rem(me - direction * (step + 1) + 2 * n * n, n)


def _columns(ring: int, half: int) -> slice:
    return slice(ring * half, (ring + 1) * half)


# %% The reduce-scatter: n - 1 steps of send, receive, add
def _reduce_scatter(x_ref, buf, send_sem, recv_sem, free_sem, *, n: int, handshake: bool) -> int:
    """Both rings' n - 1 steps; returns the slot of `buf` that holds this device's block of the sum."""
    me = jax.lax.axis_index(AXIS)
    rows, half = buf.shape[-2], buf.shape[-1]
    to = [jax.lax.rem(me + d + n, n) for d in DIRECTIONS]     # where each ring sends
    came = [jax.lax.rem(me - d + n, n) for d in DIRECTIONS]   # where each ring receives from

    def mine(ring: int, block: Any) -> Any:
        return x_ref[pl.ds(block * rows, rows), _columns(ring, half)].astype(jnp.float32)

    for ring, d in enumerate(DIRECTIONS):
        buf[ring, 0] = mine(ring, sent_block(me, d, 0, n))
    for step in range(n - 1):
        cur, nxt = step % 2, (step + 1) % 2
        copies = []
        for ring in range(2):
            if step > 0 and handshake:
                pl.semaphore_wait(free_sem.at[ring], 1)   # the receiver's slot nxt is free again
            copy = pltpu.make_async_remote_copy(buf.at[ring, cur], buf.at[ring, nxt], send_sem.at[ring],
                                                recv_sem.at[ring], device_id={AXIS: to[ring]})
            copy.start()
            copies.append(copy)
        for ring, (d, copy) in enumerate(zip(DIRECTIONS, copies, strict=True)):
            copy.wait_send()                                # slot cur has left: it may be overwritten
            copy.wait_recv()                                # slot nxt holds the sender's partial sum
            if step < n - 2 and handshake:
                pl.semaphore_signal(free_sem.at[ring], 1, device_id={AXIS: came[ring]})
            buf[ring, nxt] = buf[ring, nxt] + mine(ring, sent_block(me, d, step + 1, n))
    return (n - 1) % 2


def _barrier(n: int) -> None:
    """Both neighbours are inside this kernel before anything is written into them."""
    me = jax.lax.axis_index(AXIS)
    barrier = pltpu.get_barrier_semaphore()
    pl.semaphore_signal(barrier, device_id={AXIS: jax.lax.rem(me + n - 1, n)})
    pl.semaphore_signal(barrier, device_id={AXIS: jax.lax.rem(me + 1, n)})
    pl.semaphore_wait(barrier, 2)


def reduce_scatter_kernel(x_ref, o_ref, buf, send_sem, recv_sem, free_sem, *, n: int, handshake: bool = True):
    """x_ref: this device's addend, (n * rows, cols); o_ref: its block of the sum, (rows, cols)."""
    _barrier(n)
    done = _reduce_scatter(x_ref, buf, send_sem, recv_sem, free_sem, n=n, handshake=handshake)
    half = buf.shape[-1]
    for ring in range(2):
        o_ref[:, _columns(ring, half)] = buf[ring, done].astype(o_ref.dtype)


# %% The all-reduce: the same rings, then an all-gather into the neighbours' outputs
def all_reduce_kernel(x_ref, o_ref, buf, send_sem, recv_sem, free_sem, gather_sem, *, n: int):
    """x_ref and o_ref: (n * rows, cols); o_ref ends as the sum over devices of every x_ref."""
    _barrier(n)
    done = _reduce_scatter(x_ref, buf, send_sem, recv_sem, free_sem, n=n, handshake=True)
    me = jax.lax.axis_index(AXIS)
    rows, half = buf.shape[-2], buf.shape[-1]

    def block(ring: int, b: Any) -> Any:
        return o_ref.at[pl.ds(b * rows, rows), _columns(ring, half)]

    for ring in range(2):
        o_ref[pl.ds(me * rows, rows), _columns(ring, half)] = buf[ring, done].astype(o_ref.dtype)
    for step in range(n - 1):                 # forward the block that arrived last (own block first)
        copies = []
        for ring, d in enumerate(DIRECTIONS):
            b = jax.lax.rem(me - d * step + n * n, n)
            copy = pltpu.make_async_remote_copy(block(ring, b), block(ring, b), send_sem.at[ring],
                                                gather_sem.at[ring, step],
                                                device_id={AXIS: jax.lax.rem(me + d + n, n)})
            copy.start()
            copies.append(copy)
        for copy in copies:
            copy.wait_send()
            copy.wait_recv()


def _scratch(rows: int, cols: int) -> list[Any]:
    return [pltpu.VMEM((2, 2, rows, cols // 2), jnp.float32),   # per ring, two slots of partial sums
            pltpu.SemaphoreType.DMA((2,)), pltpu.SemaphoreType.DMA((2,)), pltpu.SemaphoreType.REGULAR((2,))]


def collective_call(kind: str, shape: tuple[int, int], dtype: Any, n: int, *, handshake: bool = True,
                    interpret: Any = False, debug: bool = False) -> Any:
    """The `pallas_call` one device runs; `shape` is its (n * rows, cols) addend."""
    rows, cols = shape[0] // n, shape[1]
    if kind == "reduce_scatter":
        kernel = functools.partial(reduce_scatter_kernel, n=n, handshake=handshake)
        out, scratch = (rows, cols), _scratch(rows, cols)
    else:
        kernel = functools.partial(all_reduce_kernel, n=n)
        out, scratch = shape, [*_scratch(rows, cols), pltpu.SemaphoreType.DMA((2, n - 1))]
    return pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct(out, dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.VMEM)], out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=scratch, compiler_params=pltpu.CompilerParams(collective_id=0),
        interpret=interpret, debug=debug)


SPEC = PartitionSpec(AXIS, None)


def in_kernel(kind: str, x: jax.Array, mesh: Mesh, *, handshake: bool = True, interpret: Any = None) -> jax.Array:
    """`x` (n * n * rows, cols), device i's addend its i-th n * rows rows; the kernel on every
    device, in the TPU interpreter unless `interpret` says."""
    n = mesh.shape[AXIS]
    local = (x.shape[0] // n, x.shape[1])
    call = collective_call(kind, local, x.dtype, n, handshake=handshake,
                           interpret=pltpu.InterpretParams() if interpret is None else interpret)
    fn = jax.shard_map(call, mesh=mesh, in_specs=SPEC, out_specs=SPEC, check_vma=False)
    return jax.jit(fn)(jax.device_put(x, jax.sharding.NamedSharding(mesh, SPEC)))


def by_xla(kind: str, x: jax.Array, mesh: Mesh) -> jax.Array:
    """The same collective as XLA's: `psum_scatter` (tiled, along the rows) or `psum`."""
    def body(x):
        if kind == "reduce_scatter":
            return jax.lax.psum_scatter(x, AXIS, scatter_dimension=0, tiled=True)
        return jax.lax.psum(x, AXIS)

    fn = jax.shard_map(body, mesh=mesh, in_specs=SPEC, out_specs=SPEC, check_vma=False)
    return jax.jit(fn)(jax.device_put(x, jax.sharding.NamedSharding(mesh, SPEC)))


# %% The race detector, where this jax has one to offer
def race_params() -> tuple[Any, str]:
    """`InterpretParams` with race detection that reports and goes on, and how: jax 0.12 raises
    on a race unless `on_race="warn"`; jax 0.10.2 has no `on_race` and always only reports."""
    fields = inspect.signature(pltpu.InterpretParams).parameters
    if "detect_races" not in fields:
        return None, "this jax's InterpretParams has no detect_races: no race detection"
    if "on_race" in fields:
        return pltpu.InterpretParams(detect_races=True, on_race="warn"), "detect_races=True, on_race='warn'"
    return pltpu.InterpretParams(detect_races=True), "detect_races=True (this jax has no on_race: it reports)"


@dataclasses.dataclass(frozen=True)
class Races:
    """One run of a collective under the race detector."""

    kind: str
    handshake: bool
    found: bool | None
    """None where this jax cannot detect races."""
    error: float


def races(kind: str, x: jax.Array, mesh: Mesh, *, handshake: bool = True) -> Races:
    from jax._src.pallas.mosaic.interpret import interpret_pallas_call as tpu_interpret

    params, _ = race_params()
    if params is None:
        return Races(kind, handshake, None, float("nan"))
    # jax 0.12 logs a race (on a read to its module's logger, on a write to the root logger);
    # jax 0.10.2 prints it. Either way it is kept from the console.
    with plat.log_lines("jax._src.pallas.mosaic.interpret.race_detection_state", ""), \
            contextlib.redirect_stdout(io.StringIO()):
        out = in_kernel(kind, x, mesh, handshake=handshake, interpret=params)
        out.block_until_ready()
    state = tpu_interpret.races
    found = bool(state is not None and state.races_found)
    return Races(kind, handshake, found, plat.max_abs_error(out, by_xla(kind, x, mesh)))


# %% Checked against psum_scatter and psum
def addends(n: int, rows: int = 8, cols: int = 256) -> jax.Array:
    """Every device's addend stacked: (n * n * rows, cols), device i's the i-th n * rows rows."""
    return jax.device_put(plat.randn(23, (n * n * rows, cols))[0], jax.devices("cpu")[0])


def check(n: int, rows: int = 8, cols: int = 256) -> dict[str, float]:
    """Max abs error of each in-kernel collective against XLA's."""
    mesh, x = plat.host_mesh(n, AXIS), addends(n, rows, cols)
    return {kind: plat.max_abs_error(in_kernel(kind, x, mesh), by_xla(kind, x, mesh))
            for kind in ("reduce_scatter", "all_reduce")}


# %% What the site shows: both kernels lowered for a TPU
RING = 4


class RingLowering(plat.Lowering):
    """A collective built for a TPU inside an abstract mesh of `RING` v5e devices on the ring axis
    (its `axis_index` and `device_id`s need the axis; no TPU needed to lower)."""

    @contextlib.contextmanager
    def building(self, backend: str) -> Iterator[None]:
        with plat.TARGET("tpu"), jax.sharding.use_abstract_mesh(ring_mesh_abstract()):
            yield


def ring_mesh_abstract() -> jax.sharding.AbstractMesh:
    device = jax.sharding.AbstractDevice(plat.TPU_KIND, 1, "tpu")
    return jax.sharding.AbstractMesh((RING,), (AXIS,), abstract_device=device)


def _lowered(kind: str, x: Any) -> Any:
    call = collective_call(kind, (x.shape[0] // RING, x.shape[1]), x.dtype, RING)
    return jax.shard_map(call, mesh=ring_mesh_abstract(), in_specs=SPEC, out_specs=SPEC, check_vma=False)(x)


def lowerings() -> list[plat.Lowering]:
    """For the site (reader/ir): both kernels lowered for a TPU, remote DMAs and all."""
    sharded = jax.sharding.NamedSharding(ring_mesh_abstract(), SPEC)
    x = jax.ShapeDtypeStruct((RING * RING * 8, 256), jnp.float32, sharding=sharded)
    return [RingLowering(kind, kernel, functools.partial(_lowered, kind), (x,), backends=("jaxpr", "mosaic_tpu"))
            for kind, kernel in (("reduce_scatter", reduce_scatter_kernel), ("all_reduce", all_reduce_kernel))]


# %% On a TPU: both kernels compiled by Mosaic, on a ring of the chip's one device
def native(kind: str, dtype: Any = jnp.float32, rows: int = 16, cols: int = 256) -> tuple[Any, Any]:
    """`kind` compiled for the chip and run on a ring of its one device, and XLA's collective on
    the same mesh; `(output, reference)`. With one device the rings take no step: what runs is the
    barrier (each neighbour is this device) and the copy of the device's own block out."""
    mesh = Mesh(jax.devices()[:1], (AXIS,))
    x = plat.randn(23, (rows, cols), dtype=dtype)[0]
    return in_kernel(kind, x, mesh, interpret=False), by_xla(kind, x.astype(jnp.float32), mesh)


def chip(runs: int = 20) -> Any:
    from kernels import _record as rec

    checks = [rec.check(f"{kind} on 1 device", *native(kind, dtype), dtype)
              for kind in ("reduce_scatter", "all_reduce") for dtype in (jnp.float32, jnp.bfloat16)]
    notes = ("one chip is a ring of one device: Mosaic compiles both kernels and the barrier runs, but no "
             "remote copy does; the rings of 2 or more devices stay with the TPU interpreter on host CPU "
             "devices (python -m kernels.reduce_scatter)",)
    return rec.Measured(tuple(checks), notes=notes)


# %% The lab's run
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = plat.parser("reduce_scatter", __doc__)
    p.add_argument("--devices", type=int, default=4, help="ring size (host devices), at least 2")
    p.add_argument("--races", action=argparse.BooleanOptionalAction, default=True,
                   help="also run the reduce-scatter under the race detector, with and without the handshake")
    args = p.parse_args(argv)
    if args.devices < 2:
        p.error("--devices must be at least 2")
    if (status := plat.with_host_devices("kernels.reduce_scatter", args.devices, argv)) is not None:
        return status
    n = args.devices
    print(f"reduce_scatter: {n} addends of ({n * 8}, 256) float32 over a ring of {n} host devices, two rings "
          f"of {n - 1} steps each, in the TPU interpreter (jax {jax.__version__}), since the ring needs {n} "
          f"devices whatever chip the runtime has")
    for kind, error in check(n).items():
        ref = "psum_scatter" if kind == "reduce_scatter" else "psum"
        verdict = "within" if error <= TOLERANCE else "OUTSIDE"
        print(f"  {kind}: max abs error vs jax.lax.{ref} {error:.2e} ({verdict} {TOLERANCE:.0e})")
    if args.races:
        _, how = race_params()
        print(f"  race detector ({how}):")
        for kind, handshake in (("reduce_scatter", True), ("reduce_scatter", False), ("all_reduce", True)):
            r = races(kind, addends(n), plat.host_mesh(n, AXIS), handshake=handshake)
            seen = "not run" if r.found is None else "races found" if r.found else "no race"
            print(f"    {kind}, {'with' if handshake else 'without'} the free-slot handshake: {seen}; "
                  f"max abs error {r.error:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
