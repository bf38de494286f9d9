"""Not from the seeds: a FlashAttention forward pass, for `ttinspect report attn` to show a kernel whose
main loop holds two dots (Q·Kᵀ, then P·V) and loads two operands per step, the shape of Triton's
tutorial 06 (fused attention) reduced to its core: one head dimension, the online softmax in base 2,
and (CAUSAL) its two loops from one helper — the blocks left of the diagonal unmasked, then the diagonal
ones masked. docs/kernels.md tells what was left out.

Q, K, V and Out are (Z, N_CTX, HEAD_DIM), row-major and contiguous, viewed as Z·N_CTX rows; program
(m, z) computes BLOCK_M query rows of batch z against all N_CTX keys, BLOCK_N keys per loop step.
"""

from __future__ import annotations

import triton
import triton.language as tl

from ._launch import output


@triton.jit
def _attn_inner(acc, l_i, m_i, q, K, V, off_z, offs_m, lo, hi, qk_scale, stride_kn, stride_vn,
                HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
    """Keys lo..hi, BLOCK_N per step: the online softmax's update of (acc, l_i, m_i)."""
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in tl.range(lo, hi, BLOCK_N):
        k = tl.load(K + (off_z + start_n + offs_n[None, :]) * stride_kn + offs_d[:, None])  # Kᵀ tile
        qk = tl.dot(q, k) * qk_scale
        if MASKED:  # the diagonal block: a query sees only keys at or before it
            qk = tl.where(offs_m[:, None] >= (start_n + offs_n[None, :]), qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + (off_z + start_n + offs_n[:, None]) * stride_vn + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_fwd_kernel(Q, K, V, Out, sm_scale, N_CTX,
                    stride_qm, stride_kn, stride_vn, stride_om,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_z = tl.program_id(1).to(tl.int64) * N_CTX  # first row of this batch
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + (off_z + offs_m[:, None]) * stride_qm + offs_d[None, :])
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)  # running row maximum (base-2 logits)
    l_i = tl.zeros([BLOCK_M], tl.float32)  # running row sum of exp2
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/ln(2): exp(x) = exp2(x / ln 2)
    if CAUSAL:  # as tutorial 06: the blocks left of the diagonal need no mask, the diagonal ones do
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K, V, off_z, offs_m, 0, start_m * BLOCK_M, qk_scale,
                                    stride_kn, stride_vn, HEAD_DIM, BLOCK_N, False)
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K, V, off_z, offs_m, start_m * BLOCK_M,
                                    (start_m + 1) * BLOCK_M, qk_scale, stride_kn, stride_vn, HEAD_DIM, BLOCK_N,
                                    True)
    else:
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K, V, off_z, offs_m, 0, N_CTX, qk_scale,
                                    stride_kn, stride_vn, HEAD_DIM, BLOCK_N, False)
    acc = acc / l_i[:, None]
    tl.store(Out + (off_z + offs_m[:, None]) * stride_om + offs_d[None, :], acc.to(Out.dtype.element_ty))


def launch_attn(q, k, v, *, out=None, sm_scale=None, HEAD_DIM=None, BLOCK_M=128, BLOCK_N=64, CAUSAL=False,
                num_warps=4, num_stages=3, **options):
    """softmax(Q Kᵀ · sm_scale) V for (Z, N_CTX, HEAD_DIM) tensors; CAUSAL: each query sees the keys at or
    before it. sm_scale defaults to 1/sqrt(HEAD_DIM); N_CTX must be a multiple of BLOCK_M and BLOCK_N (no
    edge masks; with CAUSAL also BLOCK_M of BLOCK_N), HEAD_DIM a power of 2."""
    if q.dim() != 3 or q.shape != k.shape or q.shape != v.shape:
        raise ValueError(f"attention needs Q, K, V of one (Z, N_CTX, HEAD_DIM) shape, got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")
    Z, n_ctx, head_dim = q.shape
    if HEAD_DIM is None:
        HEAD_DIM = head_dim
    if HEAD_DIM != head_dim or head_dim & (head_dim - 1) or head_dim < 16:
        raise ValueError(f"HEAD_DIM must be the tensors' last dimension and a power of 2 >= 16, got {head_dim}")
    if n_ctx % BLOCK_M or n_ctx % BLOCK_N or (CAUSAL and BLOCK_M % BLOCK_N):
        raise ValueError(f"N_CTX={n_ctx} must be a multiple of BLOCK_M={BLOCK_M} and BLOCK_N={BLOCK_N} "
                         "(the kernel has no edge masks), and with CAUSAL BLOCK_M of BLOCK_N")
    if any(not t.is_contiguous() for t in (q, k, v)):
        raise ValueError("attention reads Q, K, V as contiguous (Z, N_CTX, HEAD_DIM) tensors")
    result = output(out, tuple(q.shape), q)
    if sm_scale is None:
        sm_scale = head_dim ** -0.5
    grid = (n_ctx // BLOCK_M, Z)
    attn_fwd_kernel[grid](q, k, v, result, sm_scale, n_ctx, head_dim, head_dim, head_dim, head_dim,
                          HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=CAUSAL, num_warps=num_warps,
                          num_stages=num_stages, **options)
    return result
