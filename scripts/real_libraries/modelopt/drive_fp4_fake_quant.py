import torch
from modelopt.torch.kernels.quantization.gemm import (fp4_fake_quant_block, static_blockwise_fp4_cast,
                                                      static_blockwise_fp4_fake_quant)
w = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
fp4_fake_quant_block(w, w.abs().amax())
static_blockwise_fp4_fake_quant(w, w.view(-1, 16).abs().amax(dim=1))
static_blockwise_fp4_cast(w / 3)
