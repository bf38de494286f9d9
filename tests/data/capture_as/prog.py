"""A program as a library's user writes it: the host code asks the device, allocates on "cuda" at a real size,
views at an odd offset, autotunes with a pruner and heuristics, and never needs a value."""
import torch
import triton
from kern import add_kernel, relu_kernel

on_gpu = torch.cuda.is_available()
big = on_gpu and torch.cuda.get_device_capability()[0] >= 9   # the branch a library takes on a Hopper
block = 1024 if big else 64
x = torch.randn(4096 * 4096, device="cuda" if on_gpu else "cpu", dtype=torch.float16)
out = torch.empty_like(x)
for _ in range(3):
    add_kernel[(triton.cdiv(x.numel(), block),)](x, x, out, x.numel(), BLOCK=block)
f = torch.empty(1 << 20, device=x.device)
relu_kernel[lambda meta: (triton.cdiv(f.numel(), meta["BLOCK"]),)](f, f, f.numel())
relu_kernel[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](f[1:], f[1:], 1000)
print("device", x.device, "block", block)
