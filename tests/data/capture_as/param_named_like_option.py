"""A kernel parameter that shares a launch option's name (`num_stages: tl.constexpr`, as flashinfer's page-index
kernel takes it), launched with num_stages=2: Triton binds the keyword to the parameter and parses it as the
compile option too, so the GPU compiles with num_stages=2."""
import torch
import triton
import triton.language as tl


@triton.jit
def fill_kernel(out_ptr, n, num_stages: tl.constexpr):
    for i in tl.range(0, n, 128, num_stages=num_stages):
        offs = i + tl.arange(0, 128)
        tl.store(out_ptr + offs, offs, mask=offs < n)


out = torch.empty(4096, device="cuda", dtype=torch.int32)
fill_kernel[(1,)](out, 4096, num_stages=2)
