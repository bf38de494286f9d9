"""Hopper (sm_90) pipelined matmul in Gluon: C = A @ B, fp16 inputs, fp32 accumulation, fp16 output.

A is M x K and B is K x N, both row-major, read through TMA descriptors whose block shapes fix the tile:
a_desc [BLOCK_M, BLOCK_K], b_desc [BLOCK_K, BLOCK_N], c_desc [BLOCK_M, BLOCK_N]. Each program computes one
BLOCK_M x BLOCK_N tile of C (grid: cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N)); TMA clips out-of-bounds rows and
columns (zero-filled loads, dropped stores), so M, N and K need not be multiples of the tile.

The K loop runs over a ring of NUM_BUFFERS shared-memory slots, one mbarrier per slot:
  * the prologue issues the TMA loads of the first NUM_BUFFERS - 1 K-steps;
  * step k waits for its slot's barrier, issues an asynchronous wgmma on it, then waits until at most one
    wgmma is outstanding: that retires step k - 1's wgmma, so its slot is free and is refilled with the
    loads of step k + NUM_BUFFERS - 1. NUM_BUFFERS - 1 TMA loads stay in flight behind the MMA.
A slot is reused every NUM_BUFFERS steps, so the phase to wait for is (k // NUM_BUFFERS) & 1.

`matmul_kernel_convert` is the same kernel except that inside the K loop it reads the A tile out of shared
memory in a plain blocked layout and `gl.convert_layout`s it to the wgmma register-operand layout (a
DotOperandLayout): a layout conversion, through shared memory, on every iteration of the main loop. It is
the positive case for a check that flags conversions in hot loops. Because its A operand lives in
registers, it retires each wgmma before the next iteration overwrites those registers.

Compiles for sm_90 with Triton 3.9 and 3.6. The TMA copy builtins were renamed between them
(3.6: tma.async_copy_global_to_shared / async_copy_shared_to_global; 3.9: tma.async_load / async_store, the
old names now raise), so `_tma_load` / `_tma_store` below pick whichever this release has.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

# Release switch: both pairs take (descriptor, coordinates, barrier, destination[, pred]) / (descriptor,
# coordinates, source) in the same order. Builtins may be module globals of a Gluon kernel.
if hasattr(tma, "async_load"):  # Triton 3.9
    _tma_load = tma.async_load
    _tma_store = tma.async_store
else:  # Triton 3.6
    _tma_load = tma.async_copy_global_to_shared
    _tma_store = tma.async_copy_shared_to_global


@gluon.jit
def _issue_loads(a_desc, b_desc, a_bufs, b_bufs, bars, step, num_k, off_m, off_n, NUM_BUFFERS: gl.constexpr):
    """Start the TMA loads of K-step `step` into slot step % NUM_BUFFERS; nothing if step is past the end."""
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    slot = step % NUM_BUFFERS
    pred = step < num_k
    bar = bars.index(slot)
    # The barrier completes its phase once both tiles' bytes have landed.
    mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes, pred=pred)
    _tma_load(a_desc, [off_m, step * BLOCK_K], bar, a_bufs.index(slot), pred=pred)
    _tma_load(b_desc, [step * BLOCK_K, off_n], bar, b_bufs.index(slot), pred=pred)


@gluon.constexpr_function
def _wgmma_layout(BLOCK_N, num_warps):
    # wgmma accumulator: warps stacked along M (an instruction covers 16 rows per warp, 4 warps = 64 rows),
    # one instruction spans the whole BLOCK_N (at most 256) with K = 16 for fp16.
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, BLOCK_N, 16])


@gluon.jit
def matmul_kernel(a_desc, b_desc, c_desc, K, NUM_BUFFERS: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    gl.static_assert(NUM_BUFFERS >= 2, "the ring needs a slot to load into while another is consumed")

    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N

    # The ring: NUM_BUFFERS slots per operand, in the descriptors' NVMMA (swizzled) shared layouts, which
    # both TMA and wgmma read directly; one mbarrier per slot signals "this slot's tiles have arrived".
    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [NUM_BUFFERS, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [NUM_BUFFERS, BLOCK_K, BLOCK_N], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.init(bars.index(i), count=1)
    fence_async_shared()  # make the initialised barriers visible to the TMA unit

    num_k = gl.cdiv(K, BLOCK_K)
    # Prologue: the first NUM_BUFFERS - 1 K-steps in flight.
    for i in gl.static_range(NUM_BUFFERS - 1):
        _issue_loads(a_desc, b_desc, a_bufs, b_bufs, bars, i, num_k, off_m, off_n, NUM_BUFFERS)

    acc_layout: gl.constexpr = _wgmma_layout(BLOCK_N, gl.num_warps())
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(num_k):
        slot = k % NUM_BUFFERS
        mbarrier.wait(bars.index(slot), (k // NUM_BUFFERS) & 1)
        acc = warpgroup_mma(a_bufs.index(slot), b_bufs.index(slot), acc, is_async=True)
        # At most one wgmma (this one) left running: step k - 1's is done, its slot can be overwritten.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
        _issue_loads(a_desc, b_desc, a_bufs, b_bufs, bars, k + NUM_BUFFERS - 1, num_k, off_m, off_n, NUM_BUFFERS)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))

    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.invalidate(bars.index(i))

    # Epilogue: registers -> shared memory -> TMA store (clipped at the edges of C).
    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()  # the generic-proxy writes above must be visible to the TMA (async proxy)
    _tma_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


@gluon.jit
def matmul_kernel_convert(a_desc, b_desc, c_desc, K, NUM_BUFFERS: gl.constexpr, CONVERT: gl.constexpr = True):
    """matmul_kernel with a per-iteration gl.convert_layout of the A tile (see the module docstring).
    CONVERT=False is check's TTI008 fix: A loaded from shared memory straight into the layout wgmma takes."""
    BLOCK_M: gl.constexpr = a_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_type.shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_type.shape[1]
    gl.static_assert(NUM_BUFFERS >= 2, "the ring needs a slot to load into while another is consumed")

    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N

    a_bufs = gl.allocate_shared_memory(a_desc.dtype, [NUM_BUFFERS, BLOCK_M, BLOCK_K], a_desc.layout)
    b_bufs = gl.allocate_shared_memory(b_desc.dtype, [NUM_BUFFERS, BLOCK_K, BLOCK_N], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [NUM_BUFFERS, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.init(bars.index(i), count=1)
    fence_async_shared()

    num_k = gl.cdiv(K, BLOCK_K)
    for i in gl.static_range(NUM_BUFFERS - 1):
        _issue_loads(a_desc, b_desc, a_bufs, b_bufs, bars, i, num_k, off_m, off_n, NUM_BUFFERS)

    acc_layout: gl.constexpr = _wgmma_layout(BLOCK_N, gl.num_warps())
    # A read out of shared memory row-major, 8 fp16 (16 bytes) per thread: a layout with no relation to wgmma.
    a_blocked: gl.constexpr = gl.BlockedLayout(size_per_thread=[1, 8], threads_per_warp=[4, 8],
                                               warps_per_cta=[gl.num_warps(), 1], order=[1, 0])
    # What wgmma takes for a register A operand: k_width = 32 bits / 16 bits = 2 elements per register.
    a_dot: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=acc_layout, k_width=2)
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, layout=acc_layout)
    for k in range(num_k):
        slot = k % NUM_BUFFERS
        mbarrier.wait(bars.index(slot), (k // NUM_BUFFERS) & 1)
        if CONVERT:
            a = a_bufs.index(slot).load(a_blocked)
            a = gl.convert_layout(a, a_dot)  # the conversion inside the main loop
        else:
            a = a_bufs.index(slot).load(a_dot)
        acc = warpgroup_mma(a, b_bufs.index(slot), acc, is_async=True)
        # Retire this wgmma before the next iteration reuses the registers that hold A (which also frees
        # this step's slot; the refill below targets step k - 1's slot, as in matmul_kernel).
        acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
        _issue_loads(a_desc, b_desc, a_bufs, b_bufs, bars, k + NUM_BUFFERS - 1, num_k, off_m, off_n, NUM_BUFFERS)

    for i in gl.static_range(NUM_BUFFERS):
        mbarrier.invalidate(bars.index(i))

    c_smem = gl.allocate_shared_memory(c_desc.dtype, [BLOCK_M, BLOCK_N], c_desc.layout)
    c_smem.store(acc.to(c_desc.dtype))
    fence_async_shared()
    _tma_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


# The descriptor argument type, exactly as Triton 3.6 and 3.9 both mangle a
# triton.experimental.gluon.nvidia.hopper.TensorDescriptor: "tensordesc<DTYPE[BLOCK SHAPE],SHARED LAYOUT>".
# A 128-byte swizzle is NVMMASharedLayout.get_default_for's choice for these fp16 blocks (>= 64 columns).
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
    "matmul_kernel": {
        "signature": _SIGNATURE,
        "constexprs": {"NUM_BUFFERS": 3},
        "arch": [90],
        "options": {"num_warps": 4},
    },
    "matmul_kernel_convert": {
        "signature": {**_SIGNATURE, "CONVERT": "constexpr"},
        "constexprs": {"NUM_BUFFERS": 3, "CONVERT": True},
        "arch": [90],
        "options": {"num_warps": 4},
    },
}
