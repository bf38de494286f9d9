"""A file whose first @triton.jit function is a device helper (it returns a value and is called by the
kernels below it), the shape of a library's activation file: `list` must not suggest the helper."""

import triton
import triton.language as tl


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _store_rows(out_ptr, offsets, values, n):
    tl.store(out_ptr + offsets, values, mask=offsets < n)


@triton.jit
def swiglu_forward(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=offsets < n, other=0.0)
    _store_rows(c_ptr, offsets, (silu(a) * b).to(b.dtype), n)


@triton.jit
def silu_forward(a_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offsets, mask=offsets < n, other=0.0).to(tl.float32)
    tl.store(c_ptr + offsets, silu(a), mask=offsets < n)
