import torch
from moe_ops import grouped_gemm
A = torch.randn(8 * 4096, 2048, device="cuda", dtype=torch.bfloat16)
B = torch.randn(64, 1024, 2048, device="cuda", dtype=torch.bfloat16)
offsets = torch.arange(1, 65, device="cuda", dtype=torch.int32) * 512
grouped_gemm(A, B, offsets)
