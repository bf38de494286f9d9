import torch
from adasplash import adasplash_no_block_mask
q = torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16)
adasplash_no_block_mask(q, q.clone(), q.clone(), alpha=1.5, is_causal=True, niter=10)
