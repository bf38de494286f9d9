import torch
from deepspeed.ops.triton_ops import group_gemm_triton
experts, tokens, hidden, inter = 8, 8192, 4096, 1408
a = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w = torch.randn(experts, inter, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
offs = torch.cumsum(torch.full((experts,), tokens // experts, device="cuda", dtype=torch.int32), 0).to(torch.int32)
group_gemm_triton(a, w, offs, trans_b=True).sum().backward()
