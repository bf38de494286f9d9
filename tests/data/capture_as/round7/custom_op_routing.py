"""MoE routing through a custom op whose code needs values (`bincount` of the chosen experts) but whose registered
fake gives its shape (axolotl's ScatterMoE `flatten_sort_count`): the launch after it needs only that shape."""
import sys

import torch
import triton
import triton.language as tl


@torch.library.custom_op("round7::bincount", mutates_args=())
def bincount(x: torch.Tensor, minlength: int) -> torch.Tensor:
    return x.bincount(minlength=minlength)


@bincount.register_fake
def _(x, minlength):
    return torch.empty(minlength, dtype=torch.long, device=x.device)


@torch.library.custom_op("round7::count_into", mutates_args=("out",))
def count_into(x: torch.Tensor, out: torch.Tensor) -> None:
    out.copy_(x.bincount(minlength=out.numel()))


@count_into.register_fake
def _(x, out):
    return None


@triton.jit
def per_expert(out_ptr, offsets_ptr, E, BLOCK: tl.constexpr):
    e = tl.arange(0, BLOCK)
    tl.store(out_ptr + e, tl.load(offsets_ptr + e, mask=e < E, other=0), mask=e < E)


expert_idxs = torch.topk(torch.randn(4096, 64, device="cuda"), 8, dim=-1).indices
offsets = bincount(expert_idxs.flatten(), minlength=64).cumsum(-1)
out = torch.empty_like(offsets)
per_expert[(1,)](out, offsets, 64, BLOCK=64)
print("launched", tuple(offsets.shape))
if "--mutating" in sys.argv:  # an op that writes its argument: its fake has no values to give, so it is refused
    count_into(expert_idxs.flatten(), torch.empty(64, dtype=torch.long, device="cuda"))
