import torch
from sageattention import sageattn_varlen
q = torch.randn(4 * 2048, 32, 128, device="cuda", dtype=torch.float16)
cu = torch.arange(0, 4 * 2048 + 1, 2048, device="cuda", dtype=torch.int32)
sageattn_varlen(q, q.clone(), q.clone(), cu, cu, 2048, 2048, is_causal=True)
