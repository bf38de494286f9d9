import torch
from conch.ops.normalization.gemma_rms_norm import gemma_rms_norm
x = torch.randn(4096, 3072, device="cuda", dtype=torch.bfloat16)
gemma_rms_norm(x, torch.ones(3072, device="cuda", dtype=torch.bfloat16), 1e-6, None)
