import torch
from modelopt.torch.kernels.quantization.gemm.gptq_fused_kernel import gptq_fused_block_scalar
w = torch.randn(4096, 128, device="cuda")
gptq_fused_block_scalar(w, w.view(4096, 8, 16).abs().amax(-1), 1.0 / 2688, torch.eye(128, device="cuda"), 16, 0)
