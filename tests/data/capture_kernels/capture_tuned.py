"""An autotuned kernel with heuristics, importable without running anything (tests and gpu_smoke.py)."""

import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=2), triton.Config({"BLOCK": 1024}, num_warps=4),
                          triton.Config({"BLOCK": 2048}, num_warps=8, num_stages=2)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def add_one(x, y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y + offsets, tl.load(x + offsets) + 1)
    else:
        mask = offsets < n
        tl.store(y + offsets, tl.load(x + offsets, mask=mask) + 1, mask=mask)
