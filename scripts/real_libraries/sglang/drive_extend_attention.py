import torch
from sglang.kernels.ops.attention.extend_attention import extend_attention_fwd
# a chunked prefill: 8 requests, each 1024 new tokens over 1024 cached ones; Llama-3-8B heads
bs, prefix, new, heads, kv_heads, d = 8, 1024, 1024, 32, 8, 128
q = torch.randn(bs * new, heads, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(bs * new, kv_heads, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
o = torch.empty_like(q)
k_cache = torch.randn(bs * (prefix + new), kv_heads, d, device="cuda", dtype=torch.bfloat16)
v_cache = torch.randn_like(k_cache)
qo_indptr = torch.arange(0, (bs + 1) * new, new, device="cuda", dtype=torch.int32)
kv_indptr = torch.arange(0, (bs + 1) * prefix, prefix, device="cuda", dtype=torch.int32)
kv_indices = torch.arange(bs * prefix, device="cuda", dtype=torch.int64)
extend_attention_fwd(q, k, v, o, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices, None, True, None, new,
                     1.0, 1.0, sm_scale=d ** -0.5)
