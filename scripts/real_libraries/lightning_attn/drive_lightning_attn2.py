import torch
from lightning_attn.ops import lightning_attn2
from lightning_attn.utils import _build_slope_tensor
q, k, v = (torch.randn(4, 16, 4096, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
s = _build_slope_tensor(16).to("cuda", torch.float32)
lightning_attn2(q, k, v, s).sum().backward()
