"""Seed 003 (the reference analysis): `triton_matmul.py` ("naive") vs `triton_matmul_opt.py` ("opt").

The document shows only fragments of either file; these kernels are written to match what it says of
each (docs/kernels.md lists every point), and differ from each other only where the document says
they do: tile shape, num_stages, program order (2-D row-major grid vs 1-D grouped swizzle) and
masking (full 2-D masks vs modulo addressing plus a K-only mask). Both accumulate in fp32 and store in
C's element type.
"""

from __future__ import annotations

import triton
import triton.language as tl

from ._launch import matmul_shape, output


@triton.jit
def matmul_naive_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
):
    # 2-D grid, no swizzle: program (pid_n, pid_m) owns tile C[pid_m, pid_n]. Row-major program
    # order, as doc 003's §2.1 picture numbers the blocks: program_id(0) varies fastest on the GPU,
    # so consecutive programs walk along a row of C tiles (sharing A's rows).
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    # Built 2-D from the start, as in the doc's fragment (§2.3): offs_m is a column, offs_n a row.
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)[:, None]
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)[None, :]
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a_k = k + offs_k[None, :]  # the doc's `x_k`: this step's K columns of A
        b_k = k + offs_k[:, None]  # ... and the same K rows of B
        # Full 2-D masks, `(offs_m < M) & (x_k < K)` in the doc: rows past M and columns past K
        # read 0, so the tail tiles of M, N and K need no other care.
        a = tl.load(a_ptr + offs_m * stride_am + a_k * stride_ak, mask=(offs_m < M) & (a_k < K), other=0.0)
        b = tl.load(b_ptr + b_k * stride_bk + offs_n * stride_bn, mask=(b_k < K) & (offs_n < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + offs_m * stride_cm + offs_n * stride_cn, c, mask=(offs_m < M) & (offs_n < N))


@triton.jit
def matmul_opt_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    # 1-D grid remapped in groups of GROUP_SIZE_M tile rows (the doc's appendix, §2.1): the programs
    # of one group walk down a column of GROUP_SIZE_M tiles before moving right, so they share the
    # same A rows while those are still in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)  # the last group may be shorter
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Modulo addressing (§2.3): rows past M wrap onto valid rows instead of being masked, so the
    # loads need a K mask only; the wrapped rows' results are dropped by the store mask.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        # offs_k stays put and the pointers move: the bound shrinks instead.
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def launch_naive(a, b, *, out=None, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
                 num_warps=4, num_stages=3, **options):
    """C = A @ B with the naive kernel; grid (cdiv(N, BN), cdiv(M, BM)). Returns C (A's dtype)."""
    M, N, K = matmul_shape(a, b)
    c = output(out, (M, N), a)
    grid = (triton.cdiv(N, BLOCK_SIZE_N), triton.cdiv(M, BLOCK_SIZE_M))
    matmul_naive_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
        num_warps=num_warps, num_stages=num_stages, **options,
    )
    return c


def launch_opt(a, b, *, out=None, BLOCK_SIZE_M=128, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
               num_warps=4, num_stages=4, **options):
    """C = A @ B with the opt kernel at one fixed config (the doc's autotune winner by default);
    1-D grid of cdiv(M, BM) * cdiv(N, BN) programs. Returns C (A's dtype)."""
    M, N, K = matmul_shape(a, b)
    c = output(out, (M, N), a)
    grid = (triton.cdiv(M, BLOCK_SIZE_M) * triton.cdiv(N, BLOCK_SIZE_N),)
    matmul_opt_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
        GROUP_SIZE_M=GROUP_SIZE_M, num_warps=num_warps, num_stages=num_stages, **options,
    )
    return c
