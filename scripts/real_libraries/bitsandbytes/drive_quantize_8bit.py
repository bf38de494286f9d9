import torch
from bitsandbytes.backends.triton import ops
from bitsandbytes.functional import create_dynamic_map
code = create_dynamic_map(signed=True).to("cuda")
w = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
q, absmax = ops.quantize_blockwise(w, code, 256)
ops.dequantize_blockwise(q, absmax, code, 256, torch.float16)
