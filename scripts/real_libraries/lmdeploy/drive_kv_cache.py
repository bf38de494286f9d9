import torch
from lmdeploy.pytorch.kernels.cuda import fill_kv_cache, flatten_kv_cache
batch, seq, block = 4, 2048, 64  # a prefill of 4 x 2048 tokens into a paged cache of 64-token blocks
k = torch.randn(batch * seq, 8, 128, device="cuda", dtype=torch.bfloat16)
k_cache = torch.empty(batch * seq // block, block, 8, 128, device="cuda", dtype=torch.bfloat16)
v_cache = torch.empty_like(k_cache)
starts = torch.arange(0, batch * seq, seq, device="cuda")
lens = torch.full((batch,), seq, device="cuda")
table = torch.arange(batch * seq // block, device="cuda").view(batch, -1)
fill_kv_cache(k, k, k_cache, v_cache, starts, lens, lens, seq, table)
flatten_kv_cache(k_cache, v_cache, lens, table, start_loc=starts, out_size=batch * seq)
