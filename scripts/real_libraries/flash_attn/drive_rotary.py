import torch
from flash_attn.layers.rotary import apply_rotary_emb
q = torch.randn(4, 4096, 32, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
angle = torch.randn(4096, 64, device="cuda")
apply_rotary_emb(q, angle.cos(), angle.sin()).sum().backward()
