import torch
from conch.ops.activation.silu_and_mul import silu_and_mul
silu_and_mul(torch.randn(4096, 2 * 11008, device="cuda", dtype=torch.bfloat16))
