import torch
from torchnorm import LayerNorm
x = torch.randn(8, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
LayerNorm(4096).to("cuda")(x).sum().backward()
