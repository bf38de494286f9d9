import torch
from conch.ops.attention.varlen_attention import varlen_attention
q = torch.randn(4 * 512, 32, 128, device="cuda", dtype=torch.bfloat16)
kc = torch.randn(2048, 16, 8, 128, device="cuda", dtype=torch.bfloat16)
cu = torch.arange(0, 2049, 512, device="cuda", dtype=torch.int32)
table = torch.randint(0, 2048, (4, 128), device="cuda", dtype=torch.int32)
lens = torch.full((4,), 2048, device="cuda", dtype=torch.int32)
varlen_attention(q, kc, kc.clone(), cu, 512, lens, 2048, table, causal=True)
