import torch
from minference.ops.flash_attn_triton import _flash_attn_triton_decoding
q = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
k, v = (torch.randn(1, 8192, 32, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
_flash_attn_triton_decoding(q, k, v)
