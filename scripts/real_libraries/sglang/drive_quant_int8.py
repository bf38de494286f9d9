import torch
from sglang.kernels.ops.quantization.int8_kernel import per_token_group_quant_int8, per_token_quant_int8
# W8A8 int8 serving: per-token and per-128-group activation quant of 4096 tokens x 4096 hidden
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
per_token_quant_int8(x)
per_token_group_quant_int8(x, 128)
