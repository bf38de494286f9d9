import torch
from modelopt.torch.kernels.quantization.gemm import nvfp4_fp8_scale_sweep, nvfp4_fp8_scale_sweep_hessian
w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
amax = w.abs().amax().float()
nvfp4_fp8_scale_sweep(w, amax)
nvfp4_fp8_scale_sweep_hessian(w, amax, torch.randn(256, 16, 16, device="cuda"))
