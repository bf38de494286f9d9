import torch
from lmdeploy.pytorch.kernels.cuda import rms_norm
x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
rms_norm(x, w, 1e-6)
rms_norm(x, w, 1e-6, residual=torch.randn_like(x))
