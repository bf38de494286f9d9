import torch
from flashnn.triton_kernels.paged_attn import paged_attention
q = torch.randn(16, 32, 128, device="cuda", dtype=torch.float16)
kc = torch.randn(2048, 8, 16, 128, device="cuda", dtype=torch.float16)
table = torch.randint(0, 2048, (16, 128), device="cuda", dtype=torch.int32)
lens = torch.full((16,), 2048, device="cuda", dtype=torch.int32)
paged_attention(torch.empty_like(q), q, kc, kc.clone(), lens, table, 128**-0.5, 2048)
