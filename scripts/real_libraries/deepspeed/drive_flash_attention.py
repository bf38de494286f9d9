import torch
from deepspeed.ops.transformer.inference.triton.attention import _triton_packed_flash
batch, seq, heads, head_dim = 8, 2048, 32, 128
qkv = torch.randn(batch, seq, 3 * heads * head_dim, device="cuda", dtype=torch.float16)
mask = torch.zeros(batch, 1, 1, seq, device="cuda", dtype=torch.float16)
_triton_packed_flash(qkv, head_dim, mask, head_dim ** -0.5, causal=False, add_mask=True)
_triton_packed_flash(qkv, head_dim, mask, head_dim ** -0.5, causal=True, add_mask=False)
