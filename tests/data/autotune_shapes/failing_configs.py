"""An autotuned kernel whose every config fails to compile, in two distinct ways: tiles that are not a power
of two (Triton rejects `tl.arange` of them) and a tile larger than the kernel's own static assertion allows.
Written for tests/test_autotune_ergonomics.py."""

import triton
import triton.language as tl

CONFIGS = [triton.Config({"BLOCK": 48}, num_warps=4), triton.Config({"BLOCK": 96}, num_warps=4),
           triton.Config({"BLOCK": 48}, num_warps=8), triton.Config({"BLOCK": 2048}, num_warps=4)]


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 1024, "BLOCK is at most 1024: one row of x per program")
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)
