import torch
from lmdeploy.pytorch.kernels.cuda import fused_moe
tokens, hidden, inter, experts, topk = 4096, 4096, 14336, 8, 2  # a Mixtral-8x7B layer
x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
w1 = torch.randn(experts, 2 * inter, hidden, device="cuda", dtype=torch.bfloat16)
w2 = torch.randn(experts, hidden, inter, device="cuda", dtype=torch.bfloat16)
weights, ids = torch.randn(tokens, experts, device="cuda").softmax(-1).topk(topk)
fused_moe(x, w1, w2, weights, ids, topk=topk, renormalize=True)
