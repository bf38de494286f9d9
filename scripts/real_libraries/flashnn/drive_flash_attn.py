import torch
from flashnn.triton_kernels.flash_attn_v2 import triton_flash_attention_forward
q = torch.randn(4, 2048, 32, 128, device="cuda", dtype=torch.float16)
triton_flash_attention_forward(q, q.clone(), q.clone(), causal=True)
