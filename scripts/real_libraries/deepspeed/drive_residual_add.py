import torch
from deepspeed.ops.transformer.inference.triton import residual_add_bias
h, r, a = (torch.randn(8, 2048, 4096, device="cuda", dtype=torch.float16) for _ in range(3))
bias = torch.zeros(4096, device="cuda", dtype=torch.float16)
residual_add_bias(h, r, a, bias, bias, 1, True, True, True)
