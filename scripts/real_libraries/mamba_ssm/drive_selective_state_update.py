import torch
from mamba_ssm.ops.triton.selective_state_update import selective_state_update
state = torch.randn(16, 32, 64, 128, device="cuda", dtype=torch.bfloat16)
x = torch.randn(16, 32, 64, device="cuda", dtype=torch.bfloat16)
B = torch.randn(16, 1, 128, device="cuda", dtype=torch.bfloat16)
A = -torch.rand(32, 64, 128, device="cuda")
selective_state_update(state, x, torch.rand_like(x), A, B, B.clone(), dt_softplus=True)
