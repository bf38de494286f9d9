"""TMA matmuls written like Triton's tutorial 09 for Blackwell, with host tensor descriptors and
`tl.range(..., warp_specialize=WARP_SPECIALIZE)`: warp specialized, the K loop is split between a partition
that issues the TMA loads and one that issues the MMAs (tcgen05)."""

import triton
import triton.language as tl


@triton.jit
def matmul_tma(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    """One output tile per program; the K loop itself asks for warp specialization."""
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    k_tiles = tl.cdiv(K, BLOCK_K)
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(k_tiles, warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        accumulator = tl.dot(a, b.T, accumulator)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], accumulator.to(tl.float16))


@triton.jit
def _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // (GROUP_SIZE_M * num_pid_n)
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % (GROUP_SIZE_M * num_pid_n)) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                          WARP_SPECIALIZE: tl.constexpr):
    """Persistent: a flattened tile loop around the K loop asks for warp specialization."""
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, ki * BLOCK_K])
            accumulator = tl.dot(a, b.T, accumulator)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], accumulator.to(tl.float16))
