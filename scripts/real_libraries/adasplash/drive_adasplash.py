import torch
from adasplash import adasplash_v1
q = torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16)
adasplash_v1(q, q.clone(), q.clone(), alpha=1.5, is_causal=True, niter=10)
