"""Seed 002: the "Tileon" tutorial's basic tiled GEMM (BLOCK 128x256x64, fp32 output), ported to Triton.

Tileon is a Triton clone (`tileon.jit`, `tileon.language as tl`); the port only renames those. Fixed:
- K was advanced twice: the pointers move by BLOCK_K *and* `offs_k += BLOCK_K`, while the mask also
  subtracts `k * BLOCK_K`; from the second K step on, the mask `offs_k < K - k*BLOCK_K` compared an
  already-advanced offset with an already-reduced bound and masked valid columns off (wrong results
  once K > BLOCK_K). The `offs_k +=` line is gone; the pointers and the shrinking bound remain;
- the program-id math. The seed wrote a grouped remap with the whole grid as one group
  (`num_pid_in_group = num_pid_m * num_pid_n`, `first_pid_m = group_id * num_pid_m`) and
  `group_size_m = min(num_pid_m, M - first_pid_m)`, which mixes tile counts with row counts. For every
  pid of the launched grid it reduces to pid_m = pid % num_pid_m, pid_n = pid // num_pid_m — a plain
  column-major order — but only by accident (group_id is always 0). This port writes that column-major
  mapping directly, so the results and program order are the seed's, without the dead arithmetic;
- the host code: `tl.cdiv` (a device function) in the grid lambda is `triton.cdiv`, and C is allocated
  on the inputs' device (the seed's `torch.empty` had no device, so C was on the CPU).
Kept: modulo addressing of the M/N offsets with a K-only load mask, `accumulator += tl.dot(a, b)`, the
fp32 C, and the block sizes; num_warps/num_stages are Triton's launch defaults (4/3), as the seed
sets neither.
"""

from __future__ import annotations

import triton
import triton.language as tl

from ._launch import matmul_shape, output


@triton.jit
def matmul_tileon_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    # Column-major program order: consecutive programs walk down a column of C tiles (same B tile).
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
        # fix: the seed also did `offs_k += BLOCK_K` here, advancing K a second time

    c = accumulator
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def launch_tileon(a, b, *, out=None, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=4, num_stages=3,
                  **options):
    """C = A @ B in fp32 whatever the inputs' dtype (as the seed); 1-D grid. Returns C."""
    import torch  # only here: importing this module must not import torch

    M, N, K = matmul_shape(a, b)
    c = output(out, (M, N), a, dtype=torch.float32)  # fix: on the inputs' device, not the CPU
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)  # fix: triton.cdiv, not tl.cdiv
    matmul_tileon_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
        num_warps=num_warps, num_stages=num_stages, **options,
    )
    return c
