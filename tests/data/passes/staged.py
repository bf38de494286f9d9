"""A pipelined loop without a dot (`tl.range(..., num_stages=3)`): the main loop is the load loop."""

import triton
import triton.language as tl


@triton.jit
def staged_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.range(0, n, BLOCK, num_stages=3):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + pid * n + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)
