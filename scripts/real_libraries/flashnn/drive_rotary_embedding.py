import torch
from flashnn.triton_kernels.rotary_embedding import triton_rotary_embd_forward
q = torch.randn(2048, 4, 32, 128, device="cuda", dtype=torch.float16)
k = torch.randn(2048, 4, 8, 128, device="cuda", dtype=torch.float16)
cos = torch.randn(2048, 128, device="cuda", dtype=torch.float16)
triton_rotary_embd_forward(q, k, cos, cos.clone())
