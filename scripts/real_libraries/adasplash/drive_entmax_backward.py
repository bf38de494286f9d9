import torch
from adasplash import triton_entmax_v1
x = torch.randn(4096, 32000, device="cuda", dtype=torch.float32, requires_grad=True)
triton_entmax_v1(x, alpha=1.5, n_iter=10).sum().backward()
