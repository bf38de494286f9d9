"""Kernels written in the style of real library kernels (serving-engine attention, quantization, norms),
each a class of finding that went wrong on a real kernel — and its counterpart where the rule must still
fire. Written for ttinspect's tests; no library's code is copied here."""

import triton
import triton.language as tl


@triton.jit
def gqa_decode(q_ptr, k_ptr, out_ptr, seq_len, stride_qh, stride_kt, stride_oh,
               GROUP: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    """Decode attention for grouped-query heads: one program per KV head takes that head's query heads.
    The dot's M is the heads of one KV group (at most GROUP valid rows of BLOCK_H): the model's shape
    sets it, not a tile choice."""
    kv_head = tl.program_id(0)
    heads = kv_head * GROUP + tl.arange(0, BLOCK_H)
    valid = tl.arange(0, BLOCK_H) < GROUP
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + heads[:, None] * stride_qh + offs_d[None, :], mask=valid[:, None], other=0.0)
    acc = tl.zeros([BLOCK_H, BLOCK_N], dtype=tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + offs_n[None, :] * stride_kt + offs_d[:, None], mask=offs_n[None, :] < seq_len, other=0.0)
        acc += tl.dot(q, k)
    tl.store(out_ptr + heads[:, None] * stride_oh + tl.arange(0, BLOCK_N)[None, :], acc, mask=valid[:, None])


@triton.jit
def attn_rows(q_ptr, k_ptr, out_ptr, seq_len, stride_qm, stride_kt, stride_om,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    """Prefill attention scores: the M rows are query tokens tiled over the grid (pid × BLOCK_M), a free
    tile size."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + offs_m[:, None] * stride_qm + offs_d[None, :])
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + offs_n[None, :] * stride_kt + offs_d[:, None], mask=offs_n[None, :] < seq_len, other=0.0)
        acc += tl.dot(q, k)
    tl.store(out_ptr + offs_m[:, None] * stride_om + tl.arange(0, BLOCK_N)[None, :], acc)


@triton.jit
def paged_decode(q_ptr, k_cache, block_table, out_ptr, num_blocks, stride_qh, stride_kb, stride_kt,
                 BLOCK_H: tl.constexpr, PAGE: tl.constexpr, HEAD_DIM: tl.constexpr):
    """Paged KV cache: each step reads the page number from the sequence's block table, then the page."""
    seq = tl.program_id(0)
    heads = tl.arange(0, BLOCK_H)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_t = tl.arange(0, PAGE)
    q = tl.load(q_ptr + heads[:, None] * stride_qh + offs_d[None, :])
    acc = tl.zeros([BLOCK_H, PAGE], dtype=tl.float32)
    for j in range(0, num_blocks):
        page = tl.load(block_table + seq * num_blocks + j)
        k = tl.load(k_cache + page.to(tl.int64) * stride_kb + offs_t[None, :] * stride_kt + offs_d[:, None])
        acc += tl.dot(q, k)
    tl.store(out_ptr + seq * BLOCK_H * PAGE + heads[:, None] * PAGE + offs_t[None, :], acc)


@triton.jit
def dequant_blockwise(q_ptr, absmax_ptr, out_ptr, n, BLOCK: tl.constexpr, QBLOCK: tl.constexpr):
    """Blockwise dequantization: one absmax per QBLOCK elements, read as `absmax[offs // QBLOCK]` —
    neighbouring elements read one address (a broadcast, not a narrow access)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(q_ptr + offs, mask=mask, other=0).to(tl.float32)
    scale = tl.load(absmax_ptr + offs // QBLOCK, mask=mask, other=0.0)
    tl.store(out_ptr + offs, (x * scale).to(tl.float16), mask=mask)


@triton.jit
def packed_rows(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    """Rows stored with one extra column (a per-row scale packed after the data): the row pitch is
    n_cols + 1 by design, so no hint on n_cols can make the rows 16-aligned."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * (n_cols + 1) + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + offs, x * 2.0, mask=mask)


@triton.jit
def strided_rows(x_ptr, out_ptr, n_cols, stride_x, stride_o, BLOCK: tl.constexpr):
    """A row-wise scale whose row strides are arguments: their divisibility is the launch's to say."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride_x + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_o + offs, x * 2.0, mask=mask)


@triton.jit
def unrolled_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    """A loop over a constant count (4 partial blocks): LLVM unrolls it whole, so the PTX has no loop."""
    offs = tl.program_id(0) * 4 * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(4):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def rms_rows(x_ptr, w_ptr, out_ptr, n_cols, stride, eps, BLOCK_SIZE: tl.constexpr):
    """An RMS norm that walks its row in BLOCK_SIZE pieces: BLOCK_SIZE = next_power_of_2(n_cols) on the
    host makes it one trip."""
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_SIZE):
        offs = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for off in range(0, n_cols, BLOCK_SIZE):
        offs = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        tl.store(out_ptr + row * stride + offs, (x * rstd * w).to(tl.float16), mask=offs < n_cols)


@triton.jit
def softmax_2d(x_ptr, out_ptr, n_rows, n_cols, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    """A softmax over ROWS rows at a time, normalized along the columns then transposed out: the layout
    conversion's scratch scales with ROWS × COLS."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    y = num / tl.sum(num, axis=1)[:, None]
    tl.store(out_ptr + cols[:, None] * stride + rows[None, :], tl.trans(y), mask=tl.trans(mask))
