import torch
from moe_ops import fused_topk_softmax, permute, unpermute
x = torch.randn(4096, 2048, device="cuda", dtype=torch.bfloat16)
weights, idx = fused_topk_softmax(torch.randn(4096, 64, device="cuda", dtype=torch.bfloat16), 8)
permuted, row_id_map, offsets = permute(x, idx, E=64)
unpermute(permuted, row_id_map, weights.float(), 4096, 8)
