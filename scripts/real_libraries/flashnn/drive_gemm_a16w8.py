import torch
from flashnn.triton_kernels.gemm_a16w8 import triton_gemm_a16w8_forward
act = torch.randn(512, 4096, device="cuda", dtype=torch.float16)
w = torch.randint(-128, 127, (4096, 4096), device="cuda", dtype=torch.int8)
out = torch.empty(512, 4096, device="cuda", dtype=torch.float16)
triton_gemm_a16w8_forward(out, act, w, torch.ones(4096, device="cuda", dtype=torch.float16))
