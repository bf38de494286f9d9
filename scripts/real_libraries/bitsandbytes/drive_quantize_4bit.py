import torch
from bitsandbytes.backends.triton import ops
w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
for kind in ("nf4", "fp4"):
    q, absmax = ops.quantize_4bit(w, 64, kind, torch.uint8)
    ops.dequantize_4bit(q, absmax, 64, kind, w.shape, torch.bfloat16)
