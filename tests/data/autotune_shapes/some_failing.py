"""An autotuned kernel of which some configs compile and some do not: one tile that is not a power of two
(Triton rejects its `tl.arange`) and one impossible warp count (refused before compiling). Written for
tests/test_autotune_ergonomics.py."""

import triton
import triton.language as tl

CONFIGS = [triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 96}, num_warps=4),
           triton.Config({"BLOCK": 128}, num_warps=8), triton.Config({"BLOCK": 128}, num_warps=3)]


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def shift(x_ptr, out_ptr, n, offset, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + offset, mask=mask)
