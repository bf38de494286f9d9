import torch
from mamba_ssm.ops.triton.layernorm_gated import rmsnorm_fn
x = torch.randn(4096, 5120, device="cuda", dtype=torch.bfloat16)
rmsnorm_fn(x, torch.ones(5120, device="cuda", dtype=torch.bfloat16), None, z=torch.randn_like(x), group_size=5120)
