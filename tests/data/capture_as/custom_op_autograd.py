"""A torch custom operator with an autograd formula (`register_autograd`, its `setup_context` saving an input),
whose forward and backward each allocate on their input's device and launch a Triton kernel; the program then
runs the backward pass and reads the gradient (under --run-kernels: its values)."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, FACTOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * FACTOR, mask=offs < n)


def scaled(x, factor, block):
    y = torch.empty(x.shape, device=x.device, dtype=x.dtype)
    scale_kernel[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), FACTOR=factor, BLOCK=block)
    return y


@torch.library.custom_op("ttinspect_tests::triple", mutates_args=())
def triple(x: torch.Tensor, *, block: int = 1024) -> torch.Tensor:
    return scaled(x, 3, block)


@triple.register_fake
def _(x, *, block=1024):
    return torch.empty_like(x)


def setup_context(ctx, inputs, keyword_only_inputs, output):
    ctx.block = keyword_only_inputs["block"] // 4


def backward(ctx, grad):
    return scaled(grad.contiguous(), 3, ctx.block)


triple.register_autograd(backward, setup_context=setup_context)

x = torch.ones(4096, device="cuda", requires_grad=True)
y = triple(x)
print("grad_fn", y.grad_fn is not None, y.device)
y.sum().backward()
print("grad", x.grad.shape, x.grad.is_cuda)
if "--values" in sys.argv:
    print("sums", float(y.detach().sum().cpu()), float(x.grad.sum().cpu()))
