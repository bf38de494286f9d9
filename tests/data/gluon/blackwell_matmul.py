"""Blackwell (sm_100) pipelined matmul in Gluon: C = A @ B, fp16 inputs, fp32 accumulation in tensor memory,
fp16 output.

Same contract as hopper_matmul.py: A is M x K and B is K x N, both row-major, behind TMA descriptors with
blocks a_desc [BLOCK_M, BLOCK_K], b_desc [BLOCK_K, BLOCK_N], c_desc [BLOCK_M, BLOCK_N]; one program per C
tile (grid: cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N)); TMA clips the edges. K must be at least 1 (the first MMA
overwrites the uninitialised accumulator with use_acc=False).

What differs from Hopper is the MMA: tcgen05_mma is issued by a single thread, reads both operands from
shared memory, accumulates into tensor memory (TMEM) rather than registers, and reports completion through
mbarriers. So the ring has two barriers per slot:
  * ready[s]: TMA -> MMA, "slot s holds its tiles" (mbarrier.expect + the loads' transaction bytes);
  * empty[s]: MMA -> TMA, "the MMA that read slot s has finished" (arrived by the MMA's completion).
Step k waits ready[k % NUM_BUFFERS], issues its MMA, then waits for step k - 1's MMA to release its slot and
refills that slot with the loads of step k + NUM_BUFFERS - 1. After the loop, tcgen05_commit on a last
barrier fires once every MMA issued so far has completed; only then is the accumulator read out of TMEM.

Compiles for sm_100 with Triton 3.9 and 3.6. Reading TMEM into registers needs a register layout matching
the tcgen05.ld message: 3.6 has the helper `get_tmem_reg_layout(dtype, shape, tmem_layout, num_warps)`,
3.9 dropped it for `tensor_memory_descriptor_type.get_reg_layout(num_warps)` (and lets `.load()` infer it);
`_tmem_reg_layout` below uses whichever exists. The TMA builtins were renamed too (see hopper_matmul.py).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import blackwell
from triton.experimental.gluon.language.nvidia.blackwell import (
    TensorMemoryLayout,
    allocate_tensor_memory,
    fence_async_shared,
    mbarrier,
    tcgen05_commit,
    tcgen05_mma,
    tma,
)

if hasattr(tma, "async_load"):  # Triton 3.9
    _tma_load = tma.async_load
    _tma_store = tma.async_store
else:  # Triton 3.6
    _tma_load = tma.async_copy_global_to_shared
    _tma_store = tma.async_copy_shared_to_global


@gluon.constexpr_function
def _tmem_reg_layout(dtype, shape, tmem_layout, num_warps):
    """The register layout in which `num_warps` warps read a TMEM buffer with one tcgen05.ld 32x32b message
    per warp: each thread owns one row (warp w reads rows 32w .. 32w + 31)."""
    if hasattr(blackwell, "get_tmem_reg_layout"):  # Triton 3.6
        return blackwell.get_tmem_reg_layout(dtype, shape, tmem_layout, num_warps)
    desc_type = blackwell.tensor_memory_descriptor_type(dtype, shape, tmem_layout, shape)  # Triton 3.9
    return desc_type.get_reg_layout(num_warps=num_warps)


@gluon.jit
def matmul_kernel(a_desc, b_desc, c_desc, K, NUM_BUFFERS: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    gl.static_assert(NUM_BUFFERS >= 2, "the ring needs a slot to load into while another is consumed")

    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N

    # Operand ring in the descriptors' NVMMA shared layouts (what both TMA and tcgen05 read).
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [NUM_BUFFERS, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [NUM_BUFFERS, BLOCK_K, BLOCK_N], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    acc_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    mbarrier.init(acc_bar, count=1)
    fence_async_shared()  # barrier initialisation must be visible to the async proxy (TMA, tcgen05)

    # The fp32 accumulator: BLOCK_M lanes x BLOCK_N 32-bit columns of tensor memory (col_stride=1: packed).
    tmem_layout: gl.constexpr = TensorMemoryLayout(block=(BLOCK_M, BLOCK_N), col_stride=1)
    acc_tmem = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N], tmem_layout)

    num_k = gl.cdiv(K, BLOCK_K)
    tile_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    # Prologue: steps 0 .. NUM_BUFFERS - 2 into their (still unused) slots.
    for i in gl.static_range(NUM_BUFFERS - 1):
        pred = i < num_k
        mbarrier.expect(ready.index(i), tile_bytes, pred=pred)
        _tma_load(a_desc, [off_m, i * BLOCK_K], ready.index(i), a_bufs.index(i), pred=pred)
        _tma_load(b_desc, [i * BLOCK_K, off_n], ready.index(i), b_bufs.index(i), pred=pred)

    for k in range(num_k):
        slot = k % NUM_BUFFERS
        mbarrier.wait(ready.index(slot), (k // NUM_BUFFERS) & 1)
        # acc (+)= A_k @ B_k, asynchronously; empty[slot] is arrived on when this MMA has finished reading.
        tcgen05_mma(a_bufs.index(slot), b_bufs.index(slot), acc_tmem, use_acc=k > 0, mbarriers=[empty.index(slot)])

        # Refill: step k + NUM_BUFFERS - 1 goes where step k - 1 was, once step k - 1's MMA is done with it
        # (its (k - 1) // NUM_BUFFERS-th completion of that barrier). Nothing to wait for at k = 0.
        nxt = k + NUM_BUFFERS - 1
        nslot = nxt % NUM_BUFFERS
        load = nxt < num_k
        mbarrier.wait(empty.index(nslot), ((k - 1) // NUM_BUFFERS) & 1, pred=load & (k > 0))
        mbarrier.expect(ready.index(nslot), tile_bytes, pred=load)
        _tma_load(a_desc, [off_m, nxt * BLOCK_K], ready.index(nslot), a_bufs.index(nslot), pred=load)
        _tma_load(b_desc, [nxt * BLOCK_K, off_n], ready.index(nslot), b_bufs.index(nslot), pred=load)

    # Every MMA issued above completes before acc_bar's first phase does.
    tcgen05_commit(acc_bar)
    mbarrier.wait(acc_bar, 0)
    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))
    mbarrier.invalidate(acc_bar)

    # Epilogue: TMEM -> registers (tcgen05.ld) -> fp16 -> shared memory -> TMA store.
    acc = acc_tmem.load(_tmem_reg_layout(gl.float32, [BLOCK_M, BLOCK_N], tmem_layout, gl.num_warps()))
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    _tma_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


# Descriptor types as Triton 3.6 and 3.9 both mangle a gluon TensorDescriptor (see hopper_matmul.py).
_NVMMA_FP16 = ("NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False, "
               "fp4_padded=False, cga_layout=[])")

COMPILE = {
    "matmul_kernel": {
        "signature": {
            "a_desc": f"tensordesc<fp16[128, 64],{_NVMMA_FP16}>",  # [BLOCK_M, BLOCK_K]
            "b_desc": f"tensordesc<fp16[64, 128],{_NVMMA_FP16}>",  # [BLOCK_K, BLOCK_N]
            "c_desc": f"tensordesc<fp16[128, 128],{_NVMMA_FP16}>",  # [BLOCK_M, BLOCK_N]
            "K": "i32",
            "NUM_BUFFERS": "constexpr",
        },
        "constexprs": {"NUM_BUFFERS": 3},
        "arch": [100],
        "options": {"num_warps": 4},
    },
}
