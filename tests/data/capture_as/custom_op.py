"""A Triton kernel launched from inside a torch custom operator that has a fake (meta) implementation: on
tensors without values torch would run the fake, and the launch would never be seen."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)


@torch.library.custom_op("ttinspect_tests::scale_in_place", mutates_args=("x",))
def scale_in_place(x: torch.Tensor) -> None:
    scale[(triton.cdiv(x.numel(), 512),)](x, x.numel(), BLOCK=512)


@scale_in_place.register_fake
def _(x):
    return None


scale_in_place(torch.ones(8192, device="cuda"))
print("ran")
