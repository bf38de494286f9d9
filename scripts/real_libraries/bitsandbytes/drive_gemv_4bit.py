import torch
from bitsandbytes.backends.triton import ops
from bitsandbytes.functional import get_4bit_type
w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
q, absmax = ops.quantize_4bit(w, 64, "nf4", torch.uint8)
x = torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16)
ops.gemv_4bit(x, q, w.shape, absmax, get_4bit_type("nf4", device="cuda"), 64)
