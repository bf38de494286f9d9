"""Run by tests/test_values_written_params.py under `capture --as sm_90 --values`: after one recorded launch, the
host reads back the tensor named by argv[1]."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def gather(x_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.load(x_ptr + idx), mask=offs < n)


@triton.jit
def copy_asm(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [tl.load(x_ptr + offs)], dtype=tl.float32,
                                  is_pure=True, pack=1)
    tl.store(out_ptr + offs, y)


read = sys.argv[1]
x = torch.arange(4096, device="cuda", dtype=torch.float32)
idx = torch.arange(4096, device="cuda")
out = torch.empty_like(x)
if read == "x_as_out":  # one storage given as an input and as the output
    gather[(4,)](x, idx, x[:4096], 4096, BLOCK=1024)
elif read == "x_after_asm":
    copy_asm[(1,)](x, out, BLOCK=1024)
else:
    gather[(4,)](x, idx, out, 4096, BLOCK=1024)
tensor = {"idx": idx, "x": x, "out": out, "x_as_out": x, "x_after_asm": x}[read]
print("read", int(tensor[7].item()))
