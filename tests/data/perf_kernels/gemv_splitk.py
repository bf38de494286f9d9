"""A split-K GEMV for the performance dataset: y[M] += A[M, K] @ x[K]. Program (m, s) takes BLOCK_M rows
and the s-th of SPLIT_K slices of K, walks its slice in BLOCK_K chunks, and adds its partial sums to y
with atomics (y is fp32 and must start at zero; the dataset times the kernel, not the result)."""

import triton
import triton.language as tl


@triton.jit
def gemv_splitk_kernel(a_ptr, x_ptr, y_ptr, M, K, stride_am,
                       BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_k = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    k_per_split = tl.cdiv(K, SPLIT_K)
    k_start = pid_k * k_per_split
    acc = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)
    for k in range(k_start, k_start + k_per_split, BLOCK_K):
        cols = k + tl.arange(0, BLOCK_K)
        col_mask = (cols < K) & (cols < k_start + k_per_split)
        a = tl.load(a_ptr + rows[:, None].to(tl.int64) * stride_am + cols[None, :],
                    mask=row_mask[:, None] & col_mask[None, :], other=0.0)
        x = tl.load(x_ptr + cols, mask=col_mask, other=0.0)
        acc += a.to(tl.float32) * x.to(tl.float32)[None, :]
    tl.atomic_add(y_ptr + rows, tl.sum(acc, axis=1), mask=row_mask)
