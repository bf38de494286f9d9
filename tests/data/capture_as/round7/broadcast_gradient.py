"""The gradient of `out.sum()` reaches a backward kernel as an expanded tensor, every stride 0 (trifast's backward
kernels get it so from its own tests); a column of an fp16 matrix reaches the same kernel with its stride 4096.
The capture records each stride; TTI005 says what the access is from it (it advised "pass the unit stride as 1")."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, stride_x, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs * stride_x, mask=m) * 2, mask=m)


x = torch.ones((), device="cuda").expand(4096)  # what autograd gives for d(out.sum())/d(out)
y = torch.empty(4096, device="cuda")
scale[(4,)](x, y, x.stride(0), 4096, BLOCK=1024)
t = torch.empty(4096, 4096, device="cuda", dtype=torch.float16).t()[0]  # a column: 4096 apart (fp16: its own compile)
scale[(4,)](t, torch.empty(4096, device="cuda", dtype=torch.float16), t.stride(0), 4096, BLOCK=1024)
