"""A 1-D copy written in Gluon: the smallest kernel with an explicit register layout.

Each program copies one BLOCK-element chunk of `in_ptr` to `out_ptr`. The layout is spelled out, as Gluon
requires: every thread holds 4 contiguous elements (one 128-bit access for fp32), 32 threads make a warp,
4 warps make the program. A BLOCK larger than 4 * 32 * 4 = 512 wraps the layout around, so each thread then
holds several 4-element vectors.

Compiles with Triton 3.6 and 3.9, for any NVIDIA target (nothing here is architecture-specific); it must be
compiled with num_warps=4, the warp count the layout names.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def copy_kernel(in_ptr, out_ptr, n, BLOCK: gl.constexpr):
    # 4 elements per thread, 32 threads per warp, 4 warps: one 512-element tile of the layout.
    layout: gl.constexpr = gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4],
                                            order=[0])
    pid = gl.program_id(0)
    offs = pid * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offs < n  # the last program may run past the end
    x = gl.load(in_ptr + offs, mask=mask)
    gl.store(out_ptr + offs, x, mask=mask)


# How to compile each kernel of this file offline (see compile_all.py). Keys of "attrs" are parameter
# positions, as triton.compile takes them: pointers are asserted 16-byte aligned.
COMPILE = {
    "copy_kernel": {
        "signature": {"in_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": 1024},
        "attrs": {(0, ): [["tt.divisibility", 16]], (1, ): [["tt.divisibility", 16]]},
        "arch": [90, 100],
        "options": {"num_warps": 4},
    },
}
