"""A @triton.jit helper that shapes.py's kernels call from another file (the capture names both files)."""

import triton
import triton.language as tl


@triton.jit
def scaled(value, scale):
    return value.to(tl.float32) * scale
