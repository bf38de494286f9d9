"""Kernels of the program tests/test_capture_as.py captures --as a target (and scripts/device_capture_as.py
runs on the GPU too, to compare)."""
import torch
import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

def fits(configs, named_args, **kwargs):
    props = triton.runtime.driver.active.utils.get_device_properties(torch.cuda.current_device())
    return [c for c in configs if c.kwargs["BLOCK"] * 4 * c.num_stages <= props["max_shared_mem"]]

@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w, num_stages=2)
                          for b in (256, 1024) for w in (4, 8)],
                 key=["n"], prune_configs_by={"early_config_prune": fits})
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs), 0))
    else:
        m = offs < n
        tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0), mask=m)
