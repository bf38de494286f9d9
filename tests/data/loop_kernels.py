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


@triton.jit
def nested_reduction(X, Y, M, N, BLOCK: tl.constexpr):
    """A plain outer loop around a pipelined inner loop: the inner loop's prologue sits in the outer body."""
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, M):
        for off in tl.range(0, N, BLOCK, num_stages=2):
            acc += tl.load(X + i * N + off + tl.arange(0, BLOCK))
    tl.store(Y + row * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def unrolled_inner(X, Y, M, BLOCK: tl.constexpr):
    """The inner loop has 4 trips: LLVM unrolls it into the outer loop's PTX loop."""
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, M):
        acc += tl.load(Y + i * BLOCK + tl.arange(0, BLOCK))
        for j in range(0, 4):
            x = tl.load(X + (i * 4 + j) * BLOCK + tl.arange(0, BLOCK))
            acc += tl.exp(x * x + 1.0)
    tl.store(Y + row * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def _sum_pass(X, Z, N, BLOCK: tl.constexpr, S: tl.constexpr, BRANCH: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for off in tl.range(0, N, BLOCK, num_stages=S):
        x = tl.load(X + off + tl.arange(0, BLOCK))
        acc += x
        if BRANCH:
            if tl.sum(x) > 0:
                tl.store(Z + off + tl.arange(0, BLOCK), x)
    return acc


@triton.jit
def two_calls_one_line(X, Y, Z, N, BLOCK: tl.constexpr):
    """Two loops from one helper, called on one line: told apart by order alone."""
    row = tl.program_id(0)
    a = _sum_pass(X, Z, N, BLOCK, 2, False) + _sum_pass(Y, Z, N, BLOCK, 4, True)
    tl.store(Y + row * BLOCK + tl.arange(0, BLOCK), a)


@triton.jit
def three_tma_loops(a_desc, b_desc, c_desc, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Three TMA K loops, num_stages 2, 2, 4: each loop's barriers and ring are its own."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=2):
        acc = tl.dot(a_desc.load([pid_m * BLOCK_M, k * BLOCK_K]), b_desc.load([k * BLOCK_K, pid_n * BLOCK_N]), acc)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=2):
        acc = tl.dot(a_desc.load([pid_m * BLOCK_M, k * BLOCK_K]), b_desc.load([k * BLOCK_K, pid_n * BLOCK_N]), acc)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=4):
        acc = tl.dot(a_desc.load([pid_m * BLOCK_M, k * BLOCK_K]), b_desc.load([k * BLOCK_K, pid_n * BLOCK_N]), acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))
