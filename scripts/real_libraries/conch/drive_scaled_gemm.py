import torch
from conch.ops.quantization.gemm import scaled_gemm
a = torch.randint(-128, 127, (4096, 4096), device="cuda", dtype=torch.int8)
b = torch.randint(-128, 127, (4096, 4096), device="cuda", dtype=torch.int8)
scaled_gemm(a, b, torch.ones(4096, 1, device="cuda"), torch.ones(4096, 1, device="cuda"), torch.bfloat16)
