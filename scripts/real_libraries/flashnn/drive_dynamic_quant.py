import torch
from flashnn.triton_kernels.dynamic_quant import triton_dynamic_quantize
x = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
out = torch.empty(4096, 4096, device="cuda", dtype=torch.int8)
triton_dynamic_quantize(out, x, torch.empty(4096, device="cuda", dtype=torch.float16))
