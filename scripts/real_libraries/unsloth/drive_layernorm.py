import torch
from unsloth.kernels import fast_layernorm
norm = torch.nn.LayerNorm(4096).to("cuda", torch.bfloat16)
x = torch.randn(4, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
fast_layernorm(norm, x).sum().backward()
