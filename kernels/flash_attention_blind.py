"""LAB·3.2, your copy: the flash attention forward kernel as the derivation's steps, to fill in.

Copy this file out of `kernels/` (the lab's solution sits next to it in `flash_attention.py`:
don't open it yet), write `flash_kernel` from the equations of the article "Anatomy of a
FlashAttention Kernel", then run

    reader run flash_attention --check YOUR_COPY.py

which runs your kernel on the lab's grid against a plain jnp reference (causal and not, equal
and unequal blocks), exits 0 when every case matches, and prints your kernel beside the pinned
TPU kernel's `_flash_attention_kernel_single_batch`, line by line. As it stands, this file
fails the check: the outputs are never written.

The lab calls your kernel once per grid step `(h, r, c)`: head h (batch and heads flattened),
query block r, key/value block c. The key axis is "arbitrary": its steps run in order, so the
scratch refs keep their values from one c to the next (and start each r undefined).
"""

from __future__ import annotations

import jax  # noqa: F401  (you will need these)
import jax.numpy as jnp  # noqa: F401
import numpy as np
from jax.experimental import pallas as pl  # noqa: F401

MASK_VALUE = -0.7 * float(np.finfo(np.float32).max)
"""A finite stand-in for -inf: a fully masked row must not compute -inf - (-inf)."""


def flash_kernel(q_ref, k_ref, v_ref, o_ref, lse_ref, m_scratch, l_scratch, acc_scratch, *,
                 sm_scale: float, causal: bool):
    """One (head, query block r, key block c) step of the forward pass.

    q_ref (block_q, d), k_ref and v_ref (block_k, d): this step's blocks, in VMEM. o_ref
    (block_q, d) and lse_ref (block_q, 1): written at the last key block. m_scratch,
    l_scratch (block_q, 1) and acc_scratch (block_q, d), float32: your state across key blocks.
    A row statistic is a (block_q, 1) column, as a TPU wants it: reduce with keepdims=True and
    it broadcasts against (block_q, block_k) and (block_q, d) as it is.
    """
    # TODO 1. block_q, block_k from the refs' shapes; r and c from pl.program_id(1), pl.program_id(2).
    # TODO 2. At the first key block (pl.when(c == 0)): m = -inf, l = 0, U = 0 in the scratch refs.
    # TODO 3. The causal block test: key block c matters to query block r only if r's last row
    #         reaches c's first column, (r + 1) * block_q - 1 >= c * block_k. Skip the other blocks
    #         with pl.when (the lab's index map already skips copying them).
    # TODO 4. Scores s = (q * sm_scale) k^T, float32 (jax.lax.dot_general contracting dim 1 of both).
    # TODO 5. Causal: where column > row (absolute indices from 2-D iotas over s's shape:
    #         r * block_q + iota(.., 0), c * block_k + iota(.., 1)), put MASK_VALUE instead of s.
    # TODO 6. Equation (2): m' = max(m, row max of s) (jnp.max(s, axis=1, keepdims=True)).
    # TODO 7. Equation (3): alpha = exp(m - m').
    # TODO 8. Equation (4): l' = alpha * l + row sum of p, with p = exp(s - m').
    # TODO 9. Equation (5): U' = alpha * U + p v. Store m', l', U' back in the scratch refs.
    # TODO 10. At the last key block (c == pl.num_programs(2) - 1), equation (6): o = U / l,
    #          cast to o_ref's dtype; and lse = m + log(l) for the backward pass.
