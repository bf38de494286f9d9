"""Kernels of the shapes a capture meets, written for tests/test_capture_hooks.py: pointers and ints with and
without divisibility, strides equal to 1, do_not_specialize, constexpr dtypes and bools, runtime floats and
bools, an annotated int64, None, a string constexpr at the end, a helper in another file, a descriptor."""

import triton
import triton.language as tl

from capture_helpers import scaled  # a @triton.jit helper in a file of its own


@triton.jit
def copy_rows(src, dst, n_rows, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = (cols < n_cols) & (cols * 0 + row < n_rows)
    offsets = row * stride_row + cols * stride_col
    tl.store(dst + offsets, tl.load(src + offsets, mask=mask), mask=mask)


@triton.jit
def cast_scale(x, y, n, scale, flip, OUT: tl.constexpr, SQUARE: tl.constexpr, BLOCK: tl.constexpr,
               ACTIVATION: tl.constexpr = "none"):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    value = scaled(tl.load(x + offsets, mask=mask), scale)
    if SQUARE:
        value = value * value
    if flip:
        value = -value
    if ACTIVATION == "relu":
        value = tl.maximum(value, 0.0)
    tl.store(y + offsets, value.to(OUT), mask=mask)


@triton.jit(do_not_specialize=["n", "seed"])
def fill(out, n, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + offsets, (offsets + seed).to(tl.float32), mask=offsets < n)


@triton.jit
def wide_index(out, n: tl.int64, bias, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    extra = 0.0
    if bias is not None:
        extra = tl.load(bias)
    tl.store(out + offsets, offsets.to(tl.float32) + extra, mask=offsets < n)


@triton.jit
def tile_copy(src_desc, dst_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    m = tl.program_id(0) * BLOCK_M
    n = tl.program_id(1) * BLOCK_N
    dst_desc.store([m, n], src_desc.load([m, n]))
