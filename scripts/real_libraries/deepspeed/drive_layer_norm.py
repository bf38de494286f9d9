import torch
from deepspeed.ops.transformer.inference.triton import layer_norm, layer_norm_residual
x = torch.randn(8, 2048, 4096, device="cuda", dtype=torch.float16)
w, b = torch.ones(4096, device="cuda", dtype=torch.float16), torch.zeros(4096, device="cuda", dtype=torch.float16)
layer_norm(x, w, b, 1e-5)
layer_norm_residual(x, None, torch.randn_like(x), w, b, 1e-5)
layer_norm_residual(x, torch.zeros_like(b), torch.randn_like(x), w, b, 1e-5)
