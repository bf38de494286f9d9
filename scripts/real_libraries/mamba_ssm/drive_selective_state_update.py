import torch
from mamba_ssm.ops.triton.selective_state_update import selective_state_update
state = torch.randn(16, 32, 64, 128, device="cuda", dtype=torch.bfloat16)
x = torch.randn(16, 32, 64, device="cuda", dtype=torch.bfloat16)
B = torch.randn(16, 1, 128, device="cuda", dtype=torch.bfloat16)
A = -torch.rand(32, 64, 128, device="cuda")
# D and dt_bias given, as mamba_ssm's own decode step gives them: the launch site unpacks
# `*(D.stride(0), D.stride(1)) if D is not None else 0`, which raises TypeError on a GPU too when either is None
D = torch.randn(32, 64, device="cuda")
dt_bias = torch.rand(32, 64, device="cuda")
selective_state_update(state, x, torch.rand_like(x), A, B, B.clone(), D=D, dt_bias=dt_bias, dt_softplus=True)
