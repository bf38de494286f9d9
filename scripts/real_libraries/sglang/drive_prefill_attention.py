import torch
from sglang.kernels.ops.attention.prefill_attention import context_attention_fwd
# a prefill of 4 prompts of 2048 tokens, Llama-3-8B heads (32 query over 8 KV heads)
bs, n, heads, kv_heads, d = 4, 2048, 32, 8, 128
q = torch.randn(bs * n, heads, d, device="cuda", dtype=torch.bfloat16)
k = torch.randn(bs * n, kv_heads, d, device="cuda", dtype=torch.bfloat16)
v = torch.randn_like(k)
o = torch.empty_like(q)
start = torch.arange(0, bs * n, n, device="cuda", dtype=torch.int32)
lens = torch.full((bs,), n, device="cuda", dtype=torch.int32)
context_attention_fwd(q, k, v, o, start, lens, n, is_causal=True)
