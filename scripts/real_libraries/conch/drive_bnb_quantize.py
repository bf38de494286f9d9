import torch
from conch.ops.quantization.bitsandbytes.functional import dequantize_blockwise, quantize_blockwise
x = torch.randn(4096 * 4096, device="cuda", dtype=torch.bfloat16)
q, state = quantize_blockwise(x, blocksize=64, quant_type="nf4")
dequantize_blockwise(q, state)
