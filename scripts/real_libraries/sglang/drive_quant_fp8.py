import torch
from sglang.kernels.ops.quantization.fp8_kernel import (dequant_group_fp8_to_bf16, per_tensor_quant_mla_fp8,
                                                         static_quant_fp8)
from sglang.kernels.ops.quantization.fp8_quantize import fp8_quantize
# FP8 serving: a static-scale activation quant (4096 tokens, Llama-3-8B hidden), DeepSeek MLA's absorbed
# per-tensor quant (128 heads x 512 tokens x 512), a plain cast with a scale, and a group-32 dequant
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
static_quant_fp8(x, torch.tensor([0.02], device="cuda"))
per_tensor_quant_mla_fp8(torch.randn(128, 512, 512, device="cuda", dtype=torch.bfloat16),
                         torch.zeros(1, device="cuda", dtype=torch.float32))
fp8_quantize(x, scale_inv=50.0)
q = torch.randn(4096, 4096, device="cuda").to(torch.float8_e4m3fn)
dequant_group_fp8_to_bf16(q, torch.ones(4096, 4096 // 32, device="cuda", dtype=torch.bfloat16))
