import torch
from flashnn.triton_kernels.rms_norm_dquant import triton_rmsnorm_dquant_forward
x = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
triton_rmsnorm_dquant_forward(x, torch.ones(4096, device="cuda", dtype=torch.float16), 1e-6)
