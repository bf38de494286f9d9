import torch
from lightning_attn.ops import SimpleRMSNorm
x = torch.randn(8, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
SimpleRMSNorm(4096)(x).sum().backward()
