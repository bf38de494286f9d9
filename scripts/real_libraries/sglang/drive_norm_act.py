import torch
from sglang.kernels.ops.activation.gelu_and_mul_triton import gelu_and_mul_triton
from sglang.kernels.ops.layernorm.fused_rmsnorm import fused_dual_residual_rmsnorm, fused_rmsnorm
from sglang.kernels.ops.layernorm.rmsnorm_fp32 import rmsnorm_fp32
# a decoder layer's elementwise work at 4096 tokens (hidden 4096, MLP 14336)
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
fused_rmsnorm(x, w, 1e-6)
fused_dual_residual_rmsnorm(x, torch.randn_like(x), w, w, 1e-6)
rmsnorm_fp32(x.float(), w.float(), 1e-6)
gelu_and_mul_triton(torch.randn(4096, 2 * 14336, device="cuda", dtype=torch.bfloat16))
