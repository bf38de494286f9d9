import torch
from flashrnn import flashrnn
B, T, NH, D = 16, 1024, 4, 64
Wx = torch.randn(B, T, 4, NH, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
R = torch.randn(4, NH, D, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
b = torch.randn(4, NH, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
h, last = flashrnn(Wx, R, b, function="lstm", backend="triton_fused")
h.sum().backward()
