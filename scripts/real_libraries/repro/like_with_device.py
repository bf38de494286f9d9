import torch
x = torch.ones(64, 64, device="cuda", dtype=torch.bfloat16)
torch.empty_like(x, dtype=x.dtype, device=x.device)
