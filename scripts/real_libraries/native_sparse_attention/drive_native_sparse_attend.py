import torch
from native_sparse_attention_pytorch.triton_native_sparse_attention import native_sparse_attend
# the fine-selection attention alone, bf16, 8 query heads over 2 KV heads, 8 selected 64-token blocks
b, qh, kh, n, d, sel = 2, 8, 2, 4096, 128, 8
q = torch.randn(b, qh, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(b, kh, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
v = torch.randn(b, kh, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
indices = torch.randint(0, n // 64, (b, kh, n, sel), device="cuda")
mask = torch.ones(b, kh, n, sel, device="cuda", dtype=torch.bool)
out = native_sparse_attend(q, k, v, 64, indices, mask, include_block_causal=True)
out.sum().backward()
