import torch
from flash_attn.ops.triton.layer_norm import layer_norm_fn, rms_norm_fn
x = torch.randn(8 * 2048, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
w = torch.ones(4096, device="cuda", requires_grad=True)
b = torch.zeros(4096, device="cuda", requires_grad=True)
layer_norm_fn(x, w, b, residual=torch.randn_like(x), prenorm=True)[0].sum().backward()
rms_norm_fn(x, w, None).sum().backward()
