import torch
from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
x = torch.randn(2, 4096, 32, 64, device="cuda", dtype=torch.bfloat16)
B = torch.randn(2, 4096, 1, 128, device="cuda", dtype=torch.bfloat16)
dt, A = torch.rand(2, 4096, 32, device="cuda"), -torch.rand(32, device="cuda")
mamba_chunk_scan_combined(x, dt, A, B, B.clone(), chunk_size=256)
