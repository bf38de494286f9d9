import torch
from native_sparse_attention_pytorch import SparseAttention
# a training step of one NSA layer (GQA 16 query heads over 4 KV heads, 4k tokens), through its Triton path
attn = SparseAttention(dim=1024, dim_head=64, heads=16, kv_heads=4, sliding_window_size=64,
                       compress_block_size=16, compress_block_sliding_stride=8, selection_block_size=16,
                       num_selected_blocks=8, causal=True, use_triton_kernel=True).to("cuda")
x = torch.randn(2, 4096, 1024, device="cuda", requires_grad=True)
attn(x).sum().backward()
