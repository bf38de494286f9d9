"""Small kernels that make `ttinspect check` fire, or stay silent (tests/test_check.py). Each is referenced
as `kernels.py:NAME` with `--signature` and `--set`, like a user's file. Not registered anywhere."""

import triton
import triton.language as tl


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_one_stage_loop(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The loop asks for no pipelining itself: `tl.range(..., num_stages=1)` wins over the launch's num_stages."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _k in tl.range(0, K, BLOCK_K, num_stages=1):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16))


@triton.jit
def matmul_outer_dot_loop(a_ptr, b_ptr, c_ptr, K, R, stride_am, stride_bk, stride_cm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The dot's loop holds another loop: the pipeliner only takes innermost loops."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        for _r in range(0, R):
            a = a * 2
        acc = tl.dot(a, tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16))


@triton.jit
def row_sums(x_ptr, out_ptr, N, stride_row, BLOCK_ROWS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    """A loop whose loads feed a reduction, not a dot."""
    rows = tl.program_id(0) * BLOCK_ROWS + tl.arange(0, BLOCK_ROWS)
    cols = tl.arange(0, BLOCK_COLS)
    total = tl.zeros((BLOCK_ROWS,), dtype=tl.float32)
    for start in range(0, N, BLOCK_COLS):
        x = tl.load(x_ptr + rows[:, None] * stride_row + (start + cols)[None, :])
        total += tl.sum(x.to(tl.float32), axis=1)
    tl.store(out_ptr + rows, total)


@triton.jit
def gather_matmul(a_ptr, idx_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The A tile's address depends on an index loaded inside the loop."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rows = tl.load(idx_ptr + k + offs_m)
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k + offs_k)[None, :])
        acc = tl.dot(a, tl.load(b_ptrs), acc)
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16))


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def scale_by_scalar(x_ptr, s_ptr, out_ptr, BLOCK: tl.constexpr):
    """`tl.load(s_ptr)` reads one value: a 32-bit load is all it can be."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    s = tl.load(s_ptr)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) * s)


@triton.jit
def many_live_values(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """No loop; every thread keeps a large tile and a few transforms of it live at once (registers)."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets)
    a = tl.exp(x)
    b = tl.sin(x)
    c = tl.cos(x)
    d = tl.sqrt(tl.abs(x))
    total = tl.sum(a, axis=0) + tl.sum(b, axis=0) + tl.sum(c, axis=0) + tl.sum(d, axis=0)
    tl.store(out_ptr + offsets, a * total + b * c - d)


@triton.jit
def gather_rows_before_loop(ids_ptr, weight_ptr, out_ptr, n_tokens, dim, stride_w, stride_o,
                            BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    """An embedding gather: the row indices are loaded once, before the loop (no indirection inside it)."""
    offs_t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    tmask = offs_t < n_tokens
    ids = tl.load(ids_ptr + offs_t, mask=tmask, other=0)
    for d in range(0, dim, BLOCK_D):
        offs_d = d + tl.arange(0, BLOCK_D)
        m = tmask[:, None] & (offs_d[None, :] < dim)
        rows = tl.load(weight_ptr + ids[:, None].to(tl.int64) * stride_w + offs_d[None, :], mask=m)
        tl.store(out_ptr + offs_t[:, None] * stride_o + offs_d[None, :], rows, mask=m)


@triton.jit
def row_softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    """One row per program, no loop: a 32768-wide fp32 row in 4 warps spills at far fewer than 255
    registers (ptxas stops at 32)."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, (num / tl.sum(num, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def int8_matmul(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, stride_cm,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """int8 × int8 → int32 accumulator."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for _k in range(0, K, BLOCK_K):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc)
