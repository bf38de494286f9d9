import torch
from xformers.ops.rmsnorm import rms_norm, rms_norm_add
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
rms_norm(x, w, 1e-6)
rms_norm_add(x, torch.randn_like(x), w, 1e-6)
