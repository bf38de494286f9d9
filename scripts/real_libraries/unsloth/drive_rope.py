import torch
from unsloth.kernels import fast_rope_embedding
q = torch.randn(4, 32, 2048, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(4, 8, 2048, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
angle = torch.randn(2048, 128, device="cuda", dtype=torch.bfloat16)
qr, kr = fast_rope_embedding(q, k, angle.cos(), angle.sin())
(qr.sum() + kr.sum()).backward()
