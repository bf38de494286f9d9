"""Kernels of the shapes kernel libraries write around Triton's decorators: a launch wrapper of the library's
own (a `triton.KernelInterface` holding the next layer in `.fn`, as flag-gems' `LibEntry` does) over an
autotuned kernel; and an autotuner whose `early_config_prune` makes the configs it returns, adding a constexpr
the listed configs lack (as gemlite's pruners add NUM_STAGES)."""

import triton
import triton.language as tl


class LaunchCache(triton.KernelInterface):
    """Caches the launch per key and runs the next layer (what flag-gems' LibEntry does)."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.cache = {}

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **kwargs)


def launch_cache():
    return LaunchCache


@launch_cache()
@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 256}, num_warps=8)],
                 key=["n"])
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)


def with_stages(configs, named_args, **kwargs):
    """Each listed config twice, with NUM_STAGES 1 and 2 (the configs a launch times)."""
    return [triton.Config({**c.kwargs, "NUM_STAGES": s}, num_warps=c.num_warps, num_stages=s)
            for c in configs for s in (1, 2)]


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=4)],
                 key=["n"],
                 prune_configs_by={"early_config_prune": with_stages})
@triton.jit
def staged_sum(x_ptr, y_ptr, n, BLOCK: tl.constexpr, NUM_STAGES: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=NUM_STAGES):
        offsets = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)
