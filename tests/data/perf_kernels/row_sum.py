"""A row reduction for the performance dataset: out[m] = sum_n x[m, n], BLOCK_M rows per program, the
columns walked in BLOCK_N chunks, accumulated in fp32."""

import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        ptrs = x_ptr + rows[:, None].to(tl.int64) * stride_m + cols[None, :]
        acc += tl.load(ptrs, mask=row_mask[:, None] & (cols[None, :] < N), other=0.0).to(tl.float32)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=row_mask)
