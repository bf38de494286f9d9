import torch
from flashinfer.triton.sm_constraint_gemm import gemm, gemm_descriptor_persistent, gemm_persistent
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
gemm_persistent(a, b, num_sms=66)
gemm(a, b)
gemm_descriptor_persistent(a, b.T.contiguous())
