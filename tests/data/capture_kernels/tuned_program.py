"""A small program for tests/test_capture_hooks.py: an autotuned kernel with heuristics, launched a few times;
the test runs it under TRITON_INTERPRET=1 while a capture records it."""

import time

import torch
import triton
import triton.language as tl


def wall_clock(kernel_call, quantiles):
    """The interpreter has no GPU benchmarker: the autotuner times a config with the wall clock."""
    start = time.perf_counter()
    kernel_call()
    elapsed = (time.perf_counter() - start) * 1000
    return [elapsed] * len(quantiles)


@triton.autotune(configs=[triton.Config({"BLOCK": 32}, num_warps=2), triton.Config({"BLOCK": 64}, num_warps=4),
                          triton.Config({"BLOCK": 128}, num_warps=4, num_stages=2)], key=["n"], do_bench=wall_clock)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def add_one(x, y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y + offsets, tl.load(x + offsets) + 1)
    else:
        mask = offsets < n
        tl.store(y + offsets, tl.load(x + offsets, mask=mask) + 1, mask=mask)


for n in (256, 256, 256, 100):
    x = torch.arange(n, dtype=torch.float32)
    y = torch.empty_like(x)
    add_one[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, y, n)
    assert torch.equal(y, x + 1)
