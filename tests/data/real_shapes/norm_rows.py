"""Row normalizations written like Triton's layer-norm tutorial: `for off in range(0, N, BLOCK_SIZE)` over
one row, where the host picks BLOCK_SIZE = next_power_of_2(N) for the usual widths, so the loops run once."""

import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def rms_norm_fixed_width(X, Y, W, stride, eps, N: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    """The row width is a constexpr: the trip count is in the IR itself."""
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + row * stride + cols, mask=cols < N, other=0.).to(tl.float32)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + row * stride + cols, mask=cols < N, other=0.).to(tl.float32)
        w = tl.load(W + cols, mask=cols < N)
        tl.store(Y + row * stride + cols, (x * rstd * w).to(tl.float16), mask=cols < N)
