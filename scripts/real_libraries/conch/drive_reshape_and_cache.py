import torch
from conch.ops.vllm.reshape_and_cache import reshape_and_cache
k = torch.randn(4096, 8, 128, device="cuda", dtype=torch.bfloat16)
kc = torch.zeros(2048, 16, 8, 128, device="cuda", dtype=torch.bfloat16)
reshape_and_cache(k, k.clone(), kc, kc.clone(), torch.arange(4096, device="cuda"))
