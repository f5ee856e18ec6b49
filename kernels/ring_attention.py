"""LAB·4.2 · Ring attention: attention across devices, key/value blocks passed round a ring.

The sequence is split over n devices (`shard_map`, q, k and v sharded along the sequence).
Each device keeps its query block and, for n steps, attends it to the key/value block it
holds with the flash kernel of LAB·3.2, which returns the block's output and log-sum-exp;
the partial results merge exactly by log-sum-exp (o = o_a e^(lse_a - lse) + o_b e^(lse_b -
lse), lse = logaddexp(lse_a, lse_b)). Between steps each device sends its key/value block
to the next device (`lax.ppermute`, issued before the step's compute so the two can overlap,
as tokamax's ring kernel does), so after n - 1 shifts every query block has met every key
block and no device ever holds more than one. Causal attention skips a step when the
block came from a later device and masks only the block that is its own: the diagonal test
again, now between devices. On a CPU the n devices are host devices
(`--xla_force_host_platform_device_count`, or `jax_num_cpu_devices` before jax starts its
backends; `main` reruns itself in a child process when this process started with fewer) and
the kernel is interpreted. Checked against single-device attention.

Exercises: tokamax/_src/ops/experimental/tpu/splash_attention/ring_attention_kernel.py::_ring_attention_forward, tokamax/_src/ops/experimental/tpu/splash_attention/ring_attention_kernel.py::_ring_attention_bwd, jax/experimental/pallas/ops/tpu/flash_attention.py::below_or_on_diag, jax/_src/pallas/pallas_call.py::pallas_call
"""

from __future__ import annotations

import functools
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec

from kernels import _platform as plat
from kernels.flash_attention import attention_reference, flash_forward, loop_kernel

# %% One ring step: a flash block, merged by log-sum-exp
AXIS = "ring"
CHILD_MARKER = "KERNELS_RING_CHILD"


def _block(q, k, v, *, causal: bool, scale: float, block: int):
    return flash_forward(q, k, v, causal=causal, sm_scale=scale, block_q=block, block_k=block)


def _skip(q):
    return jnp.zeros_like(q), jnp.full(q.shape[:-1], -jnp.inf, jnp.float32)


def merge(o_a, lse_a, o_b, lse_b):
    """Combine two attention results over disjoint key sets by their log-sum-exps."""
    lse = jnp.logaddexp(lse_a, lse_b)
    return o_a * jnp.exp(lse_a - lse)[..., None] + o_b * jnp.exp(lse_b - lse)[..., None], lse


# %% The ring: shard_map, with ppermute passing k and v on
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


def ring_attention(q, k, v, mesh: Mesh, *, causal: bool = False, block: int = 32) -> jax.Array:
    """Attention of (batch, heads, seq, head_dim) arrays with the sequence split over `mesh`."""
    n = mesh.shape[AXIS]
    if q.shape[2] % (n * block):
        raise ValueError(f"seq {q.shape[2]} must split into {n} devices x blocks of {block}")
    spec = PartitionSpec(None, None, AXIS, None)
    body = functools.partial(ring_body, n=n, causal=causal, scale=1.0 / math.sqrt(q.shape[-1]), block=block)
    fn = jax.shard_map(body, mesh=mesh, in_specs=(spec, spec, spec), out_specs=spec, check_vma=False)
    q, k, v = jax.device_put((q, k, v), jax.sharding.NamedSharding(mesh, spec))
    with plat.TARGET("interpret"):   # host devices, even on a machine with a GPU
        return jax.jit(fn)(q, k, v)


# %% Host devices for the ring
def cpu_mesh(n: int) -> Mesh:
    devices = jax.devices("cpu")
    if len(devices) < n:
        raise RuntimeError(f"{n} CPU devices needed, this process has {len(devices)}: start python with "
                           f"XLA_FLAGS=--xla_force_host_platform_device_count={n}")
    return Mesh(devices[:n], (AXIS,))


def request_cpu_devices(n: int) -> bool:
    """Ask for n host devices if jax has not started its backends yet; True if that is in effect."""
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        jax.config.update("jax_num_cpu_devices", n)
    return len(jax.devices("cpu")) >= n


def rerun_with_devices(n: int, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run this lab in a child python whose XLA_FLAGS give it n host devices."""
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={n}".strip()
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, XLA_FLAGS=flags, JAX_PLATFORMS="cpu", **{CHILD_MARKER: "1"},
               PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-m", "kernels.ring_attention", *argv], env=env,
                          capture_output=True, text=True, check=False)


# %% Checked against single-device attention
@dataclass(frozen=True)
class Check:
    causal: bool
    error: float
    blocks_computed: int
    blocks_total: int


def check(n: int = 4, batch: int = 1, heads: int = 2, seq: int = 256, head_dim: int = 32,
          block: int = 32) -> list[Check]:
    mesh = cpu_mesh(n)
    q, k, v = (jax.device_put(x, jax.devices("cpu")[0]) for x in plat.randn(17, *[(batch, heads, seq, head_dim)] * 3))
    out = []
    for causal in (False, True):
        ring = jax.device_put(ring_attention(q, k, v, mesh, causal=causal, block=block), jax.devices("cpu")[0])
        ref = attention_reference(q, k, v, causal=causal)
        out.append(Check(causal, plat.max_abs_error(ring, ref), pairs_computed(n, causal), n * n))
    return out


# %% What the site shows: the kernel lowered
def lowerings() -> list[plat.Lowering]:
    """The kernel each ring step runs (LAB·3.2's `loop_kernel` on one shard's blocks), lowered
    for the site (reader/ir); the ring itself (ppermute over devices) is outside the kernel."""
    q, k, v = plat.randn(21, *[(1, 2, 64, 32)] * 3)
    return [plat.Lowering("ring_block", loop_kernel, lambda a, b, c: _block(
        a, b, c, causal=True, scale=1.0 / math.sqrt(32), block=32), (q, k, v))]


# %% The lab's run
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = plat.parser("ring_attention", __doc__)
    p.add_argument("--devices", type=int, default=4, help="ring size (host devices), at least 2")
    p.add_argument("--seq", type=int, default=256)
    args = p.parse_args(argv)
    if not request_cpu_devices(args.devices):
        if os.environ.get(CHILD_MARKER):
            print(f"ring_attention: could not get {args.devices} host devices", file=sys.stderr)
            return 1
        done = rerun_with_devices(args.devices, argv)
        print(done.stdout, end="")
        print(done.stderr, end="", file=sys.stderr)
        return done.returncode
    print(f"ring_attention: (1, 2, {args.seq}, 32) float32 over a ring of {args.devices} host devices, "
          f"{args.seq // args.devices} rows each; flash kernel blocks 32, in interpret mode on the host "
          f"devices, since the ring needs {args.devices} devices whatever chip the runtime has")
    for c in check(n=args.devices, seq=args.seq):
        print(f"  causal={c.causal!s:5}: max abs error vs single-device attention {c.error:.2e}; "
              f"{c.blocks_computed} of {c.blocks_total} device-block pairs computed, "
              f"{args.devices - 1} ppermute shifts of k and v")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
