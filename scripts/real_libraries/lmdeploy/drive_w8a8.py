import torch
from lmdeploy.pytorch.kernels.cuda import matmul_kernel_dynamic_quant, per_token_quant_int8, rms_norm_dynamic_quant
x = torch.randn(8192, 4096, device="cuda", dtype=torch.float16)
w = torch.randint(-127, 127, (14336, 4096), device="cuda", dtype=torch.int8)
w_scale = torch.rand(14336, 1, device="cuda", dtype=torch.float32)
x_q, x_scale = per_token_quant_int8(x, 1e-7)
y_q, y_scale = rms_norm_dynamic_quant(x, torch.ones(4096, device="cuda", dtype=torch.float16), 1e-6)
matmul_kernel_dynamic_quant(x_q, w, x_scale, w_scale, output_dtype=torch.float16)
