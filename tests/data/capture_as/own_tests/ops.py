"""A library's op with its own tests beside it (ops_tests.py, named so that our suite does not collect it):
the program a user already has."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def scale(x):
    out = torch.empty_like(x)
    block = 1024 if torch.cuda.get_device_capability()[0] >= 9 else 256  # the target's branch
    scale_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block)
    return out
