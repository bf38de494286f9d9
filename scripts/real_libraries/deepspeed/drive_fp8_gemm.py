import torch
from deepspeed.ops.fp_quantizer import matmul_fp8
group = 128
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
w = torch.randint(0, 256, (4096, 11008), device="cuda", dtype=torch.uint8)  # FP_Quantize's fp8 bytes
matmul_fp8(x, w, torch.ones(4096 * 11008 // group, device="cuda"), group, None)
matmul_fp8(x[:16], w, torch.ones(4096 * 11008 // group, device="cuda"), group, None)  # a decode step's rows
