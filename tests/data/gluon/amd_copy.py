"""The Gluon copy of gluon_copy.py for AMD CDNA (gfx950, wave64): the same program with the layout an AMD
wavefront needs — 64 threads per warp, 4 contiguous fp32 per thread (one 128-bit global access), 4 warps.
Compiles with Triton 3.6 and 3.9 (Gluon's AMD support), offline, through Triton's HIP backend."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def copy_kernel(in_ptr, out_ptr, n, BLOCK: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[64], warps_per_cta=[4],
                                            order=[0])
    offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n
    gl.store(out_ptr + offs, gl.load(in_ptr + offs, mask=mask), mask=mask)


COMPILE = {
    "copy_kernel": {
        "signature": {"in_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": 1024},
        "attrs": {(0, ): [["tt.divisibility", 16]], (1, ): [["tt.divisibility", 16]]},
        "arch": ["gfx950"],
        "options": {"num_warps": 4},
    },
}
