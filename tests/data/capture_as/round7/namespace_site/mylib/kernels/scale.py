import triton
import triton.language as tl

from .helpers import BLOCK_DEFAULT  # a relative import: the file is mylib.kernels.scale, not a loose file


@triton.jit
def scale(x_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)


def launch(x):
    scale[(triton.cdiv(x.numel(), BLOCK_DEFAULT),)](x, x.numel(), B=BLOCK_DEFAULT)
