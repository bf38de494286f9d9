"""A result check after a launch: host code reads what the kernel wrote (through a value torch computed from
it). Only running the kernel answers that, so the refusal names the kernel and --run-kernels, not --values; a
read of what torch alone computed (the input's sum) is still --values' to answer."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(X, Y, Out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Out + i, tl.load(X + i, mask=i < n) + tl.load(Y + i, mask=i < n), mask=i < n)


x = torch.randn(4096, device="cuda")
y = torch.randn(4096, device="cuda")
out = torch.empty_like(x)
add_kernel[(4,)](x, y, out, 4096, BLOCK=1024)
if sys.argv[1:] == ["input"]:
    print(float(x.sum()))
print(torch.max(torch.abs(out - (x + y))).item())
