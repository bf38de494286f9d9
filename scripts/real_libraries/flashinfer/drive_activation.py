import torch
from flashinfer.triton.activation import silu_and_mul
silu_and_mul(torch.randn(4096, 2 * 14336, device="cuda", dtype=torch.bfloat16))
