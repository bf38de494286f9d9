import torch
from adasplash import adasplash_v2
q = torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16)
adasplash_v2(q, q.clone(), q.clone(), niter=10)
