import torch
from auto_round_extension.triton.triton_utils.kernels import quant_matmul_248, transpose_quant_matmul_248
bits, group, k, n = 4, 128, 4096, 11008
qweight = torch.zeros(k // 32 * bits, n, device="cuda", dtype=torch.int32)
scales = torch.ones(k // group, n, device="cuda", dtype=torch.float16)
qzeros = torch.zeros(k // group, n // 32 * bits, device="cuda", dtype=torch.int32)
g_idx = torch.arange(k, device="cuda", dtype=torch.int32) // group
quant_matmul_248(torch.randn(4096, k, device="cuda", dtype=torch.float16), qweight, scales, qzeros, g_idx, bits, 15)
transpose_quant_matmul_248(torch.randn(4096, n, device="cuda", dtype=torch.float16), qweight, scales, qzeros,
                           g_idx, bits, 15)
