"""An autotuned kernel whose grid refuses the configs that cannot serve this batch by raising Triton's
OutOfResources (Triton's benchmarker times such a config inf and the autotuner takes another), the refusing
configs listed first; and a plain launch whose grid raises, which the launch raises as the JIT would."""
import sys

import torch
import triton
import triton.language as tl
from triton import OutOfResources

B = 16


@triton.autotune([triton.Config({"SIZE": s}, num_warps=4) for s in (64, 32, 16)], key=["n"])
@triton.jit
def step_kernel(X, n, SIZE: tl.constexpr):
    i = tl.program_id(0) * SIZE + tl.arange(0, SIZE)
    tl.store(X + i, tl.load(X + i, mask=i < n) + 1, mask=i < n)


def grid(meta):
    if meta["SIZE"] > B:
        raise OutOfResources(required=meta["SIZE"], limit=B, name="SIZE")
    return (triton.cdiv(B, meta["SIZE"]),)


x = torch.zeros(B, device="cuda")
step_kernel[grid](x, B)
print("launched")
if sys.argv[1:] == ["plain"]:
    step_kernel.fn[grid](x, B, SIZE=64)
