import torch
from flash_attention_triton import flash_attention_v2
q, k, v = (torch.randn(4, 32, 4096, 128, device="cuda", dtype=torch.float16, requires_grad=True) for _ in range(3))
flash_attention_v2(q, k, v).sum().backward()
