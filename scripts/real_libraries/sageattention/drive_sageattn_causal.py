import torch
from sageattention import sageattn
q = torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16)
sageattn(q, q.clone(), q.clone(), tensor_layout="HND", is_causal=True)
