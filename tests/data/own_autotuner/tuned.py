"""A kernel library's own autotuner, in the style GPTQ-era libraries write it (a `triton.KernelInterface` holding
the JIT function in `.fn` and its `triton.Config`s in `.configs`, timing each config with
`triton.testing.do_bench` at the first launch of a key, then launching the fastest); our own code, no library's.
Run as a program it launches once and prints the choice and what do_bench returned in each of its shapes."""

import triton
import triton.language as tl
import triton.testing


class OwnTuner(triton.KernelInterface):
    def __init__(self, fn, configs, key):
        self.fn, self.configs, self.key = fn, configs, key
        self.arg_names = fn.arg_names
        self.cache = {}

    def run(self, *args, grid, warmup=False, **kwargs):
        named = dict(zip(self.arg_names, args, strict=False))
        key = tuple(named[name] for name in self.key)
        if key not in self.cache:
            timings = {}
            for config in self.configs:
                def launch(config=config):
                    self.fn.run(*args, grid=grid, warmup=False, num_warps=config.num_warps,
                                num_stages=config.num_stages, **kwargs, **config.kwargs)
                timings[config] = triton.testing.do_bench(launch, rep=40, quantiles=(0.5, 0.2, 0.8))
            self.cache[key] = min(timings, key=timings.get)
        config = self.cache[key]
        return self.fn.run(*args, grid=grid, warmup=False, num_warps=config.num_warps,
                           num_stages=config.num_stages, **kwargs, **config.kwargs)


def autotune(configs, key):
    return lambda fn: OwnTuner(fn, configs, key)


@autotune([triton.Config({"BLOCK": 256}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])
@triton.jit
def copy_kernel(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)


if __name__ == "__main__":
    import torch

    x = torch.ones(1 << 12, device="cuda")
    y = torch.empty_like(x)
    copy_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, x.numel())
    print("chose BLOCK", copy_kernel.cache[(x.numel(),)].kwargs["BLOCK"])
    bench = triton.testing.do_bench
    print("shapes", bench(lambda: None), bench(lambda: None, quantiles=[0.5]),
          bench(lambda: None, quantiles=[0.5, 0.2]), bench(lambda: None, 25, 100, None, None, "all"))
