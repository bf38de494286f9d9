"""Heuristics as libraries write them: one that passes a launch's value through (the launch site gives
REQUIRES_GRAD, the heuristic reads it back), one that reads its own key and changes it, and ones that read a
pointer argument's size (a scalar grad or a per-row one; a row count; a row stride)."""

import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0,
                    "REQUIRES_GRAD": lambda args: args["REQUIRES_GRAD"]})
@triton.jit
def passthrough(x, y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, REQUIRES_GRAD: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n)
    if REQUIRES_GRAD:
        v = v * 2
    tl.store(y + offs, v, mask=offs < n)


@triton.heuristics({"BLOCK": lambda args: min(args["BLOCK"], args["n"])})
@triton.jit
def clamps_its_own(x, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs, mask=offs < n) + 1, mask=offs < n)


@triton.heuristics({"ITEM_DO": lambda args: args["dOut"].numel() == 1,
                    "ROWS": lambda args: args["dOut"].shape[0] if args["dOut"].dim() else 1,
                    "ROW_STRIDE": lambda args: args["dOut"].stride(0) if args["dOut"].dim() else 0})
@triton.jit
def reads_size(dOut, x, n, BLOCK: tl.constexpr, ITEM_DO: tl.constexpr, ROWS: tl.constexpr,
               ROW_STRIDE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    d = tl.load(dOut) if ITEM_DO else tl.load(dOut + offs, mask=offs < n)
    tl.store(x + offs, d + ROWS + ROW_STRIDE, mask=offs < n)
