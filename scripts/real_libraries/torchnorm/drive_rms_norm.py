import torch
from torchnorm import FusedAddRMSNorm, RMSNorm
x = torch.randn(8, 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
RMSNorm(4096).to("cuda")(x).sum().backward()
FusedAddRMSNorm(4096).to("cuda")(x, torch.randn_like(x))
