import torch
from conch.ops.normalization.rms_norm import fused_add_rms_norm, rms_norm
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
rms_norm(x, w, 1e-6)
fused_add_rms_norm(x, torch.randn_like(x), w, 1e-6)
