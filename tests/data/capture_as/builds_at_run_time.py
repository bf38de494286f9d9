"""A program that builds a CUDA extension at run time, as flashrnn builds its backends and its device probe
(torch.utils.cpp_extension.load / load_inline, named by argv[1]): under capture --as nothing is built — each
call returns a stand-in, said once for its line — the program's Triton launch is recorded, and its one use of
the extension stops it in one line naming that use's line."""
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl
from torch.utils.cpp_extension import load, load_inline

SOURCE = "#include <cuda_runtime.h>\n__global__ void noop() {}\nint sms() { return 0; }\n"


@triton.jit
def double_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def build(name):
    if sys.argv[1] == "load":
        Path(f"{name}.cu").write_text(SOURCE)
        return load(name=name, sources=[f"{name}.cu"])
    return load_inline(name=name, cpp_sources="int sms();", cuda_sources=SOURCE, functions=["sms"])


extensions = [build(name) for name in ("probe_a", "probe_b")]  # two builds, one line: said once
print("built:", [type(ext).__name__ for ext in extensions])
x = torch.ones(1000, device="cuda")
double_kernel[(2,)](x, x.numel(), BLOCK=512)
print(extensions[0].sms())
