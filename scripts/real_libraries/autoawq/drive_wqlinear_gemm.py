import torch
from awq.modules.linear import WQLinear_GEMM
layer = WQLinear_GEMM(4, 128, 4096, 11008, False, "cuda")
layer(torch.randn(1, 1, 4096, device="cuda", dtype=torch.float16))     # decode: the fused GEMM
layer(torch.randn(1, 2048, 4096, device="cuda", dtype=torch.float16))  # prefill: dequantize, then matmul
