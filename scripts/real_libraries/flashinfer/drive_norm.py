import torch
from flashinfer.triton.norm import rms_norm, rms_norm_add_residual
x = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
w = torch.ones(8192, device="cuda", dtype=torch.bfloat16)
rms_norm(x, w, torch.empty_like(x), 1e-6)
rms_norm_add_residual(x, torch.randn_like(x), w, 1e-6, x_out=torch.empty_like(x))
