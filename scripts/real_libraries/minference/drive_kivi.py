import torch
from minference.modules.kivi import triton_bmm_fA_qB_outer, triton_quantize_and_pack_along_last_dim
k_cache = torch.randn(1, 32, 128, 4096, device="cuda", dtype=torch.float16)
packed, scale, mn = triton_quantize_and_pack_along_last_dim(k_cache, group_size=128, bit=2)
q = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.float16)
triton_bmm_fA_qB_outer(128, q, packed, scale, mn, 2)
