import torch
from conch.ops.quantization.int8 import static_scaled_int8_quant
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
out = torch.empty(4096, 4096, device="cuda", dtype=torch.int8)
static_scaled_int8_quant(out, x, torch.ones(1, device="cuda"))
