import torch
from flashnn.triton_kernels.gemm_a8w8 import triton_gemm_a8w8_forward
a = torch.randint(-128, 127, (4096, 4096), device="cuda", dtype=torch.int8)
b = torch.randint(-128, 127, (4096, 4096), device="cuda", dtype=torch.int8)
out = torch.empty(4096, 4096, device="cuda", dtype=torch.float16)
ones = torch.ones(4096, device="cuda", dtype=torch.float16)
triton_gemm_a8w8_forward(out, a, b, ones, ones)
