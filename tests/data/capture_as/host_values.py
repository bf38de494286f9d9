"""Host code that reads values torch computes (a data-dependent shape, a bounds check) before its launch, then
reads what the kernel wrote: under --values the first run as on the GPU, the last is refused naming the launch."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def scale(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n) * 2, mask=offs < n)


labels = torch.arange(4096, device="cuda") % 5
valid = (labels != 0).nonzero().squeeze(1)  # 3276 rows: a shape from values
groups = torch.arange(4096, device="cuda") // 128
assert int(groups.max()) == 31  # a bounds check on the host
x = torch.ones(valid.numel(), device="cuda")
y = torch.empty_like(x)
before = y[:100]  # a view made before the launch: the same memory
scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
z = (y * 3)[::2]  # computed from unknown values: unknown, its shape known
print("shapes", valid.numel(), tuple(z.shape), z.is_cuda)
print("known", float(labels.sum()))
if "--read-output" in sys.argv:
    print(float(before.sum()))
