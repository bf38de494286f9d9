import torch
import triton
import triton.language as tl


@triton.jit
def double(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@torch.library.custom_op("repro39::double", mutates_args=("x",))
def double_op(x: torch.Tensor) -> None:
    double[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)


@double_op.register_fake
def _(x):
    return None


double_op(torch.ones(4096, device="cuda"))
