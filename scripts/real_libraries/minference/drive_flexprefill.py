import torch
from minference.modules.flexprefill import flex_prefill_attention
q, k, v = (torch.randn(1, 8192, 32, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
flex_prefill_attention(q, k, v, gamma=0.9, tau=0.1)
