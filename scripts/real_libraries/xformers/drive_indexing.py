import torch
from xformers.ops import index_select_cat, scaled_index_add
x = torch.randn(64, 1024, 1024, device="cuda", dtype=torch.float16)
idx = torch.randint(0, 64, (16,), device="cuda")
scaled_index_add(x, idx, torch.randn(16, 1024, 1024, device="cuda", dtype=torch.float16), None, 1.0)
index_select_cat([x.view(64, -1), x.view(64, -1)], [idx, idx.clone()])
