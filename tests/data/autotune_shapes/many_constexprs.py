"""A kernel of the shape big libraries write (a fused normalization with a dozen switches): twelve constexprs,
given with --set, two sides differing in one of them. Written for tests/test_autotune_ergonomics.py."""

import triton
import triton.language as tl


@triton.jit
def fused_norm(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps,
               BLOCK_SIZE: tl.constexpr, NUM_ROWS_PER_PROGRAM: tl.constexpr, HAS_WEIGHT: tl.constexpr,
               HAS_BIAS: tl.constexpr, IS_RMS_NORM: tl.constexpr, CASTING_MODE: tl.constexpr,
               OFFSET: tl.constexpr, USE_FAST_RSQRT: tl.constexpr, STORE_RSTD: tl.constexpr,
               ELEMENTWISE_AFFINE: tl.constexpr, ACCUMULATE_IN_FP32: tl.constexpr, compute_type: tl.constexpr):
    row = tl.program_id(0) * NUM_ROWS_PER_PROGRAM
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    for r in range(NUM_ROWS_PER_PROGRAM):
        x = tl.load(x_ptr + (row + r) * n_cols + cols, mask=mask, other=0.0)
        if ACCUMULATE_IN_FP32:
            x = x.to(tl.float32)
        if IS_RMS_NORM:
            centered = x
        else:
            centered = tl.where(mask, x - tl.sum(x, axis=0) / n_cols, 0.0)
        variance = tl.sum(centered * centered, axis=0) / n_cols
        if USE_FAST_RSQRT:
            rstd = tl.rsqrt(variance + eps)
        else:
            rstd = 1.0 / tl.sqrt(variance + eps)
        y = centered * rstd
        if ELEMENTWISE_AFFINE:
            if HAS_WEIGHT:
                y = y * (tl.load(w_ptr + cols, mask=mask, other=0.0) + OFFSET)
            if HAS_BIAS:
                y = y + tl.load(b_ptr + cols, mask=mask, other=0.0)
        if CASTING_MODE == "llama":
            y = y.to(tl.float32)
        if STORE_RSTD:
            tl.store(b_ptr + row + r, rstd)
        tl.store(out_ptr + (row + r) * n_cols + cols, y.to(compute_type), mask=mask)
