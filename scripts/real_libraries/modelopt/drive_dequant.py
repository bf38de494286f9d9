import torch
from modelopt.torch.kernels.quantization.gemm import fp4_dequantize, weight_dequant
packed = torch.randint(0, 255, (8192, 2048), device="cuda", dtype=torch.uint8)
fp4_dequantize(packed, torch.rand(8192, 256, device="cuda"), torch.tensor(1.0, device="cuda"), dtype=torch.bfloat16)
w8 = torch.randn(7168, 4096, device="cuda").to(torch.float8_e4m3fn)
weight_dequant(w8, torch.rand(56, 32, device="cuda"), dtype=torch.bfloat16)
