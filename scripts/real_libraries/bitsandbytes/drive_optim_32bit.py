import torch
from bitsandbytes.backends.triton import ops
p = torch.randn(4096 * 4096, device="cuda")
g, m, v = torch.randn_like(p), torch.zeros_like(p), torch.zeros_like(p)
ops.optimizer_update_32bit("adam", g, p, m, v, None, 0.0, 0.0, 0.9, 0.999, 0.0, 0.0, 1e-8, 0.0, 1, 1e-3, 1.0)
ops.optimizer_update_32bit("momentum", g, p, m, None, None, 0.0, 0.0, 0.9, 0.0, 0.0, 0.0, 1e-8, 0.0, 1, 1e-3, 1.0)
