"""Kernels made inside functions, as libraries make one per configuration or GPU (a cache of factories):
the autotune list comes from the factory's argument, the kernel's body reads module globals only. `scaled`
reads its factory's local and cannot be made again offline (the capture holds no value of it)."""
import torch
import triton
import triton.language as tl

_CACHE = {}


def make_copy(configs):
    key = tuple(str(c) for c in configs)
    if key not in _CACHE:
        @triton.autotune(configs=configs, key=["n"])
        @triton.jit
        def factory_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
        _CACHE[key] = factory_copy
    return _CACHE[key]


def make_scaled(scale):
    @triton.jit
    def scaled(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)
    return scaled


x = torch.randn(8192, device="cuda")
y = torch.empty_like(x)
copy = make_copy([triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 2048}, num_warps=8)])
copy[lambda meta: (triton.cdiv(8192, meta["BLOCK"]),)](x, y, 8192)
make_scaled(tl.constexpr(3))[(8,)](x, y, 8192, BLOCK=1024)
print("ran")
