"""Kernels for measuring `ttinspect check`'s advice on a GPU (scripts/check_advice.py), each with the
finding's situation ("before") and the fix the finding suggests ("after").

They are ordinary user files for ttinspect too: the examples below compile offline exactly as the GPU
run launches them, so `ttinspect check benchmarks/advice_kernels.py:narrow_before --arch sm_90` shows
the finding the measurement is about. None of these kernels is special-cased anywhere in ttinspect.
"""

import triton
import triton.language as tl


@triton.jit
def row_scale(x_ptr, y_ptr, stride_x, stride_y, N, scale, BLOCK: tl.constexpr):
    """y[row, :N] = x[row, :N] * scale, one row per program. Whether the loads of x are vectorized
    depends only on what Triton knows of stride_x: divisible by 16 (specialized at launch) or not."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask)
    tl.store(y_ptr + row * stride_y + cols, x * scale, mask=mask)


@triton.jit
def softmax_rows(x_ptr, y_ptr, stride, N, BLOCK: tl.constexpr):
    """A row softmax holding the whole row in registers: with few warps each thread holds many values
    (registers limit occupancy); more warps per row spread them."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def column_sum(x_ptr, out_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               PIPELINE: tl.constexpr):
    """out[n] = sum over rows of x[:, n], walking M in a loop. No tl.dot consumes the loads, so
    Triton's default pipeliner leaves the loop alone unless the loop asks for stages itself."""
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    if PIPELINE:
        for m in tl.range(0, M, BLOCK_M, num_stages=4):
            rows = m + tl.arange(0, BLOCK_M)
            tile = tl.load(x_ptr + rows[:, None] * stride + cols[None, :])
            acc += tl.sum(tile.to(tl.float32), axis=0)
    else:
        for m in range(0, M, BLOCK_M):
            rows = m + tl.arange(0, BLOCK_M)
            tile = tl.load(x_ptr + rows[:, None] * stride + cols[None, :])
            acc += tl.sum(tile.to(tl.float32), axis=0)
    tl.store(out_ptr + cols, acc)


# The GPU run's shapes (scripts/check_advice.py), as offline examples: the arguments by value, so they
# are specialized as the launch specializes them (4104 is not a multiple of 16; 4112 and 4096 are).
ROWS = 16384
_NARROW = {"x_ptr": "*fp16", "y_ptr": "*fp16", "stride_y": 4096, "N": 4096, "scale": 2.0}
_SOFTMAX = {"x_ptr": "*fp32", "y_ptr": "*fp32", "stride": 16384, "N": 16384}
_COLSUM = {"x_ptr": "*fp16", "out_ptr": "*fp32", "M": 16384, "N": 16384, "stride": 16384}
TTINSPECT_EXAMPLES = {
    "narrow_before": {"kernel": row_scale, "args": {**_NARROW, "stride_x": 4104},
                      "config": {"BLOCK": 4096, "num_warps": 8}, "arch": "sm_90",
                      "description": "rows 4104 elements apart: Triton cannot know they are 16-byte aligned"},
    "narrow_after": {"kernel": row_scale, "args": {**_NARROW, "stride_x": 4112},
                     "config": {"BLOCK": 4096, "num_warps": 8}, "arch": "sm_90",
                     "description": "the row stride padded to 4112, a multiple of 16"},
    "occupancy_before": {"kernel": softmax_rows, "args": _SOFTMAX,
                         "config": {"BLOCK": 16384, "num_warps": 4}, "arch": "sm_90",
                         "description": "a 16384-wide fp32 row in 4 warps: 128 values per thread"},
    "occupancy_after": {"kernel": softmax_rows, "args": _SOFTMAX,
                        "config": {"BLOCK": 16384, "num_warps": 16}, "arch": "sm_90",
                        "description": "the same row in 16 warps: 32 values per thread"},
    "pipeline_before": {"kernel": column_sum, "args": _COLSUM,
                        "config": {"BLOCK_M": 64, "BLOCK_N": 128, "PIPELINE": False, "num_warps": 4,
                                   "num_stages": 4}, "arch": "sm_90",
                        "description": "num_stages=4, a loop without tl.dot"},
    "pipeline_after": {"kernel": column_sum, "args": _COLSUM,
                       "config": {"BLOCK_M": 64, "BLOCK_N": 128, "PIPELINE": True, "num_warps": 4,
                                  "num_stages": 4}, "arch": "sm_90",
                       "description": "the loop written as tl.range(..., num_stages=4)"},
}
