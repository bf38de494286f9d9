"""An autotuned kernel whose early_config_prune reads the launch's arguments (the problem size): only tiles no
larger than the problem are timed."""

import triton
import triton.language as tl


def no_bigger_than_the_problem(configs, named_args, **kwargs):
    return [config for config in configs if config.kwargs["BLOCK"] <= max(named_args["n"], 128)]


@triton.autotune(configs=[triton.Config({"BLOCK": block}, num_warps=4) for block in (128, 512, 2048)], key=["n"],
                 prune_configs_by={"early_config_prune": no_bigger_than_the_problem})
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * alpha, mask=mask)
