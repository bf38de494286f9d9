"""Seed 001's grouped ("super-group") matmul, the one it takes from Triton's matmul tutorial, fixed.

Kept from the seed: the 1-D grid with the GROUP_SIZE_M remap, modulo addressing of the M/N offsets
with masks on M/N and K, fp32 accumulation and its four autotune configs (registry.py). Fixed:
- `pid_m = first_pid_m + (pid % num_pid_in_group)` lacks `% group_size_m`: pid_m ran past the group
  (and past num_pid_m), so tiles were computed at the wrong rows and some of C was never written;
- `offs_k` never advances while the pointers do, so the K mask `offs_k < K` was always true: with K
  not a multiple of BLOCK_SIZE_K the last step read past the end of each row of A (and past the end
  of B). The mask is now `offs_k < K - k * BLOCK_SIZE_K`, the same bound the pointers moved;
- C was stored as fp16 whatever the inputs; it is now stored in C's own element type (the launcher
  allocates C in A's dtype, so fp16 inputs still give the seed's fp16 store).
"""

from __future__ import annotations

import triton
import triton.language as tl

from ._launch import matmul_shape, output


@triton.jit
def matmul_grouped_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)  # total number of blocks along M
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)  # total number of blocks along N
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)  # fix: `% group_size_m`
    pid_n = (pid % num_pid_in_group) // group_size_m  # column-major inside the group

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - k * BLOCK_SIZE_K  # fix: the seed compared the never-advanced offs_k with K
        # The M/N halves of the masks are always true after `% M` / `% N`; kept as the seed has them.
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_bn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc=acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)  # fix: the seed always stored fp16
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + (offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn)
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def launch_tutorial(a, b, *, out=None, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=4,
                    num_warps=4, num_stages=2, **options):
    """C = A @ B at one config (the seed's first autotune config by default); 1-D grid. Returns C
    (A's dtype)."""
    M, N, K = matmul_shape(a, b)
    c = output(out, (M, N), a)
    grid = (triton.cdiv(M, BLOCK_SIZE_M) * triton.cdiv(N, BLOCK_SIZE_N),)
    matmul_grouped_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
        GROUP_SIZE_M=GROUP_SIZE_M, num_warps=num_warps, num_stages=num_stages, **options,
    )
    return c
