import torch
from lmdeploy.pytorch.kernels.cuda.activation import silu_and_mul
silu_and_mul(torch.randn(8192, 2 * 14336, device="cuda", dtype=torch.bfloat16))
