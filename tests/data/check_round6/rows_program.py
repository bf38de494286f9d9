# A row kernel as a layer norm writes it: a loop over a row's columns in BLOCK steps. Launched once per size in
# ROW_COLS (comma-separated): with 4096 columns the loop runs once, and TTI001 has nothing to say once the rules
# read the value the capture recorded for N. Run under `ttinspect capture --as sm_90` (no GPU needed).
import os

import torch
import triton
import triton.language as tl


@triton.jit
def row_sum(out, x, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x + row * stride + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(out + row, tl.sum(acc))


if __name__ == "__main__":  # a file reference to row_sum loads the definitions only
    for cols in (int(text) for text in os.environ["ROW_COLS"].split(",")):
        x = torch.randn(64, cols, device="cuda", dtype=torch.float16)
        out = torch.empty(64, device="cuda", dtype=torch.float32)
        row_sum[(64,)](out, x, x.stride(0), cols, BLOCK=4096, num_warps=8)
