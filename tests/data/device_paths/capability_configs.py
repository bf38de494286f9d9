"""Tiles chosen at import from torch's view of the GPU, as kernel libraries do: the toolkit (torch.version.cuda
vs .hip) and the compute capability (Hopper and later get deeper pipelines and bigger tiles)."""

import torch
import triton
import triton.language as tl

if torch.version.hip is not None:
    BLOCK, STAGES, WARPS = 256, 2, 8
elif torch.version.cuda is not None and torch.cuda.get_device_capability()[0] >= 9:
    BLOCK, STAGES, WARPS = 1024, 4, 4
elif torch.version.cuda is not None:
    BLOCK, STAGES, WARPS = 512, 3, 4
else:
    raise RuntimeError("this kernel needs a GPU")

HAS_BF16 = torch.cuda.is_bf16_supported()
DEVICE_NAME = torch.cuda.get_device_name(0)


@triton.autotune(configs=[triton.Config({"BLOCK": BLOCK}, num_stages=STAGES, num_warps=WARPS)], key=["n"])
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, x * alpha, mask=mask)
