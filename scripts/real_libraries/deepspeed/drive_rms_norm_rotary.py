import torch
from deepspeed.ops.triton_ops.fused_rms_norm import fused_rms_norm
from deepspeed.ops.triton_ops.fused_rotary_pos_emb import fused_apply_rotary_pos_emb
x = torch.randn(8, 2048, 2048, device="cuda", dtype=torch.bfloat16, requires_grad=True)
fused_rms_norm(x, torch.ones(2048, device="cuda", dtype=torch.bfloat16, requires_grad=True), 1e-6).sum().backward()
q = torch.randn(8, 32, 2048, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
k = torch.randn(8, 8, 2048, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
cos, sin = (torch.randn(8, 2048, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
qo, ko = fused_apply_rotary_pos_emb(q, k, cos, sin)
(qo.sum() + ko.sum()).backward()
