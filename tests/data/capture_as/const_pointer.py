"""A kernel whose weight pointer is annotated `tl.const` (a const pointer), launched from host code."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr: tl.tensor, w_ptr: tl.const, n: int, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = x_ptr + tl.program_id(0) * n
    tl.store(row + offs, tl.load(row + offs, mask=offs < n) * tl.load(w_ptr + offs, mask=offs < n), mask=offs < n)


x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
scale_rows[(64,)](x, torch.ones(1024, device="cuda", dtype=torch.bfloat16), 1024, BLOCK=1024)
