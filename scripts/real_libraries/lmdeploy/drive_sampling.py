import torch
from lmdeploy.pytorch.kernels.cuda import multinomial_sampling
scores = torch.rand(64, 128256, device="cuda").softmax(-1).sort(-1, descending=True)
seeds, offsets = (torch.randint(1000, 2000, (64,), device="cuda") for _ in range(2))
multinomial_sampling(scores.values, seeds, offsets, scores.indices)
