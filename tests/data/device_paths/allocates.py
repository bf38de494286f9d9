"""Config code that allocates on the GPU at import, as libraries do for a workspace or a dtype probe: the
tensors' shape, dtype and device are what configs are chosen from, never their values."""

import torch
import triton
import triton.language as tl

WORKSPACE = torch.empty(4096, dtype=torch.int8, device="cuda")
PROBE = torch.zeros((16, 16), dtype=torch.bfloat16, device=torch.device("cuda")).t().contiguous()
ON_GPU = WORKSPACE.is_cuda and PROBE.device.type == "cuda"
ELEMENT_BYTES = PROBE.element_size()
BLOCK = 1024 if ON_GPU and ELEMENT_BYTES == 2 else 256


@triton.jit
def fill_kernel(y_ptr, n, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offsets, value, mask=offsets < n)
