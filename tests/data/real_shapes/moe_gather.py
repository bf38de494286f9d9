"""A fused mixture-of-experts GEMM (the shape of vLLM's fused_moe): the A rows of each tile are gathered
through an index tensor loaded from memory (`offs_token`), the B tile is the expert's weight block."""

import triton
import triton.language as tl


@triton.jit
def moe_matmul(a_ptr, b_ptr, c_ptr, sorted_token_ids_ptr, expert_ids_ptr, N, K, num_valid_tokens,
               stride_am, stride_be, stride_bk, stride_cm, top_k: tl.constexpr,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_token_id = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_token = tl.load(sorted_token_ids_ptr + offs_token_id)
    token_mask = offs_token < num_valid_tokens
    expert = tl.load(expert_ids_ptr + pid_m)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_token[:, None] // top_k * stride_am + offs_k[None, :])
    b_ptrs = b_ptr + expert * stride_be + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_token[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=token_mask[:, None] & (offs_n[None, :] < N))


@triton.jit
def gather_both_matmul(a_ptr, b_ptr, c_ptr, rows_ptr, cols_ptr, K, stride_am, stride_bn, stride_cm,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Both tiles gathered: A's rows and B's columns come from index tensors (nothing a dense TMA box fits)."""
    offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rows = tl.load(rows_ptr + offs)
    cols = tl.load(cols_ptr + tl.arange(0, BLOCK_N))
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k + offs_k)[None, :])
        b = tl.load(b_ptr + cols[None, :] * stride_bn + (k + offs_k)[:, None])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + offs[:, None] * stride_cm + tl.arange(0, BLOCK_N)[None, :], acc.to(tl.float16))
