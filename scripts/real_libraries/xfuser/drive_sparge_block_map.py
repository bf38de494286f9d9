"""xfuser's SpargeAttention block map (sparge_attention/block_mask.py): pooled-similarity selection of key blocks
for a 4096-token, 24-head, 128-dim attention, causal and not (the causal mask is filled by its own kernel)."""
import torch
from xfuser.core.sparge_attention.block_mask import get_block_map_meansim

q, k = (torch.randn(1, 24, 4096, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
for causal in (False, True):
    block_map = get_block_map_meansim(q, k, is_causal=causal, BLKQ=128, BLKK=64)
print(block_map.shape)
