import torch
from conch.ops.quantization.fp8 import static_scaled_fp8_quant
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
out = torch.empty(4096, 4096, device="cuda", dtype=torch.float8_e4m3fn)
static_scaled_fp8_quant(out, x, torch.ones(1, device="cuda"))
