"""Warp-specialized matmuls in Gluon (gl.warp_specialize): C = A @ B, fp16 in, fp32 accumulate, fp16 out.

Instead of one group of warps interleaving "load the next tiles" with "multiply these", each job gets its
own partition of warps, and the partitions hand shared-memory slots to each other through mbarriers:
  ready[s]  producer -> consumer: slot s holds the tiles of its K-step (TMA transaction bytes);
  empty[s]  consumer -> producer: the MMA that read slot s has finished, the slot may be refilled.
A fresh mbarrier counts as having just completed phase "1", so the producer's first pass over the ring
(waiting for parity 1 on empty[s]) does not block.

Two kernels, same operands as hopper_matmul.py (a_desc [BLOCK_M, BLOCK_K], b_desc [BLOCK_K, BLOCK_N],
c_desc [BLOCK_M, BLOCK_N], one program per C tile, K >= 1):

* `matmul_ws_kernel`, sm_100 (Blackwell), three partitions:
    default (num_warps warps): the epilogue, waits for the accumulator, TMEM -> registers -> TMA store;
    worker 0 (1 warp, 24 registers): the TMA producer;
    worker 1 (1 warp, 24 registers): issues tcgen05_mma into tensor memory, releasing each slot through the
    MMA's completion barrier, and tcgen05_commit's the accumulator barrier after the last one.
* `matmul_ws_hopper_kernel`, sm_90 (Hopper), two partitions:
    default (num_warps = 4 warps, one warpgroup): wgmma consumer plus epilogue;
    worker 0 (1 warp, 24 registers): the same TMA producer.

Both compile with Triton 3.9 and 3.6. The API differences between those releases are absorbed by the
aliases below (TMA builtins renamed; TMEM register layout helper replaced), as in the other files here.
`gl.warp_specialize([(default_fn, args), (worker_fn, args), ...], worker_num_warps, worker_num_regs)` has
the same form in both (3.9 makes worker_num_regs optional; it is given here).
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import blackwell
from triton.experimental.gluon.language.nvidia.blackwell import (
    TensorMemoryLayout,
    allocate_tensor_memory,
    tcgen05_commit,
    tcgen05_mma,
)
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

if hasattr(tma, "async_load"):  # Triton 3.9
    _tma_load = tma.async_load
    _tma_store = tma.async_store
else:  # Triton 3.6
    _tma_load = tma.async_copy_global_to_shared
    _tma_store = tma.async_copy_shared_to_global


@gluon.constexpr_function
def _tmem_reg_layout(dtype, shape, tmem_layout, num_warps):
    """Register layout for reading a TMEM buffer (tcgen05.ld 32x32b): 3.6 helper or 3.9 method."""
    if hasattr(blackwell, "get_tmem_reg_layout"):  # Triton 3.6
        return blackwell.get_tmem_reg_layout(dtype, shape, tmem_layout, num_warps)
    return blackwell.tensor_memory_descriptor_type(dtype, shape, tmem_layout, shape).get_reg_layout(num_warps=num_warps)


# ---------------------------------------------------------------------------------------------------------
# Partitions shared by both kernels


@gluon.jit
def _load_partition(a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, num_k):
    """Producer (1 warp): for every K-step, wait until its slot is free, then TMA both tiles into it."""
    NUM_BUFFERS: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    for k in range(num_k):
        slot = k % NUM_BUFFERS
        # The slot's previous occupant was step k - NUM_BUFFERS; parity 1 on the first lap passes at once.
        mbarrier.wait(empty.index(slot), ((k // NUM_BUFFERS) & 1) ^ 1)
        mbarrier.expect(ready.index(slot), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        _tma_load(a_desc, [off_m, k * BLOCK_K], ready.index(slot), a_bufs.index(slot))
        _tma_load(b_desc, [k * BLOCK_K, off_n], ready.index(slot), b_bufs.index(slot))


@gluon.jit
def _store_tile(c_desc, c_smem, acc, off_m, off_n):
    """Registers -> shared memory -> TMA store of one C tile (clipped at the edges of C)."""
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()  # order the generic-proxy smem writes before the TMA (async proxy) reads them
    _tma_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


# ---------------------------------------------------------------------------------------------------------
# Blackwell: loader + tcgen05 issuer + epilogue


@gluon.jit
def _tcgen05_partition(a_bufs, b_bufs, ready, empty, acc_tmem, acc_bar, num_k):
    """MMA issuer (1 warp): acc_tmem (+)= A_k @ B_k for every K-step, asynchronously."""
    NUM_BUFFERS: gl.constexpr = a_bufs.type.shape[0]
    for k in range(num_k):
        slot = k % NUM_BUFFERS
        mbarrier.wait(ready.index(slot), (k // NUM_BUFFERS) & 1)
        # empty[slot] is arrived on when this MMA has finished reading the slot: the producer may refill it.
        tcgen05_mma(a_bufs.index(slot), b_bufs.index(slot), acc_tmem, use_acc=k > 0, mbarriers=[empty.index(slot)])
    # Fires once every MMA issued above is complete: the accumulator is final.
    tcgen05_commit(acc_bar)


@gluon.jit
def _tmem_epilogue_partition(c_desc, c_smem, acc_tmem, acc_bar, off_m, off_n):
    """Default partition (num_warps warps): wait for the accumulator, read it out of TMEM, store it."""
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    mbarrier.wait(acc_bar, 0)
    acc = acc_tmem.load(_tmem_reg_layout(gl.float32, [BLOCK_M, BLOCK_N], acc_tmem.layout, gl.num_warps()))
    _store_tile(c_desc, c_smem, acc, off_m, off_n)


@gluon.jit
def matmul_ws_kernel(a_desc, b_desc, c_desc, K, NUM_BUFFERS: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    num_k = gl.cdiv(K, BLOCK_K)

    # Everything the partitions share is allocated up front, by all warps.
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [NUM_BUFFERS, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [NUM_BUFFERS, BLOCK_K, BLOCK_N], b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    acc_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    mbarrier.init(acc_bar, count=1)
    fence_async_shared()

    tmem_layout: gl.constexpr = TensorMemoryLayout(block=(BLOCK_M, BLOCK_N), col_stride=1)
    acc_tmem = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N], tmem_layout)

    gl.warp_specialize([
        (_tmem_epilogue_partition, (c_desc, c_smem, acc_tmem, acc_bar, off_m, off_n)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, num_k)),
        (_tcgen05_partition, (a_bufs, b_bufs, ready, empty, acc_tmem, acc_bar, num_k)),
    ], [1, 1], [24, 24])

    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))
    mbarrier.invalidate(acc_bar)


# ---------------------------------------------------------------------------------------------------------
# Hopper: loader + wgmma consumer/epilogue


@gluon.jit
def _wgmma_partition(a_bufs, b_bufs, ready, empty, c_desc, c_smem, off_m, off_n, num_k):
    """Default partition (one warpgroup): wgmma over the ring, releasing each slot once its wgmma retired,
    then the epilogue."""
    NUM_BUFFERS: gl.constexpr = a_bufs.type.shape[0]
    BLOCK_M: gl.constexpr = c_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = c_desc.block_type.shape[1]
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[gl.num_warps(), 1],
                                                         instr_shape=[16, BLOCK_N, 16])
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(num_k):
        slot = k % NUM_BUFFERS
        mbarrier.wait(ready.index(slot), (k // NUM_BUFFERS) & 1)
        acc = warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot), acc, is_async=True)
        # Leave only this wgmma running: step k - 1's is done, so hand its slot back to the producer.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
        mbarrier.arrive(empty.index((k + NUM_BUFFERS - 1) % NUM_BUFFERS), pred=k > 0)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
    _store_tile(c_desc, c_smem, acc, off_m, off_n)


@gluon.jit
def matmul_ws_hopper_kernel(a_desc, b_desc, c_desc, K, NUM_BUFFERS: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    gl.static_assert(gl.num_warps() == 4, "the wgmma partition is one warpgroup")
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    num_k = gl.cdiv(K, BLOCK_K)

    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [NUM_BUFFERS, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [NUM_BUFFERS, BLOCK_K, BLOCK_N], b_desc.layout)
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    fence_async_shared()

    gl.warp_specialize([
        (_wgmma_partition, (a_bufs, b_bufs, ready, empty, c_desc, c_smem, off_m, off_n, num_k)),
        (_load_partition, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, off_m, off_n, num_k)),
    ], [1], [24])

    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(empty.index(i))


# Descriptor types as Triton 3.6 and 3.9 both mangle a gluon TensorDescriptor (see hopper_matmul.py).
_NVMMA_FP16 = ("NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2, transposed=False, "
               "fp4_padded=False, cga_layout=[])")
_SIGNATURE = {
    "a_desc": f"tensordesc<fp16[128, 64],{_NVMMA_FP16}>",  # [BLOCK_M, BLOCK_K]
    "b_desc": f"tensordesc<fp16[64, 128],{_NVMMA_FP16}>",  # [BLOCK_K, BLOCK_N]
    "c_desc": f"tensordesc<fp16[128, 128],{_NVMMA_FP16}>",  # [BLOCK_M, BLOCK_N]
    "K": "i32",
    "NUM_BUFFERS": "constexpr",
}

COMPILE = {
    "matmul_ws_kernel": {
        "signature": _SIGNATURE,
        "constexprs": {"NUM_BUFFERS": 3},
        "arch": [100],
        "options": {"num_warps": 4},
    },
    "matmul_ws_hopper_kernel": {
        "signature": _SIGNATURE,
        "constexprs": {"NUM_BUFFERS": 3},
        "arch": [90],
        "options": {"num_warps": 4},
    },
}
