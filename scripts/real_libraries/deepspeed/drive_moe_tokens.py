import torch
from deepspeed.ops.triton_ops.autoep_fused_token_ops import fused_row_weighting, fused_weighted_restore
tokens, top_k, hidden = 8 * 2048, 2, 4096
rows = torch.randn(tokens * top_k, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
fused_row_weighting(rows, torch.rand(tokens * top_k, 1, device="cuda")).sum().backward()
order = torch.randperm(tokens * top_k, device="cuda")
fused_weighted_restore(rows, torch.rand(tokens, top_k, device="cuda"), order, top_k, (8, 2048, hidden)).sum().backward()
