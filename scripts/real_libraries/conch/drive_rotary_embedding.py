import torch
from conch.ops.embedding.rotary_embedding import rotary_embedding
q = torch.randn(4096, 32 * 128, device="cuda", dtype=torch.bfloat16)
k = torch.randn(4096, 8 * 128, device="cuda", dtype=torch.bfloat16)
cache = torch.randn(8192, 128, device="cuda", dtype=torch.bfloat16)
rotary_embedding(torch.arange(4096, device="cuda"), q, k, 128, cache, is_neox=True)
