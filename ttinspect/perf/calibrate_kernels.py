"""The microbenchmarks `ttinspect calibrate` times (calibrate.py): Triton kernels, each with the function that
launches it and turns its median time into a rate. Imported only by calibrate, on a machine with a GPU."""

from __future__ import annotations

from typing import Any, Callable

import triton
import triton.language as tl

Bench = Callable[[Callable[[], Any]], float]  # do_bench's median, ms

# Tile shapes a tuned matmul reaches its best with on Ampere/Ada/Hopper (the tutorial's list, its largest):
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages); fp8 takes twice the K per tile
MATMUL_TILES = ((128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (128, 128, 64, 4, 4), (256, 128, 64, 8, 3),
                (128, 128, 32, 4, 4))


@triton.jit
def _matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
            GROUP_M: tl.constexpr, TF32: tl.constexpr, B_K_MAJOR: tl.constexpr):
    # grouped order (L2 reuse), A row-major M×K, B K×N row-major or (B_K_MAJOR) stored N×K, K contiguous:
    # the layout Hopper's fp8 and tf32 wgmma take (fp16/bf16 are fastest row-major); C fp32
    pid = tl.program_id(0)
    grid_m, grid_n = tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * grid_n)
    first_m = group * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * grid_n)) % size_m
    pid_n = (pid % (GROUP_M * grid_n)) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    if B_K_MAJOR:
        b = b_ptr + rn[None, :] * K + rk[:, None]
    else:
        b = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        if TF32:
            acc = tl.dot(tl.load(a), tl.load(b), acc, input_precision="tf32")
        else:
            acc = tl.dot(tl.load(a), tl.load(b), acc)
        a += BLOCK_K
        if B_K_MAJOR:
            b += BLOCK_K
        else:
            b += BLOCK_K * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def matmul_tflops(torch, dtype: str, size: int, bench: Bench) -> float | None:
    """The best TFLOP/s of the tiles above at size³ (None: torch has no such dtype here)."""
    kinds = {"fp16": "float16", "bf16": "bfloat16", "fp8": "float8_e4m3fn", "tf32": "float32"}
    torch_dtype = getattr(torch, kinds[dtype], None)
    if torch_dtype is None:
        return None
    a = torch.randn(size, size, device="cuda").to(torch_dtype)
    b = torch.randn(size, size, device="cuda").to(torch_dtype)
    c = torch.empty(size, size, device="cuda", dtype=torch.float32)
    best = None
    for bm, bn, bk, warps, stages in MATMUL_TILES:
        bk = bk * 2 if dtype == "fp8" else bk // 2 if dtype == "tf32" else bk
        grid = (triton.cdiv(size, bm) * triton.cdiv(size, bn),)
        try:
            ms = bench(lambda: _matmul[grid](a, b, c, size, size, size, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                             GROUP_M=8, TF32=dtype == "tf32", B_K_MAJOR=dtype in ("fp8", "tf32"),
                                             num_warps=warps, num_stages=stages))
        except Exception:  # out of shared memory on a smaller part: the next tile
            continue
        rate = 2 * size ** 3 / (ms * 1e-3) / 1e12
        best = rate if best is None else max(best, rate)
    return best


@triton.jit
def _fma(x_ptr, alpha, beta, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x0 = tl.load(x_ptr + offs)
    x1, x2, x3 = x0 + 1.0, x0 + 2.0, x0 + 3.0
    for _ in range(ITERS):  # four independent chains: the FMA units' throughput, not one chain's latency
        x0 = x0 * alpha + beta
        x1 = x1 * alpha + beta
        x2 = x2 * alpha + beta
        x3 = x3 * alpha + beta
    tl.store(x_ptr + offs, x0 + x1 + x2 + x3)


def fma_tflops(torch, sms: int, bench: Bench) -> float:
    block, iters, programs = 1024, 4096, sms * 16
    x = torch.zeros(programs * block, device="cuda", dtype=torch.float32)
    ms = bench(lambda: _fma[(programs,)](x, 0.999, 0.001, ITERS=iters, BLOCK=block, num_warps=8))
    return 2 * 4 * iters * programs * block / (ms * 1e-3) / 1e12


@triton.jit
def _copy(src, dst, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs))


def copy_gbps(torch, nbytes: int, bench: Bench) -> float:
    block = 4096
    n = nbytes // 4 // block * block
    src = torch.ones(n, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    ms = bench(lambda: _copy[(n // block,)](src, dst, BLOCK=block, num_warps=8))
    return 2 * n * 4 / (ms * 1e-3) / 1e9


@triton.jit
def _reread(src, out, CHUNKS: tl.constexpr, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(ROUNDS):
        chunk = (pid * ROUNDS + r) % CHUNKS
        acc += tl.load(src + chunk * BLOCK + tl.arange(0, BLOCK))
    tl.store(out + pid, tl.sum(acc))


def l2_gbps(torch, nbytes: int, bench: Bench) -> float:
    block, rounds = 4096, 64
    chunks = max(1, nbytes // 4 // block)
    src = torch.ones(chunks * block, device="cuda", dtype=torch.float32)
    programs = torch.cuda.get_device_properties(0).multi_processor_count * 32
    out = torch.empty(programs, device="cuda", dtype=torch.float32)
    run = lambda: _reread[(programs,)](src, out, CHUNKS=chunks, ROUNDS=rounds, BLOCK=block, num_warps=8)  # noqa: E731
    # do_bench flushes the L2 before each run: the buffer's first reads come from DRAM, a 1/(programs x
    # rounds / chunks) share of what a run reads (under 1 % on an H100), the rest are L2 hits
    ms = bench(run)
    return programs * rounds * block * 4 / (ms * 1e-3) / 1e9


@triton.jit
def _empty(x_ptr):
    pass


def launch_us(torch, bench: Bench) -> float:
    x = torch.empty(1, device="cuda")
    return bench(lambda: _empty[(1,)](x)) * 1e3
