import torch
from deepspeed.ops.transformer.inference.triton import gelu, softmax
gelu(torch.randn(8, 2048, 16384, device="cuda", dtype=torch.float16))
scores = torch.randn(8, 32, 2048, 2048, device="cuda", dtype=torch.float16)
softmax(scores)
softmax(scores, torch.zeros(8, 1, 1, 2048, device="cuda", dtype=torch.float16))
