import torch
from cut_cross_entropy import linear_cross_entropy
# A Llama-3-8B loss: 8 x 2048 tokens, hidden 4096, vocabulary 128256.
e = torch.randn(8, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
c = torch.randn(128256, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
labels = torch.randint(0, 128256, (8, 2048), device="cuda")
linear_cross_entropy(e, c, labels).backward()
