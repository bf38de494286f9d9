"""Kernels for tests/test_check_round5.py: the access and loop shapes of issue 39's round 5, written for the
tests (no library's code).

TTI005: accesses whose index has a constant stride > 1 along the tile's fastest dimension (interleaved pairs,
a 2-D tile reading every other column) beside accesses that are narrow for a hint (an unaligned pointer, a
mask bound without divisibility).
TTI001: loops whose loads sit under an `if` in the body, beside loops whose `if` holds no load.
"""

import triton
import triton.language as tl


@triton.jit
def interleaved_pairs(X, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(X + 2 * i, mask=m)
    y = tl.load(X + 2 * i + 1, mask=m)
    tl.store(X + 2 * i, x - y, mask=m)
    tl.store(X + 2 * i + 1, x + y, mask=m)


@triton.jit
def every_other_column(X, Y, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    x = tl.load(X + r * (2 * COLS) + c * 2)
    tl.store(Y + r * COLS + c, x)


@triton.jit
def contiguous_masked(X, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(X + i, mask=m)
    tl.store(X + i, x * 2, mask=m)


@triton.jit
def contiguous_unaligned(X, Y, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(X + i)
    tl.store(Y + i, x)


@triton.jit
def loads_under_if(K, V, Out, N_BLOCKS: tl.constexpr, B: tl.constexpr, D: tl.constexpr):
    r = tl.arange(0, B)[:, None] * D + tl.arange(0, D)[None, :]
    acc = tl.zeros([D, D], dtype=tl.float32)
    for i in range(N_BLOCKS - 1, -1, -1):
        if i < N_BLOCKS - 1:
            k = tl.load(K + i * B * D + r)
            v = tl.load(V + i * B * D + r)
            acc += tl.dot(tl.trans(k), v)
    tl.store(Out + tl.arange(0, D)[:, None] * D + tl.arange(0, D)[None, :], acc)


@triton.jit
def loads_before_if(K, V, Out, N_BLOCKS: tl.constexpr, B: tl.constexpr, D: tl.constexpr):
    r = tl.arange(0, B)[:, None] * D + tl.arange(0, D)[None, :]
    acc = tl.zeros([D, D], dtype=tl.float32)
    for i in range(N_BLOCKS - 1, -1, -1):
        k = tl.load(K + i * B * D + r)
        v = tl.load(V + i * B * D + r)
        if i < N_BLOCKS - 1:
            acc = acc * 0.5
        acc += tl.dot(tl.trans(k), v)
    tl.store(Out + tl.arange(0, D)[:, None] * D + tl.arange(0, D)[None, :], acc)


@triton.jit
def barrier_and_if(K, V, Out, N_BLOCKS: tl.constexpr, B: tl.constexpr, D: tl.constexpr):
    r = tl.arange(0, B)[:, None] * D + tl.arange(0, D)[None, :]
    acc = tl.zeros([D, D], dtype=tl.float32)
    for i in range(N_BLOCKS - 1, -1, -1):
        k = tl.load(K + i * B * D + r)
        v = tl.load(V + i * B * D + r)
        if i < N_BLOCKS - 1:
            acc = acc * 0.5
        tl.debug_barrier()
        acc += tl.dot(tl.trans(k), v)
    tl.store(Out + tl.arange(0, D)[:, None] * D + tl.arange(0, D)[None, :], acc)


@triton.jit
def one_load_under_if(K, V, Out, N_BLOCKS: tl.constexpr, B: tl.constexpr, D: tl.constexpr):
    r = tl.arange(0, B)[:, None] * D + tl.arange(0, D)[None, :]
    acc = tl.zeros([D, D], dtype=tl.float32)
    for i in range(N_BLOCKS - 1, -1, -1):
        k = tl.load(K + i * B * D + r)
        if i < N_BLOCKS - 1:
            v = tl.load(V + i * B * D + r)
            acc += tl.dot(tl.trans(k), v)
    tl.store(Out + tl.arange(0, D)[:, None] * D + tl.arange(0, D)[None, :], acc)


@triton.jit
def single_stage_and_if(K, V, Out, N_BLOCKS: tl.constexpr, B: tl.constexpr, D: tl.constexpr):
    r = tl.arange(0, B)[:, None] * D + tl.arange(0, D)[None, :]
    acc = tl.zeros([D, D], dtype=tl.float32)
    for i in tl.range(0, N_BLOCKS, num_stages=1):
        k = tl.load(K + i * B * D + r)
        v = tl.load(V + i * B * D + r)
        if i > 0:
            acc = acc * 0.5
        acc += tl.dot(tl.trans(k), v)
    tl.store(Out + tl.arange(0, D)[:, None] * D + tl.arange(0, D)[None, :], acc)
