"""Launch wrappers of a library's own that only look like a tuner in part: one holding configs that are not
triton.Config (plain dicts it reads itself), one holding none. Each passes the launch on to `.fn`."""

import triton
import triton.language as tl


class PassOn(triton.KernelInterface):
    def __init__(self, fn, configs=None):
        self.fn = fn
        self.arg_names = fn.arg_names
        if configs is not None:
            self.configs = configs

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **kwargs)


@lambda fn: PassOn(fn, configs=[{"BLOCK": 256}, {"BLOCK": 1024}])
@triton.jit
def dict_configs(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)


@PassOn
@triton.jit
def no_configs(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)
