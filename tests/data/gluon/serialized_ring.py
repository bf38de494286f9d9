"""A Hopper (sm_90) Gluon matmul whose ring has one slot: the positive case of check's TTI009.

Each K step loads its A and B tiles by TMA into the single slot, waits on that slot's mbarrier, runs the wgmma
and waits for it before the next step may overwrite the slot. Correct, and serial: no load overlaps an MMA.
hopper_matmul.py is the same work through a ring of NUM_BUFFERS slots. Compiles with Triton 3.6 and 3.9.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma, warpgroup_mma

if hasattr(tma, "async_load"):  # Triton 3.9 (3.6 names it async_copy_global_to_shared)
    _tma_load = tma.async_load
else:
    _tma_load = tma.async_copy_global_to_shared


@gluon.jit
def matmul_single_buffer(a_desc, b_desc, c_ptr, K, stride_cm):
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    a_buf = gl.allocate_shared_memory(a_desc.dtype, [1, BLOCK_M, BLOCK_K], a_desc.layout)
    b_buf = gl.allocate_shared_memory(b_desc.dtype, [1, BLOCK_K, BLOCK_N], b_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    mbarrier.init(bar.index(0), count=1)
    fence_async_shared()
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[gl.num_warps(), 1],
                                                         instr_shape=[16, BLOCK_N, 16])
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(gl.cdiv(K, BLOCK_K)):
        mbarrier.expect(bar.index(0), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        _tma_load(a_desc, [off_m, k * BLOCK_K], bar.index(0), a_buf.index(0))
        _tma_load(b_desc, [k * BLOCK_K, off_n], bar.index(0), b_buf.index(0))
        mbarrier.wait(bar.index(0), k & 1)  # the load just issued: nothing to overlap it with
        acc = warpgroup_mma(a_buf.index(0), b_buf.index(0), acc)
    mbarrier.invalidate(bar.index(0))
    rows = off_m + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, acc_layout))
    cols = off_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, acc_layout))
    gl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(gl.float16))


_NVMMA_FP16 = ("NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False, "
               "fp4_padded=False, cga_layout=[])")
COMPILE = {
    "matmul_single_buffer": {
        "signature": {"a_desc": f"tensordesc<fp16[128, 64],{_NVMMA_FP16}>",
                      "b_desc": f"tensordesc<fp16[64, 128],{_NVMMA_FP16}>", "c_ptr": "*fp16", "K": "i32",
                      "stride_cm": "i32"},
        "constexprs": {},
        "attrs": {(2, ): [["tt.divisibility", 16]], (4, ): [["tt.divisibility", 16]]},
        "arch": [90],
        "options": {"num_warps": 4},
    },
}
