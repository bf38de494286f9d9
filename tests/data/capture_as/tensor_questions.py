"""What host code asks of a tensor after a launch, as real programs ask it: a shape's own methods
(`x.shape.numel()`, torch.Size's), a print of a kernel's output (a log line, pytest's traceback), `if tensor:`,
and `.backward()` through a custom autograd.Function whose forward and backward launch a kernel. With --values
the launch's output is unknown afterwards; without, no tensor holds values."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.empty_like(x)
        double_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y

    @staticmethod
    def backward(ctx, dy):
        dx = torch.empty_like(dy)
        double_kernel[(triton.cdiv(dy.numel(), 1024),)](dy, dx, dy.numel(), BLOCK=1024)
        return dx


x = torch.randn(64, 64, device="cuda", requires_grad=True)
print("shape", type(x.shape).__name__, type(x.size()).__name__, x.shape.numel())
y = Double.apply(x)
print("printed", y)
y.sum().backward()
print("backward done")
if "--bool" in sys.argv:
    if torch.all(y == 0):
        print("all zero")
