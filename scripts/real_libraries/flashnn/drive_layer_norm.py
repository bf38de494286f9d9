import torch
from flashnn.triton_kernels.layer_norm import triton_layer_norm_forward
from flashnn.triton_kernels.layer_norm_dquant import triton_layer_norm_dquant_forward
x = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
w, b = torch.ones(4096, device="cuda", dtype=torch.float16), torch.zeros(4096, device="cuda", dtype=torch.float16)
triton_layer_norm_forward(x, w, b, 1e-5)
triton_layer_norm_dquant_forward(x, w, b, 1e-5)
