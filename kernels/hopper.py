"""Not from the seeds: the doc-003 matmul rewritten the way Hopper wants it, to give `ttinspect bench`
a Triton kernel that keeps up with cuBLAS on an H100 (docs/h100.md).

The differences from `opt`, each one visible in `ttinspect diff opt opt_tma --arch sm_90`:
- tiles move by TMA (host-side tensor descriptors): no address arithmetic, no masks — the copy engine
  zero-fills reads past the edges and clips the store;
- a persistent grid: one program per SM walks the tiles (in doc 003's grouped order), so the next
  tile's prologue overlaps the previous tile's epilogue;
- a large 128x256x64 tile with 8 warps (two warpgroups), so each wgmma is m64n256k16.
On GPUs without TMA (sm_80/86/89) Triton lowers the descriptor loads to ordinary loads.
"""

from __future__ import annotations

import triton
import triton.language as tl

from ._launch import matmul_shape, output

H100_SMS = 132  # the offline default for NUM_SMS; the launcher asks the GPU


@triton.jit
def matmul_tma_persistent_kernel(
    a_desc, b_desc, c_desc,
    M, N, K,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
):
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True):
        # doc 003's grouped order, per tile instead of per program
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((tile_id % num_pid_in_group) % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_m = pid_m * BLOCK_SIZE_M
        offs_n = pid_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([offs_m, ki * BLOCK_SIZE_K])
            b = b_desc.load([ki * BLOCK_SIZE_K, offs_n])
            acc = tl.dot(a, b, acc)
        c_desc.store([offs_m, offs_n], acc.to(c_desc.dtype))


def launch_tma(a, b, *, out=None, BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
               NUM_SMS=None, num_warps=8, num_stages=3, **options):
    """C = A @ B; a persistent grid of min(NUM_SMS, tiles) programs (NUM_SMS: the GPU's SM count)."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, N, K = matmul_shape(a, b)
    c = output(out, (M, N), a)
    for name, t in (("A", a), ("B", b), ("C", c)):
        # TMA descriptors need 16-byte aligned row strides and base addresses
        if t.stride(1) != 1 or (t.stride(0) * t.element_size()) % 16 or t.data_ptr() % 16:
            raise ValueError(f"TMA needs {name} row-major with rows a multiple of 16 bytes "
                             f"({16 // t.element_size()} elements); got {name}{tuple(t.shape)} stride {t.stride()}")
    if NUM_SMS is None:
        NUM_SMS = _sm_count(a)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_SIZE_M, BLOCK_SIZE_N])
    tiles = triton.cdiv(M, BLOCK_SIZE_M) * triton.cdiv(N, BLOCK_SIZE_N)
    matmul_tma_persistent_kernel[(min(NUM_SMS, tiles),)](
        a_desc, b_desc, c_desc, M, N, K,
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
        GROUP_SIZE_M=GROUP_SIZE_M, NUM_SMS=NUM_SMS, num_warps=num_warps, num_stages=num_stages, **options,
    )
    return c


def _sm_count(tensor) -> int:
    if tensor.device.type != "cuda":  # Triton's interpreter on the CPU: any positive count works
        return 4
    import torch

    return torch.cuda.get_device_properties(tensor.device).multi_processor_count
