import torch
from gptqmodel.nn_modules.qlinear.w4a_triton import fp8_linear
w = torch.randn(4096, 11008, device="cuda").to(torch.float8_e4m3fn)
scales = torch.rand(4096 // 128, 11008, device="cuda", dtype=torch.float16)
fp8_linear(torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16), w, scales, None)
