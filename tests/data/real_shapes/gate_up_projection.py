"""A fused gate/up projection (the SwiGLU MLP's first GEMM): two `tl.dot` accumulators, `acc_gate` and
`acc_up`, both live across the K loop — twice the registers of a plain GEMM's one accumulator."""

import triton
import triton.language as tl


@triton.jit
def gate_up_matmul(x_ptr, w_gate_ptr, w_up_ptr, out_ptr, M, N, K, stride_xm, stride_wk, stride_om,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_gate_ptrs = w_gate_ptr + offs_k[:, None] * stride_wk + offs_n[None, :]
    w_up_ptrs = w_up_ptr + offs_k[:, None] * stride_wk + offs_n[None, :]
    acc_gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        x = tl.load(x_ptrs)
        acc_gate = tl.dot(x, tl.load(w_gate_ptrs), acc_gate)
        acc_up = tl.dot(x, tl.load(w_up_ptrs), acc_up)
        x_ptrs += BLOCK_K
        w_gate_ptrs += BLOCK_K * stride_wk
        w_up_ptrs += BLOCK_K * stride_wk
    hidden = acc_gate * tl.sigmoid(acc_gate) * acc_up
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :]
    tl.store(out_ptrs, hidden.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
