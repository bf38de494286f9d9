import torch
from mlstm_kernels.torch import get_mlstm_kernel
# The quadratic (attention-like) mLSTM: 4 heads of 128, 4 x 2048 tokens.
mlstm = get_mlstm_kernel("parallel--triton_limit_headdim")
q, k, v = (torch.randn(4, 4, 2048, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
i, f = (torch.randn(4, 4, 2048, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(2))
mlstm(q, k, v, i, f, autocast_kernel_dtype=torch.bfloat16).sum().backward()
