import torch
from bitsandbytes.backends.triton import ops
from bitsandbytes.functional import create_dynamic_map
p = torch.randn(4096 * 4096, device="cuda")
g = torch.randn_like(p)
s1, s2 = torch.zeros_like(p, dtype=torch.uint8), torch.zeros_like(p, dtype=torch.uint8)
a1, a2 = torch.zeros(p.numel() // 256, device="cuda"), torch.zeros(p.numel() // 256, device="cuda")
q1, q2 = create_dynamic_map(signed=True).to("cuda"), create_dynamic_map(signed=False).to("cuda")
ops.optimizer_update_8bit_blockwise("adam", g, p, s1, s2, 0.9, 0.999, 0.0, 0.0, 1e-8, 1, 1e-3, q1, q2, a1, a2)
