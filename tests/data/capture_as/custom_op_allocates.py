"""A torch custom operator whose own code allocates its output on the input's device and launches a Triton
kernel into it, called through its handle and through torch.ops (as an autograd Function's forward does)."""
import torch
import triton
import triton.language as tl


@triton.jit
def twice_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@torch.library.custom_op("ttinspect_tests::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty(x.shape, device=x.device, dtype=x.dtype)
    twice_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


@twice.register_fake
def _(x):
    return torch.empty_like(x)


x = torch.randn(4096, device="cuda")
print("handle", twice(x).device)
print("ops", torch.ops.ttinspect_tests.twice(x).device)
