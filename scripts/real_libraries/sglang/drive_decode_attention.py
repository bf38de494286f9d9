import torch
from sglang.kernels.ops.attention.decode_attention import decode_attention_fwd
# one decode step of a serving batch: 64 requests of 2048 cached tokens each (page size 1), 8 KV splits
def decode(heads, kv_heads, d=128, bs=64, ctx=2048, splits=8):
    k_cache = torch.randn(bs * ctx, kv_heads, d, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.randn_like(k_cache)
    q = torch.randn(bs, heads, d, device="cuda", dtype=torch.bfloat16)
    o = torch.empty_like(q)
    kv_indptr = torch.arange(0, (bs + 1) * ctx, ctx, device="cuda", dtype=torch.int32)
    kv_indices = torch.arange(bs * ctx, device="cuda", dtype=torch.int64)
    logits = torch.empty(bs, heads, splits, d, device="cuda", dtype=torch.float32)
    lse = torch.empty(bs, heads, splits, device="cuda", dtype=torch.float32)
    num_splits = torch.full((bs,), splits, device="cuda", dtype=torch.int32)
    decode_attention_fwd(q, k_cache, v_cache, o, kv_indptr, kv_indices, logits, lse, num_splits, splits,
                         d ** -0.5, 1.0, 1.0)
decode(heads=32, kv_heads=8)   # Llama-3-8B: grouped-query attention
decode(heads=32, kv_heads=32)  # a multi-head model: the normal (one head per program) kernel
