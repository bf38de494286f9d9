import torch
from lmdeploy.pytorch.kernels.cuda import flash_attn_with_kvcache
batch, kv_len, block = 16, 4096, 64  # a decode step of 16 sequences over a 4096-token paged KV cache
q = torch.randn(batch, 32, 128, device="cuda", dtype=torch.bfloat16)
k_cache = torch.randn(batch * kv_len // block, block, 8, 128, device="cuda", dtype=torch.bfloat16)
table = torch.arange(batch * kv_len // block, device="cuda", dtype=torch.int32).view(batch, -1)
lens = torch.full((batch,), kv_len, device="cuda", dtype=torch.int32)
flash_attn_with_kvcache(q, k_cache, k_cache, cache_seqlens=lens, page_table=table)
