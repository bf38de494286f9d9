"""Kernels with more than one loop, or loops Triton splits: what the per-loop facts must read right."""

import triton
import triton.language as tl


@triton.jit
def rms_norm(X, Y, W, N, stride, eps, BLOCK: tl.constexpr, S1: tl.constexpr, S2: tl.constexpr):
    """Two passes over a row, each loop with its own tl.range(num_stages=...)."""
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for off in tl.range(0, N, BLOCK, num_stages=S1):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + row * stride + cols).to(tl.float32)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc) / N + eps)
    for off in tl.range(0, N, BLOCK, num_stages=S2):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + row * stride + cols).to(tl.float32)
        w = tl.load(W + cols).to(tl.float32)
        tl.store(Y + row * stride + cols, (x * rstd * w).to(tl.float16))


@triton.jit
def matmul_ws(a_desc, b_desc, c_desc, M, N, K,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, WS: tl.constexpr):
    """A TMA matmul whose K loop asks for warp specialization when WS is true."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=WS):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))
