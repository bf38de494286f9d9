import torch
from lightning_attn.ops import lightning_attn2_no_decay
q, k, v = (torch.randn(4, 16, 4096, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
lightning_attn2_no_decay(q, k, v).sum().backward()
