import torch
from conch.ops.attention.paged_attention import paged_attention
q = torch.randn(16, 32, 128, device="cuda", dtype=torch.bfloat16)
kc = torch.randn(2048, 16, 8, 128, device="cuda", dtype=torch.bfloat16)
table = torch.randint(0, 2048, (16, 128), device="cuda", dtype=torch.int32)
paged_attention(q, kc, kc.clone(), table, torch.full((16,), 2048, device="cuda", dtype=torch.int32))
