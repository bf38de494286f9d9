import torch
from ring_flash_attn.triton_utils import flatten_varlen_lse, unflatten_varlen_lse

cu_seqlens = torch.tensor([0, 1024, 3072, 4096], dtype=torch.int32, device="cuda")
lse = torch.randn(3, 32, 2048, device="cuda")
flat = flatten_varlen_lse(lse, cu_seqlens)
unflatten_varlen_lse(flat.transpose(0, 1).unsqueeze(-1), cu_seqlens, 2048)
