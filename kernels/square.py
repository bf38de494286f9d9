"""Seed 000: the minimal square-block matmul (one BLOCK_SIZE for M, N and K), with its bugs fixed.

As written in the seed the kernel cannot work: its A/B loads have no K-offset `arange`, so the "tiles"
are (BLOCK_SIZE, 1) and (1, BLOCK_SIZE) and `tl.dot` rejects them; `rn` never depends on a program id,
so only the first BLOCK_SIZE columns of C would ever be written; the loads have masks but no `other`
(masked lanes are undefined, and they would be summed into the K tail); and the store has no mask at
all (M or N not a multiple of BLOCK_SIZE writes out of bounds). Fixed here: a K `arange` offset by k,
a 2-D grid whose axis 1 moves `rn`, `other=0.0` with masks on M/N *and* K, and a masked store.
Everything else is the seed's: one square tile size, 1 program per (row block, column block), no
swizzle, fp32 accumulation.
"""

from __future__ import annotations

import triton
import triton.language as tl

from ._launch import matmul_shape, output


@triton.jit
def matmul_square_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_SIZE: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)  # fix: the seed's grid had no N axis, so rn never moved
    rm = pid_m * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    rn = pid_n * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    rk = tl.arange(0, BLOCK_SIZE)  # fix: the seed loaded a single K column/row per step
    acc = tl.zeros((BLOCK_SIZE, BLOCK_SIZE), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE):
        a_mask = (rm[:, None] < M) & (k + rk[None, :] < K)
        b_mask = (k + rk[:, None] < K) & (rn[None, :] < N)
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk[None, :]) * stride_ak, mask=a_mask, other=0.0)
        b = tl.load(b_ptr + (k + rk[:, None]) * stride_bk + rn[None, :] * stride_bn, mask=b_mask, other=0.0)
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    # fix: the seed's store had no mask
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch_square(a, b, *, out=None, BLOCK_SIZE=32, num_warps=4, num_stages=3, **options):
    """C = A @ B; grid (cdiv(M, BLOCK_SIZE), cdiv(N, BLOCK_SIZE)). Returns C (A's dtype, as the seed's
    `torch.empty(..., dtype=a.dtype)`)."""
    M, N, K = matmul_shape(a, b)
    c = output(out, (M, N), a)
    grid = (triton.cdiv(M, BLOCK_SIZE), triton.cdiv(N, BLOCK_SIZE))
    matmul_square_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_stages=num_stages, **options,
    )
    return c
