import torch
from minference import block_sparse_attention
q, k, v = (torch.randn(1, 32, 8192, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
block_sparse_attention(q, k, v, top_k=64)
