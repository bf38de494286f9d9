import torch
from minference import vertical_slash_sparse_attention
q, k, v = (torch.randn(1, 32, 8192, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
v_idx = torch.arange(1000, device="cuda").expand(1, 32, 1000)
s_idx = torch.arange(6096, device="cuda").expand(1, 32, 6096)
vertical_slash_sparse_attention(q, k, v, v_idx, s_idx)
