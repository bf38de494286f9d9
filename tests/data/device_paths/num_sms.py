"""A persistent kernel sized by the GPU, the way Triton's tutorials size one: NUM_SMS from torch's device
properties, and the softmax tutorial's numbers from Triton's own driver utilities; the autotune configs are
pruned by the GPU's shared memory (prune_configs_by's early_config_prune, which Triton runs before timing)."""

import torch
import triton
import triton.language as tl
from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()
NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count
properties = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]


def fits_in_shared_memory(configs, named_args, **kwargs):
    """Keep the configs whose A and B tiles (fp16, one buffer per stage) fit the device's shared memory."""
    limit = torch.cuda.get_device_properties(torch.cuda.current_device()).shared_memory_per_block \
        if torch.version.hip else driver.active.utils.get_device_properties(0)["max_shared_mem"]
    kept = []
    for config in configs:
        m, n, k = (config.kwargs[key] for key in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
        if (m * k + k * n) * 2 * config.num_stages <= limit:
            kept.append(config)
    return kept


CONFIGS = [triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": 64}, num_stages=s, num_warps=8)
           for m, n, s in ((128, 256, 3), (128, 256, 5), (256, 128, 4), (128, 128, 4), (64, 64, 2))]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"], prune_configs_by={"early_config_prune": fits_in_shared_memory})
@triton.jit
def persistent_matmul(a_ptr, b_ptr, c_ptr, M, N, K, NUM_SMS: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    num_tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS):
        pid_m = tile // tl.cdiv(N, BLOCK_N)
        pid_n = tile % tl.cdiv(N, BLOCK_N)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BLOCK_K + offs_k)[None, :])
            b = tl.load(b_ptr + (k * BLOCK_K + offs_k)[:, None] * N + offs_n[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(tl.float16))


def launch(a, b, c):
    M, K = a.shape
    N = b.shape[1]

    def grid(META):
        return (min(NUM_SMS, triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"])), )

    persistent_matmul[grid](a, b, c, M, N, K, NUM_SMS=NUM_SMS)
