import torch
from sglang.kernels.ops.quantization.awq_triton import awq_dequantize_triton
# an AWQ 4-bit Llama-3-8B MLP up-projection (4096 -> 14336, group 128), eight 4-bit values per int32
k, n, group = 4096, 14336, 128
qweight = torch.randint(0, 2**31 - 1, (k, n // 8), device="cuda", dtype=torch.int32)
zeros = torch.randint(0, 2**31 - 1, (k // group, n // 8), device="cuda", dtype=torch.int32)
scales = torch.rand(k // group, n, device="cuda", dtype=torch.float16)
awq_dequantize_triton(qweight, scales, zeros)
