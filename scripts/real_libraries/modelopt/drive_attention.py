import torch
from modelopt.torch.kernels.common.attention import attention
q = torch.randn(8 * 2048, 32, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(8 * 2048, 8, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
v = torch.randn(8 * 2048, 8, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
starts = torch.arange(0, 8 * 2048, 2048, device="cuda", dtype=torch.int32)
lens = torch.full((8,), 2048, device="cuda", dtype=torch.int32)
attention(q, k, v, starts, lens, 2048).sum().backward()
