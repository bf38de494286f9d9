"""A file that asks, at import, what no GPU-less machine can know: how much memory is free right now."""

import torch
import triton
import triton.language as tl

FREE_BYTES, TOTAL_BYTES = torch.cuda.mem_get_info()
WORKSPACE = min(FREE_BYTES // 8, 1 << 30)


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)
