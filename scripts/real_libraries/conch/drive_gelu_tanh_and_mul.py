import torch
from conch.ops.activation.gelu_tanh_and_mul import gelu_tanh_and_mul
gelu_tanh_and_mul(torch.randn(4096, 2 * 11008, device="cuda", dtype=torch.bfloat16))
