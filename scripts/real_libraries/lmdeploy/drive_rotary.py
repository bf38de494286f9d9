import torch
from lmdeploy.pytorch.kernels.cuda import apply_rotary_pos_emb
q = torch.randn(8192, 32, 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(8192, 8, 128, device="cuda", dtype=torch.bfloat16)
angle = torch.randn(8192, 1, 128, device="cuda", dtype=torch.bfloat16)
apply_rotary_pos_emb(q, k, angle.cos(), angle.sin())
