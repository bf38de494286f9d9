"""A custom torch.autograd.Function whose forward and backward each launch a Triton kernel, as a training
library's fused op does: on "cuda" tensors without values the backward must run (torch's C++ autograd asks a
tensor's device for a device guard, which a CPU build has no CUDA one for) and its launch be recorded."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, FACTOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * FACTOR, mask=offs < n)


class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.empty_like(x)
        scale[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), FACTOR=2, BLOCK=1024)
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        assert grad.is_cuda and grad.device.type == "cuda" and x.is_cuda, "the backward sees the GPU's tensors"
        dx = torch.zeros(grad.shape, device=grad.device, dtype=grad.dtype)
        scale[(triton.cdiv(grad.numel(), 256),)](grad, dx, grad.numel(), FACTOR=2, BLOCK=256)
        return dx


x = torch.randn(8192, device="cuda", requires_grad=True)
loss = Twice.apply(x).sum()
loss.backward()
(again,) = torch.autograd.grad(Twice.apply(x).sum(), [x])
print("grad", x.grad.device, tuple(x.grad.shape), again.device)
