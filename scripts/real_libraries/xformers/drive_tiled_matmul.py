import torch
from xformers.ops import tiled_matmul
a = [[torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)] * 2] * 2
tiled_matmul(a, a)
