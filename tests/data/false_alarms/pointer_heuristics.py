"""Heuristics and a pruner that read what real libraries read of a tensor argument: its element size, its
dtype and its data pointer's alignment (a quantized GEMM's pruner, a norm's heuristics)."""

import torch
import triton
import triton.language as tl


def _prune(configs, named_args, **kwargs):
    # keep the configs whose K step moves at least 16 bytes of A per row, as a library's pruner would
    step = 16 // named_args["a_ptr"].element_size()
    return [c for c in configs if c.kwargs["BLOCK"] >= step * 16]


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.heuristics({
    "IS_HALF": lambda a: a["a_ptr"].dtype == torch.float16,
    "ALIGNED": lambda a: a["a_ptr"].data_ptr() % 16 == 0,
    "VEC": lambda a: 16 // a["a_ptr"].element_size(),
})
@triton.jit
def scaled_copy(a_ptr, out_ptr, n, BLOCK: tl.constexpr, IS_HALF: tl.constexpr, ALIGNED: tl.constexpr,
                VEC: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(a_ptr + offs, mask=offs < n, other=0.0)
    if IS_HALF:
        x = x * 2
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.heuristics({"ROWS": lambda a: a["x_ptr"].shape[0]})
@triton.jit
def reads_shape(x_ptr, n, ROWS: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, 16), tl.zeros([16], dtype=tl.float32) + ROWS, mask=tl.arange(0, 16) < n)
